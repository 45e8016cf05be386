import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** A mistake in a tool's arguments (unknown session, bad date): answered as an error result, in words. */
export class ToolInputError extends Error {}

export function errorResult(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

export function textResult(text: string, structured?: Record<string, unknown>): CallToolResult {
  return structured
    ? { content: [{ type: 'text', text }], structuredContent: structured }
    : { content: [{ type: 'text', text }] };
}
