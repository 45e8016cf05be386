import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { REPO } from './paths.ts';

export interface McpRun {
  client: Client;
  /** What the server wrote to stderr so far. */
  stderr: () => string;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult & { text: string }>;
  close(): Promise<void>;
}

/** Starts the real `agent-logbook mcp` through bin/ (as an assistant would) and connects the SDK's client. */
export async function startMcp(args: string[]): Promise<McpRun> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [path.join(REPO, 'bin', 'agent-logbook.js'), 'mcp', ...args],
    cwd: REPO,
    env: { ...(process.env as Record<string, string>), TZ: 'UTC' },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'agent-logbook-test', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    async call(name, callArgs = {}) {
      const result = (await client.callTool({ name, arguments: callArgs })) as CallToolResult;
      const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
      return { ...result, text };
    },
    close: () => client.close(),
  };
}
