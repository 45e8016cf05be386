// How fast `agent-logbook mcp` answers day_report over the benchmark history (made by `npm run bench`):
//   npx tsx scripts/bench/mcp-day-report.ts [corpus-dir] [calls]
// Starts the server as an assistant would (stdio, through bin/), waits for its first collect, then times
// day_report for the busiest day: with the collect throttled (the answer alone), and with a collect
// before every answer (--refresh 0: what a call costs when the sources may have changed).
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const corpus = path.resolve(process.argv[2] ?? path.join(os.tmpdir(), 'agent-logbook-bench-0.05'));
const calls = Number(process.argv[3] ?? 5);
const data = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-mcp-bench-'));

async function server(extra: string[]): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['bin/agent-logbook.js', 'mcp', '--home', corpus, '--data', data, '--tz', 'UTC', ...extra],
    cwd: repo,
    stderr: 'ignore',
  });
  const client = new Client({ name: 'mcp-bench', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

async function timed(client: Client, args: Record<string, unknown>): Promise<{ ms: number; chars: number }> {
  const started = performance.now();
  const result = await client.callTool({ name: 'day_report', arguments: args });
  const ms = performance.now() - started;
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return { ms, chars: (result.content as { text: string }[])[0]!.text.length };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

try {
  const throttled = await server(['--refresh', '3600']);
  let started = performance.now();
  const stats = await throttled.callTool({ name: 'stats', arguments: { format: 'json' } });
  const first = performance.now() - started;
  const days = (stats.structuredContent as { stats: { days: Record<string, { entries: number; sessions: number }> } })
    .stats.days;
  const [busiest, figures] = Object.entries(days).sort(([, a], [, b]) => b.entries - a.entries)[0]!;
  console.log(`corpus ${corpus}; first call (cold collect included): ${(first / 1000).toFixed(1)} s`);
  console.log(`busiest day ${busiest}: ${figures.sessions} sessions, ${figures.entries} responses`);
  const answers = [];
  for (let i = 0; i < calls; i++) answers.push(await timed(throttled, { date: busiest }));
  console.log(
    `day_report, collect throttled: median ${median(answers.map((a) => a.ms)).toFixed(0)} ms ` +
      `(${answers.map((a) => a.ms.toFixed(0)).join(', ')}; ${answers[0]!.chars} chars)`,
  );
  await throttled.close();

  const eager = await server(['--refresh', '0']);
  started = performance.now();
  await timed(eager, { date: busiest });
  const withCollect = [];
  for (let i = 0; i < calls; i++) withCollect.push((await timed(eager, { date: busiest })).ms);
  console.log(
    `day_report, warm collect before every answer: median ${median(withCollect).toFixed(0)} ms ` +
      `(${withCollect.map((ms) => ms.toFixed(0)).join(', ')})`,
  );
  await eager.close();
} finally {
  await fs.rm(data, { recursive: true, force: true });
}
