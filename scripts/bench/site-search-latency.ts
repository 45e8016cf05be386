/**
 * Site search latency as a person sees it: the built site served by agent-logbook's own server, opened in
 * Debian's Chromium (skipped when it is missing), each query typed into the search box, timed from the last
 * keystroke until the result list shows that query's first results, and until it is complete (the box waits
 * 80 ms after typing, included).
 * The page loads the index when idle: a query typed at once (`settleMs` 0) waits for it, one typed later need not.
 * `keyDelayMs` types each key that long after the one before, as a person types (the page starts loading its index
 * when the box is focused, so a person's typing hides part of it); 0 types the whole query at once.
 * The page is opened `rounds` times and each query's time is the median: one opening varies by ±50 ms on a busy
 * machine.
 */
import { existsSync } from 'node:fs';
import { startStaticServer } from '../../src/site/serve/static-server.ts';

export interface SearchLatency {
  query: string;
  /** Until the first results show (a query of several words shows them before it has read all it needs). */
  firstMs: number;
  /** Until the list is complete. */
  ms: number;
  results: number;
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function siteSearchLatency(
  outDir: string,
  queries: string[],
  settleMs = 0,
  rounds = 5,
  keyDelayMs = 0,
): Promise<SearchLatency[] | undefined> {
  if (!existsSync(CHROMIUM)) return undefined;
  const { chromium } = await import('playwright-core');
  const server = await startStaticServer({ root: outDir, port: 0 });
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  try {
    const opened: SearchLatency[][] = [];
    for (let round = 0; round < rounds; round++)
      opened.push(await typeQueries(browser, server.url, queries, settleMs, keyDelayMs));
    return queries.map((query, i) => {
      const median = (of: (t: SearchLatency) => number) =>
        opened.map((timings) => of(timings[i]!)).sort((a, b) => a - b)[opened.length >> 1]!;
      return { query, firstMs: median((t) => t.firstMs), ms: median((t) => t.ms), results: opened[0]![i]!.results };
    });
  } finally {
    await browser.close();
    await server.close();
  }
}

/** Opens the site once and types each query in turn. */
async function typeQueries(
  browser: import('playwright-core').Browser,
  url: string,
  queries: string[],
  settleMs: number,
  keyDelayMs: number,
): Promise<SearchLatency[]> {
  const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
  try {
    await page.goto(url);
    if (settleMs > 0) await page.waitForTimeout(settleMs);
    // Playwright sets up its own script in the page at the first wait (~30–40 ms of the page's thread, seen in a
    // trace): done now, so the first query's time is the page's, not the harness's.
    await page.waitForFunction(() => true);
    const timings: SearchLatency[] = [];
    for (const query of queries) {
      await page.keyboard.press('Escape');
      await page.keyboard.press('/');
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      // One key at a time, each `keyDelayMs` after the one before (Playwright's own delay holds a key down that long,
      // and waits before a character no key types: the gaps would differ between scripts).
      const keys = keyDelayMs > 0 ? Array.from(query) : [query];
      for (const [i, key] of keys.entries()) {
        if (i > 0) await page.waitForTimeout(keyDelayMs);
        await page.keyboard.type(key);
      }
      const started = performance.now();
      // The page notes when the first results showed and when all did; the wait ends with the second.
      const seen = await page.waitForFunction(
        (q) => {
          const list = document.querySelector<HTMLElement>('form.site-search .site-search-results');
          const at = window as unknown as { firstAt?: number };
          if (list?.dataset.first === q) at.firstAt ??= performance.now();
          return list?.dataset.query === q && { first: at.firstAt!, all: performance.now() };
        },
        query,
        { timeout: 60_000, polling: 5 },
      );
      const ms = performance.now() - started;
      const { first, all } = (await seen.jsonValue()) as { first: number; all: number };
      const firstMs = ms - (all - first);
      await page.evaluate(() => delete (window as unknown as { firstAt?: number }).firstAt);
      const results = await page.$$eval('.site-search-results li', (items) => items.length);
      timings.push({ query, firstMs, ms, results });
    }
    return timings;
  } finally {
    await page.close();
  }
}
