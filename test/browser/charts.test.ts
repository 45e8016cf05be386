import { promises as fs } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, startPreview } from '../helpers/browser.ts';

// The fixture site built by test/global-setup.ts: tokens on 2026-03-02 … 2026-03-06, days in Asia/Tokyo.
const site = inject('site');
const SHOTS = '/tmp/chart-shots';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
let browser: Browser;
let server: { url: string; stop: () => Promise<void> };

beforeAll(async () => {
  server = await startPreview(site.outDir);
  browser = await launchChromium();
  await fs.mkdir(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(route: string, width: number): Promise<Page> {
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(`${server.url}${route}`);
  return page;
}

const dayTime = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;

describe('the tokens-per-day chart in Chromium', () => {
  it('puts each day on a time axis: bars under their month label and day number, idle days as gaps', async () => {
    const page = await open('/stats/', 1440);
    const chart = page.locator('figure.chart').filter({ hasText: 'Tokens per day' });
    const bars = await chart.locator('.panel-io g').evaluateAll((groups) =>
      groups
        .filter((g) => g.querySelector('title') && g.querySelector('rect'))
        .map((g) => {
          const box = g.getBoundingClientRect();
          return { day: g.querySelector('title')!.textContent!.slice(0, 10), center: box.left + box.width / 2 };
        }),
    );
    const labels = await chart.locator('svg text').evaluateAll((texts) =>
      texts
        .filter((t) => t.getBoundingClientRect().width > 0)
        .map((t) => {
          const box = t.getBoundingClientRect();
          return { text: t.textContent!.trim(), left: box.left, center: box.left + box.width / 2, top: box.top };
        }),
    );
    const monthLabels = labels.filter((l) => /^[A-Z][a-z]{2}( \d{4})?$/.test(l.text));
    // The day numbers are the ones below every bar (the value axes' numbers are beside them).
    const floor = await chart
      .locator('rect')
      .evaluateAll((rects) => Math.max(...rects.map((r) => r.getBoundingClientRect().bottom)));
    const dayLabels = labels.filter((l) => /^\d{1,2}$/.test(l.text) && l.top >= floor - 1);

    expect(bars.map((b) => b.day)).toEqual(['2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06']);
    expect(monthLabels.map((l) => l.text)).toEqual(['Mar 2026']);
    for (const bar of bars) {
      // The month label in force under a bar is the last one starting left of it.
      const month = monthLabels.filter((l) => l.left <= bar.center).at(-1);
      expect(month?.text.slice(0, 3), bar.day).toBe(MONTHS[Number(bar.day.slice(5, 7)) - 1]);
    }
    // One width per calendar day between any two bars: a time axis, not active days side by side.
    const slot = (bars[1]!.center - bars[0]!.center) / (dayTime(bars[1]!.day) - dayTime(bars[0]!.day));
    expect(slot).toBeGreaterThan(20);
    for (const bar of bars) {
      const offset = (bar.center - bars[0]!.center) / slot;
      expect(Math.abs(offset - (dayTime(bar.day) - dayTime(bars[0]!.day))), bar.day).toBeLessThan(0.05);
      // The day number under a bar is its own.
      const under = dayLabels.filter((l) => Math.abs(l.center - bar.center) < slot / 2);
      expect(under.map((l) => l.text)).toEqual([String(Number(bar.day.slice(8)))]);
    }
    // March 1 has no tokens: its slot is on the axis, with no bar above it.
    const idle = dayLabels.find((l) => l.text === '1')!;
    expect(idle).toBeDefined();
    expect(bars.every((b) => Math.abs(b.center - idle.center) > slot / 2)).toBe(true);
    expect(Math.abs(bars[0]!.center - idle.center - slot)).toBeLessThan(1);
    await page.close();
  });

  it('shows input and output on a scale of their own, tall enough to read', async () => {
    const page = await open('/stats/', 1440);
    const chart = page.locator('figure.chart').filter({ hasText: 'Tokens per day' });
    const plots = await chart.locator('svg').evaluateAll((svgs) =>
      svgs
        .filter((svg) => svg.querySelector('rect'))
        .map((svg) => ({
          kinds: [...new Set([...svg.querySelectorAll('rect')].map((r) => r.getAttribute('class')))].sort(),
          height: svg.getBoundingClientRect().height,
          tallest: Math.max(
            ...[...svg.querySelectorAll('g')].map((g) =>
              [...g.querySelectorAll('rect')].reduce((sum, r) => sum + r.getBoundingClientRect().height, 0),
            ),
          ),
        })),
    );
    const io = plots.find((p) => p.kinds.includes('seg seg-input'))!;
    expect(io.kinds).toEqual(['seg seg-input', 'seg seg-output']);
    // The busiest day's input and output fill most of their plot, not a sliver under cache reads.
    expect(io.tallest / io.height).toBeGreaterThan(0.6);
    const cache = plots.find((p) => p.kinds.includes('seg seg-cacheRead'))!;
    expect(cache).not.toBe(io);
    // On the quietest day (2026-03-02: 520 in, 380 out) input and output are still a few pixels, not zero.
    const quiet = await chart
      .locator('.panel-io g')
      .filter({ hasText: '2026-03-02' })
      .locator('rect')
      .evaluateAll((rects) => rects.map((r) => r.getBoundingClientRect().height));
    expect(quiet.length).toBe(2);
    for (const h of quiet) expect(h).toBeGreaterThanOrEqual(1.5);
    await page.close();
  });
});

describe('chart labels in Chromium', () => {
  it('say "1 entry", never "1 entries", in text, tooltips and labels', async () => {
    for (const route of ['/', '/stats/']) {
      const page = await open(route, 1440);
      const words = await page.evaluate(() =>
        [
          document.body.innerText,
          ...[...document.querySelectorAll('title')].map((t) => t.textContent),
          ...[...document.querySelectorAll('[aria-label]')].map((e) => e.getAttribute('aria-label')),
        ].join('\n'),
      );
      // The calendar's 2025-05-20 had one prompt.
      if (route === '/') expect(words).toContain('2025-05-20: 1 entry or prompt');
      expect(words).not.toMatch(/(^|[^\d.,])1 (entries|prompts|sessions|tool uses|conversations)\b/m);
      await page.close();
    }
  });

  it('shows every statistics label whole and inside the page at 390 px', async () => {
    const page = await open('/stats/', 390);
    const report = await page.evaluate(() => {
      const width = document.documentElement.clientWidth;
      const figures = [...document.querySelectorAll('figure.chart')];
      const outside = figures.flatMap((f) =>
        [...f.querySelectorAll('svg text, .bar-label')]
          .filter((t) => getComputedStyle(t).display !== 'none' && t.getBoundingClientRect().width > 0)
          .map((t) => ({ text: t.textContent!.trim(), box: t.getBoundingClientRect() }))
          .filter(({ box }) => box.left < -0.5 || box.right > width + 0.5)
          .map(({ text }) => text),
      );
      const barLabels = figures.map((f) => [...f.querySelectorAll('.bar-label')].map((l) => l.textContent!.trim()));
      const tableLabels = figures.map((f) =>
        f.querySelector('.bar-label') ? [...f.querySelectorAll('tbody th')].map((th) => th.textContent!.trim()) : [],
      );
      return { outside, barLabels, tableLabels, scrollWidth: document.documentElement.scrollWidth, width };
    });
    expect(report.outside).toEqual([]);
    expect(report.scrollWidth).toBeLessThanOrEqual(report.width);
    // Every bar's label is its row's name in full (the table has the names), not cut with an ellipsis.
    expect(report.barLabels).toEqual(report.tableLabels);
    expect(report.barLabels.flat()).toEqual(expect.arrayContaining(['search_issues', 'execute_bash', 'exec_command']));
    await page.close();
  });

  it('let the charts use the width of a wide page', async () => {
    const page = await open('/stats/', 1440);
    const widths = await page.evaluate(() => {
      const main = document.querySelector('main')!.getBoundingClientRect().width;
      const tokens = [...document.querySelectorAll('figure.chart')].find((f) => f.textContent!.includes('Tokens'))!;
      const plot = [...tokens.querySelectorAll('svg')].reduce(
        (w, s) => Math.max(w, s.getBoundingClientRect().width),
        0,
      );
      const entries = [...document.querySelectorAll('figure.chart')].find((f) =>
        f.querySelector('figcaption')!.textContent!.includes('number of entries'),
      )!;
      const bar = [...entries.querySelectorAll('svg')].reduce(
        (w, s) => Math.max(w, s.getBoundingClientRect().width),
        0,
      );
      return { main, plot, bar };
    });
    expect(widths.plot / widths.main).toBeGreaterThan(0.85);
    expect(widths.bar / widths.main).toBeGreaterThan(0.6);
    await page.close();
  });

  it('leaves screenshots of home and statistics at 390 and 1,440 px', async () => {
    for (const width of [390, 1440]) {
      for (const [name, route] of [
        ['home', '/'],
        ['stats', '/stats/'],
      ] as const) {
        const page = await open(route, width);
        const file = `${SHOTS}/${name}-${width}.png`;
        await page.screenshot({ path: file, fullPage: true });
        expect((await fs.stat(file)).size).toBeGreaterThan(10_000);
        await page.close();
      }
    }
  });
});
