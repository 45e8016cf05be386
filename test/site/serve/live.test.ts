import { promises as fs } from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { serveLive } from '../../../src/site/serve/live.ts';
import { tempDir } from '../../helpers/paths.ts';

const watchers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'FSEventWrap').length;

// Ctrl-C while a rebuild runs: serve --watch waits for that rebuild, which then reports the sources it found.
// Those must not be watched again, or the process never exits (it kept one watcher per project folder).
it('stops for good when Ctrl-C comes during a rebuild: nothing is watched once it has returned', async () => {
  const root = await tempDir('live-stop');
  const out = path.join(root, 'site');
  const sources = ['a', 'b', 'c'].map((name) => path.join(root, 'source', name));
  await fs.mkdir(out);
  for (const source of sources) await fs.mkdir(source, { recursive: true });
  await fs.writeFile(path.join(out, 'index.html'), '<!doctype html><html><body><h1>Site</h1></body></html>\n');
  const watchersBefore = watchers();
  let stop!: () => void;
  const stopSignal = new Promise<void>((resolve) => (stop = resolve));
  let endRebuild!: () => void;
  const rebuildMayEnd = new Promise<void>((resolve) => (endRebuild = resolve));
  let rebuilds = 0;
  let logged = '';
  const serving = serveLive({
    outDir: out,
    port: 0,
    ignore: [out],
    log: (text) => (logged += text),
    stopSignal,
    rebuild: async () => {
      rebuilds += 1;
      if (rebuilds > 1) await rebuildMayEnd;
      return { locations: sources, summary: `rebuild ${rebuilds}` };
    },
  });
  try {
    await expect.poll(() => logged, { timeout: 10_000 }).toMatch(/watching the sources/);
    expect(watchers()).toBe(watchersBefore + sources.length);
    await fs.writeFile(path.join(sources[0]!, 'session.jsonl'), '{}\n');
    await expect.poll(() => rebuilds, { timeout: 10_000 }).toBe(2);
    stop();
    await expect.poll(() => logged).toMatch(/Stopping…/);
    endRebuild();
    await serving;
    expect(logged).toMatch(/rebuild 2\n/);
    // Closing a recursive watcher takes a turn or two of the event loop.
    await expect.poll(watchers, { timeout: 2_000 }).toBe(watchersBefore);
    // A change now starts nothing.
    await fs.writeFile(path.join(sources[1]!, 'session.jsonl'), '{}\n');
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(rebuilds).toBe(2);
  } finally {
    endRebuild();
    stop();
    await serving;
  }
});
