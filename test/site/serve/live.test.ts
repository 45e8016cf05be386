import { promises as fs } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect, it } from 'vitest';
import { serveLive } from '../../../src/site/serve/live.ts';
import { tempDir } from '../../helpers/paths.ts';

// The live server with a rebuild of the test's own: the reload must reach the pages while the rebuild still waits
// for the site search's index, and the word that the index is new only once the rebuild has ended.
it('tells the open pages to reload once the pages are written, and that the search index is new when it is', async () => {
  const root = await tempDir('live-order');
  const out = path.join(root, 'site');
  const source = path.join(root, 'source');
  await fs.mkdir(out);
  await fs.mkdir(source);
  await fs.writeFile(path.join(out, 'index.html'), '<!doctype html><html><body><h1>Site</h1></body></html>\n');
  let stop!: () => void;
  const stopSignal = new Promise<void>((resolve) => (stop = resolve));
  let writeIndex!: () => void;
  const indexWritten = new Promise<void>((resolve) => (writeIndex = resolve));
  let rebuilds = 0;
  let logged = '';
  const serving = serveLive({
    outDir: out,
    port: 0,
    ignore: [out],
    log: (text) => (logged += text),
    stopSignal,
    rebuild: async (pagesWritten) => {
      rebuilds += 1;
      if (rebuilds > 1) {
        pagesWritten();
        await indexWritten;
      }
      return { locations: [source], summary: `rebuild ${rebuilds}` };
    },
  });
  await expect.poll(() => logged, { timeout: 10_000 }).toMatch(/ at http:\S+/);
  const url = / at (http:\S+)/.exec(logged)![1]!;
  const told: string[] = [];
  const events = http.get(`${url}__agent-logbook/events`, (response) =>
    response.on('data', (chunk: Buffer) =>
      told.push(...[...chunk.toString().matchAll(/^data: (\w+)$/gm)].map((m) => m[1]!)),
    ),
  );
  events.on('error', () => undefined);
  try {
    await new Promise((resolve) => setTimeout(resolve, 300));
    await fs.writeFile(path.join(source, 'session.jsonl'), '{}\n');
    await expect.poll(() => told, { timeout: 10_000 }).toEqual(['reload']);
    // The rebuild still waits for its index: the pages have reloaded, their search boxes are not told yet.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(told).toEqual(['reload']);
    writeIndex();
    await expect.poll(() => told.slice(0, 2), { timeout: 10_000 }).toEqual(['reload', 'search']);
  } finally {
    events.destroy();
    writeIndex();
    stop();
    await serving;
  }
});
