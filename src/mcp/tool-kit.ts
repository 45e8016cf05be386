import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SOURCE_IDS } from '../model/message.ts';
import { errorResult, ToolInputError } from './errors.ts';

/** Input fields several tools share, with descriptions written for the model that fills them in. */

export const DEFAULT_MAX_CHARS = 20_000;
export const MIN_MAX_CHARS = 1_000;
export const MAX_MAX_CHARS = 1_000_000;
export const DEFAULT_MAX_OUTPUT_CHARS = 2_000;

export const maxChars = z
  .number()
  .int()
  .min(MIN_MAX_CHARS)
  .max(MAX_MAX_CHARS)
  .optional()
  .describe(
    `Upper bound on the characters of the text answer (default ${DEFAULT_MAX_CHARS}). The answer is cut between ` +
      'messages and ends with a note saying what was left out and how to get it.',
  );

export const maxOutputChars = z
  .number()
  .int()
  .min(100)
  .max(MAX_MAX_CHARS)
  .optional()
  .describe(
    `With include_tool_calls: each tool input or output longer than this is cut, with a note (default ${DEFAULT_MAX_OUTPUT_CHARS}).`,
  );

export const includeThinking = (byDefault: boolean) =>
  z.boolean().optional().describe(`Include the assistant's thinking (reasoning) blocks. Default ${byDefault}.`);

export const includeToolCalls = (byDefault: boolean) =>
  z
    .boolean()
    .optional()
    .describe(
      `Include tool calls with their inputs and results (commands run, files read and edited, their output). Default ${byDefault}: ` +
        (byDefault
          ? 'set false for the conversation text alone.'
          : 'only what the user typed and the assistant answered.'),
    );

export const source = z
  .enum(SOURCE_IDS)
  .optional()
  .describe(
    'Only sessions of this assistant: claude-code (Claude Code), codex (Codex CLI), amazon-q (Amazon Q / Kiro CLI).',
  );

export const project = z
  .string()
  .optional()
  .describe('A project: its name (last directory part, e.g. "webapp"), its full directory, or part of the directory.');

export const day = (what: string) =>
  z.string().optional().describe(`${what}: today, yesterday or YYYY-MM-DD (a day in the server's time zone).`);

/** The arguments a tool takes, as a strict object: an argument it does not know (a misspelt or guessed name)
 * fails the call with an error result naming the ones it knows, instead of being dropped unseen. */
export function toolArguments<Shape extends z.ZodRawShape>(tool: string, shape: Shape) {
  const known = Object.keys(shape);
  const takes = known.length > 0 ? `${tool} takes: ${known.join(', ')}` : `${tool} takes no arguments`;
  return z.strictObject(shape, {
    error: (issue) => {
      if (issue.code !== 'unrecognized_keys') return undefined;
      const names = issue.keys.map((key) => `"${key}"`).join(', ');
      return `unknown argument${issue.keys.length === 1 ? '' : 's'} ${names}; ${takes}.`;
    },
  });
}

/** Registers a tool of the logbook; every tool goes through here, so every tool refuses unknown arguments. */
export function registerTool<Shape extends z.ZodRawShape>(
  server: McpServer,
  name: string,
  config: { title: string; description: string; inputSchema: Shape; annotations?: ToolAnnotations },
  handler: (args: z.output<z.ZodObject<Shape, z.core.$strict>>) => Promise<CallToolResult>,
): void {
  type Args = z.output<z.ZodObject<Shape, z.core.$strict>>;
  const { inputSchema: shape, ...described } = config;
  const inputSchema: z.ZodType<Args> = toolArguments(name, shape);
  server.registerTool<z.ZodType, z.ZodType<Args>>(name, { ...described, inputSchema }, (args: Args) => handler(args));
}

/** Tool calls under way: a client that closes its end after sending still gets its answers. */
const inflight = new Set<Promise<unknown>>();

export async function toolCallsSettled(): Promise<void> {
  while (inflight.size > 0) await Promise.allSettled([...inflight]);
}

/** Runs a tool, turning a mistake in its input (or any failure) into an error result the model can read. */
export function safely<A>(
  run: (args: A) => Promise<CallToolResult>,
  log: (line: string) => void,
): (args: A) => Promise<CallToolResult> {
  return async (args: A) => {
    const call = (async () => {
      try {
        return await run(args);
      } catch (error) {
        if (error instanceof ToolInputError) return errorResult(error.message);
        log(`tool failed: ${(error as Error).stack ?? String(error)}`);
        return errorResult(`The logbook could not answer: ${(error as Error).message}`);
      }
    })();
    inflight.add(call);
    try {
      return await call;
    } finally {
      inflight.delete(call);
    }
  };
}

/** An opaque position in a list of sessions: a session's key and a message index in it. */
export interface Cursor {
  k: string;
  o: number;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

export function decodeCursor(value: string): Cursor {
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as Partial<Cursor>;
    if (typeof parsed.k === 'string' && typeof parsed.o === 'number' && parsed.o >= 0) return parsed as Cursor;
  } catch {
    // Not one of ours.
  }
  throw new ToolInputError(`cursor "${value}" is not one this server gave out; call again without a cursor`);
}
