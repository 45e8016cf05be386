import { spawn } from 'node:child_process';
import { type Measure, peakRssIn, RSS_HOOK } from './measure.ts';

/**
 * Starts `serve --watch` (it collects and builds first), listens to its reload events as an open page does,
 * then appends to a transcript and measures until the reload arrives. The peak RSS is the server's.
 */
export async function liveUpdateLatency(
  cli: string,
  home: string,
  data: string,
  out: string,
  append: () => Promise<void>,
): Promise<Measure> {
  const http = await import('node:http');
  const port = 43000 + Math.floor(Math.random() * 2000);
  const argv = [
    'serve',
    '--watch',
    '--home',
    home,
    '--data',
    data,
    '--out',
    out,
    '--tz',
    'UTC',
    '--port',
    String(port),
  ];
  const child = spawn(process.execPath, ['--import', RSS_HOOK, cli, ...argv], {
    env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    for (let waited = 0; !stderr.includes('Serving'); waited += 100) {
      if (waited > 600_000 || child.exitCode !== null) throw new Error(`serve --watch did not start:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const reloaded = new Promise<void>((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}/__agent-logbook/events`, (response) => {
          response.on('data', (chunk: Buffer) => chunk.toString().includes('data: reload') && resolve());
        })
        .on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 300));
    const started = process.hrtime.bigint();
    await append();
    await reloaded;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    child.kill('SIGINT');
    await exited;
    return { seconds, maxRssMB: peakRssIn(stderr), cpuSeconds: undefined };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}
