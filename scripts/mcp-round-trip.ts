// A real MCP round trip against the fixture home, printed as a transcript (the README shows its output):
//   npx tsx scripts/mcp-round-trip.ts [tool] [json-arguments]
// Starts `agent-logbook mcp` as an assistant would (stdio), lists its tools and calls one.
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const repo = fileURLToPath(new URL('..', import.meta.url));
const [tool = 'day_report', json = '{"date":"2026-03-02"}'] = process.argv.slice(2);
const data = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-mcp-demo-'));
const args = ['bin/agent-logbook.js', 'mcp', '--home', 'fixtures/home', '--data', data, '--tz', 'UTC'];
const transport = new StdioClientTransport({ command: process.execPath, args, cwd: repo, stderr: 'pipe' });
let serverLog = '';
transport.stderr?.on('data', (chunk: Buffer) => (serverLog += chunk.toString()));
const client = new Client({ name: 'round-trip', version: '1.0.0' });
try {
  await client.connect(transport);
  const info = client.getServerVersion();
  console.log(`$ agent-logbook ${args.slice(1).join(' ').replace(data, '<tmp>')}`);
  console.log(`← initialize: ${info?.name} ${info?.version}`);
  const { tools } = await client.listTools();
  console.log(`→ tools/list\n← ${tools.length} tools: ${tools.map((t) => t.name).join(', ')}`);
  const started = Date.now();
  const result = await client.callTool({ name: tool, arguments: JSON.parse(json) as Record<string, unknown> });
  const ms = Date.now() - started;
  console.log(`→ tools/call ${tool} ${json}`);
  for (const part of result.content as { type: string; text?: string }[]) {
    console.log(`← ${part.type}${result.isError ? ' (isError)' : ''}:\n${part.text ?? ''}`);
  }
  console.error(`(answered in ${ms} ms, the first call including the initial collect)`);
} finally {
  await client.close();
  await fs.rm(data, { recursive: true, force: true });
  if (process.env.SHOW_SERVER_LOG) console.error(serverLog.replace(data, '<tmp>'));
}
