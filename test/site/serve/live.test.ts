import { promises as fs } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { expect, it } from 'vitest';
import { serveLive, type LiveOptions } from '../../../src/site/serve/live.ts';
import { tempDir } from '../../helpers/paths.ts';

/** `serveLive` over a one-page site, with a rebuild of the test's own that watches `sources`. */
async function liveSite(name: string, rebuild: (rebuilds: number, pagesWritten: () => void) => Promise<boolean>) {
  const root = await tempDir(name);
  const out = path.join(root, 'site');
  const sources = ['a', 'b', 'c'].map((source) => path.join(root, 'source', source));
  await fs.mkdir(out);
  for (const source of sources) await fs.mkdir(source, { recursive: true });
  await fs.writeFile(path.join(out, 'index.html'), '<!doctype html><html><body><h1>Site</h1></body></html>\n');
  let stop!: () => void;
  const stopSignal = new Promise<void>((resolve) => (stop = resolve));
  const state = { rebuilds: 0, logged: '', told: [] as string[] };
  const options: LiveOptions = {
    outDir: out,
    port: 0,
    ignore: [out],
    log: (text) => (state.logged += text),
    stopSignal,
    rebuild: async (pagesWritten) => {
      state.rebuilds += 1;
      const searchChanged = await rebuild(state.rebuilds, pagesWritten);
      return { locations: sources, summary: `rebuild ${state.rebuilds}`, searchChanged };
    },
  };
  const serving = serveLive(options);
  try {
    await expect.poll(() => state.logged, { timeout: 10_000 }).toMatch(/ at http:\S+ and watching the sources/);
  } catch (error) {
    stop();
    await serving;
    throw error;
  }
  const url = / at (http:\S+)/.exec(state.logged)![1]!;
  let events!: http.ClientRequest;
  // The server says `: connected` at once: from then on it tells this client.
  await new Promise<void>((connected, failed) => {
    events = http.get(`${url}__agent-logbook/events`, (response) =>
      response.on('data', (chunk: Buffer) => {
        connected();
        state.told.push(...[...chunk.toString().matchAll(/^data: (reload|search)\b/gm)].map((m) => m[1]!));
      }),
    );
    events.on('error', failed);
  });
  events.on('error', () => undefined);
  return {
    state,
    sources,
    stop,
    serving,
    change: (source = sources[0]!) => fs.writeFile(path.join(source, 'session.jsonl'), `${Date.now()}\n`),
    async close() {
      events.destroy();
      stop();
      await serving;
    },
  };
}

// The reload must reach the pages while the rebuild still waits for the site search's index, and the word that
// the index is new only once the rebuild has ended.
it('tells the open pages to reload once the pages are written, and that the search index is new when it is', async () => {
  let writeIndex!: () => void;
  const indexWritten = new Promise<void>((resolve) => (writeIndex = resolve));
  const site = await liveSite('live-order', async (rebuilds, pagesWritten) => {
    if (rebuilds > 1) {
      pagesWritten();
      await indexWritten;
    }
    return true;
  });
  try {
    await site.change();
    await expect.poll(() => site.state.told, { timeout: 10_000 }).toEqual(['reload']);
    // The rebuild still waits for its index: the pages have reloaded, their search boxes are not told yet.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(site.state.told).toEqual(['reload']);
    writeIndex();
    await expect.poll(() => site.state.told.slice(0, 2), { timeout: 10_000 }).toEqual(['reload', 'search']);
  } finally {
    writeIndex();
    await site.close();
  }
});

it('does not tell the search boxes of an index that did not change', async () => {
  const site = await liveSite('live-same-index', async (rebuilds, pagesWritten) => {
    if (rebuilds > 1) pagesWritten();
    return false;
  });
  try {
    await site.change();
    await expect.poll(() => site.state.logged, { timeout: 10_000 }).toMatch(/rebuild 2\n/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(site.state.told).toEqual(['reload']);
  } finally {
    await site.close();
  }
});

const watchers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'FSEventWrap').length;

// Ctrl-C while a rebuild runs: serve --watch waits for that rebuild, which then reports the sources it found.
// Those must not be watched again, or the process never exits (it kept one watcher per project folder).
it('stops for good when Ctrl-C comes during a rebuild: nothing is watched once it has returned', async () => {
  // The tests before this one closed theirs; closing a recursive watcher takes a turn or two of the event loop.
  await expect.poll(watchers, { timeout: 2_000 }).toBe(0);
  let endRebuild!: () => void;
  const rebuildMayEnd = new Promise<void>((resolve) => (endRebuild = resolve));
  const site = await liveSite('live-stop', async (rebuilds) => {
    if (rebuilds > 1) await rebuildMayEnd;
    return true;
  });
  try {
    expect(watchers()).toBe(site.sources.length);
    await site.change();
    await expect.poll(() => site.state.rebuilds, { timeout: 10_000 }).toBe(2);
    // A change during the rebuild queues one more, which the stop drops.
    await site.change(site.sources[2]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    site.stop();
    await expect
      .poll(() => site.state.logged)
      .toMatch(/Stopping once the rebuild in progress has ended \(Ctrl-C again to stop now\)…\n/);
    endRebuild();
    await site.serving;
    expect(site.state.logged).toMatch(/rebuild 2\n/);
    await expect.poll(watchers, { timeout: 2_000 }).toBe(0);
    // A change now starts nothing.
    await site.change(site.sources[1]);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(site.state.rebuilds).toBe(2);
  } finally {
    endRebuild();
    await site.close();
  }
});

it('stops once the first build has ended when Ctrl-C comes during it, saying so at once, and serves nothing', async () => {
  const root = await tempDir('live-first');
  const out = path.join(root, 'site');
  await fs.mkdir(out);
  let stop!: () => void;
  const stopSignal = new Promise<void>((resolve) => (stop = resolve));
  let endBuild!: () => void;
  const buildMayEnd = new Promise<void>((resolve) => (endBuild = resolve));
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
      await buildMayEnd;
      return { locations: [root], summary: 'first build', searchChanged: true };
    },
  });
  try {
    stop();
    await expect.poll(() => logged).toBe('Stopping once the first build has ended (Ctrl-C again to stop now)…\n');
    endBuild();
    await serving;
    expect(logged).toBe('Stopping once the first build has ended (Ctrl-C again to stop now)…\nfirst build\n');
    expect(rebuilds).toBe(1);
  } finally {
    endBuild();
    await serving;
  }
});
