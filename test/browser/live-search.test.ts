import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page, Route } from 'playwright-core';
import { startStaticServer, type StaticServer } from '../../src/site/serve/static-server.ts';
import { CHROMIUM, launchChromium, typeQuery } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { fixtureBuild, SESSION, WEBAPP } from '../helpers/paths.ts';
import { appendPrompt } from '../helpers/transcripts.ts';

// `serve --watch` tells the open pages to reload once the pages are written, and the site search's index is
// written after them: a page that loaded the index before it was written again must load it afresh when the
// live server says so, or its queries would ask for the old index's files. The real CLI builds the site twice,
// the live server serves it, and a real Chromium page keeps its index across the second build.

const available = existsSync(CHROMIUM);
const WORD = 'zebrafinchmarker';
let site: Awaited<ReturnType<typeof fixtureBuild>>;
let server: StaticServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  if (!available) return;
  site = await fixtureBuild('live-search');
  const built = await runCli(['build', '--home', site.home, '--data', site.data, '--out', site.out, '--tz', 'UTC']);
  expect(built.code, built.stderr).toBe(0);
  server = await startStaticServer({ root: site.out, port: 0, live: true });
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Types a query into the search box and returns the result links once the list is complete. */
async function search(page: Page, query: string): Promise<string[]> {
  // A query typed again would find the list still marked with the last answer to it.
  await page.evaluate(() => delete document.querySelector<HTMLElement>('.site-search-results')?.dataset.query);
  await typeQuery(page, query);
  await page.waitForFunction(
    (q) => document.querySelector<HTMLElement>('form.site-search .site-search-results')?.dataset.query === q,
    query,
    { timeout: 20_000 },
  );
  return page.$$eval('.site-search-results a', (links) =>
    links.map((a) => new URL((a as HTMLAnchorElement).href).pathname),
  );
}

describe.skipIf(!available)('the search box under serve --watch', () => {
  it('loads the index again when the live server says it was written again, and finds what was added', async () => {
    const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server!.url}days/2026-03-04/`);
    // The index as the first build wrote it, loaded and asked: the word is not there yet.
    expect(await search(page, WORD)).toEqual([]);
    const sessionPath = `/sessions/claude-code/${SESSION.B}/`;
    expect(await search(page, 'webapp')).not.toHaveLength(0);

    const transcript = path.join(site.home, '.claude', 'projects', path.basename(WEBAPP), `${SESSION.B}.jsonl`);
    await appendPrompt(transcript, `${WORD} を追加`, '2026-03-03T00:30:00.000Z');
    const rebuilt = await runCli(['build', '--home', site.home, '--data', site.data, '--out', site.out, '--tz', 'UTC']);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    // The page still holds the first build's index, whose files the second build replaced.
    server!.searchChanged();
    await expect.poll(() => search(page, WORD), { timeout: 30_000 }).toContain(sessionPath);
    expect(errors).toEqual([]);
    await page.close();
  });

  // The word that the index is new follows the reload closely when the search was indexed alongside a few pages: a
  // page that reloaded may connect after it was sent. The page carries the number of the index it was served with,
  // and the server gives the current one on connecting.
  it('tells a page served before the index was written again, once it connects', async () => {
    const page = await browser!.newPage({ viewport: { width: 390, height: 800 } });
    await page.addInitScript(() => {
      const counted = window as unknown as { told: number; heard: number };
      counted.told = 0;
      counted.heard = 0;
      window.addEventListener('agent-logbook:search-index', () => (counted.told += 1));
      // Each word of the live server counted before the page's script reads it (listeners run in the order added).
      const Original = window.EventSource;
      window.EventSource = class extends Original {
        constructor(url: string | URL, init?: EventSourceInit) {
          super(url, init);
          this.addEventListener('message', () => (counted.heard += 1));
        }
      };
    });
    const toldOnPage = () => page.evaluate(() => (window as unknown as { told: number }).told);
    // The server's first word (the index's number) has been read.
    const connected = () =>
      page.waitForFunction(() => (window as unknown as { heard: number }).heard > 0, undefined, { timeout: 20_000 });
    // The tab's first page, served while the index is written again: its live script (and so its stream) comes
    // only after the word was sent.
    await page.route('**/__agent-logbook/reload.js', async (route) => {
      server!.searchChanged();
      await route.continue();
    });
    await page.goto(`${server!.url}days/2026-03-04/`);
    await connected();
    expect(await toldOnPage()).toBe(1);
    await page.unroute('**/__agent-logbook/reload.js');
    // Served again with nothing new: not told.
    await page.reload();
    await connected();
    expect(await toldOnPage()).toBe(0);
    // Told live, once, while it is open.
    server!.searchChanged();
    await expect.poll(toldOnPage).toBe(1);
    await page.close();
  });
  // A setup dropped when the index was written again may never end (a request that hangs): the next one must not
  // wait for it.
  it('sets the index up again even when the setup it dropped never ends', async () => {
    const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } });
    let hung = 0;
    const list = '**/pagefind/shards.json';
    // The first request is never answered; the ones after it go through.
    await page.route(list, (route) => (hung++ === 0 ? undefined : route.continue()));
    await page.goto(`${server!.url}days/2026-03-04/`);
    await page.focus('form.site-search input[name=q]');
    await expect.poll(() => hung, { timeout: 20_000 }).toBeGreaterThan(0);
    server!.searchChanged();
    expect(await search(page, 'webapp')).not.toHaveLength(0);
    await page.close();
  });
  // A setup dropped while Pagefind's module sets itself up ends later, and is destroyed then: that must not undo
  // the setup that replaced it (one module, one state, were they imported from the same URL).
  it('keeps the new setup when the one it dropped ends and is destroyed after it', async () => {
    const page = await browser!.newPage({ viewport: { width: 1200, height: 900 } });
    let held: Route | undefined;
    let entries = 0;
    let wasm = 0;
    await page.route('**/pagefind-entry.json*', (route) => (entries++ === 0 ? void (held = route) : route.continue()));
    await page.route('**/wasm.*.pagefind', (route) => {
      wasm += 1;
      return route.continue();
    });
    await page.goto(`${server!.url}days/2026-03-04/`);
    await expect.poll(() => held !== undefined, { timeout: 20_000 }).toBe(true);
    server!.searchChanged();
    expect(await search(page, 'webapp')).not.toHaveLength(0);
    // The dropped setup goes on (its WebAssembly fetched), ends, and is destroyed.
    const before = wasm;
    await held!.continue();
    await expect.poll(() => wasm, { timeout: 20_000 }).toBeGreaterThan(before);
    await page.waitForTimeout(500);
    expect(await search(page, 'webapp')).not.toHaveLength(0);
    await page.close();
  });
});
