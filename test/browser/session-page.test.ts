import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, startPreview } from '../helpers/browser.ts';
import { REPO, SESSION } from '../helpers/paths.ts';
import { formatInZone } from '../../src/site/format.ts';

const site = inject('site');
let browser: Browser;
let server: { url: string; stop: () => Promise<void> };

beforeAll(async () => {
  server = await startPreview(site.outDir);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('a session page in Chromium', () => {
  it('shows the conversation, runs no transcript script, and opens a tool call on click', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    const violations: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });
    await page.goto(`${server.url}/sessions/claude-code/${SESSION.A}/`);

    await expect(page.locator('h1').textContent()).resolves.toBe('Fix login redirect');
    await expect(
      page.locator('.thread').getByText('ログイン画面のリダイレクトを直してください。').isVisible(),
    ).resolves.toBe(true);
    // The transcript's <img onerror> / <script> attempts never ran.
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(violations).toEqual([]);

    // Thinking is collapsed; a tool call shows its output once opened.
    await expect(page.locator('details.thinking').first().getAttribute('open')).resolves.toBeNull();
    const read = page.locator('.thread > .item > details.tool').first();
    const output = read.locator('.io pre').last();
    await expect(output.isVisible()).resolves.toBe(false);
    await read.locator('summary').click();
    await expect(output.isVisible()).resolves.toBe(true);
    await expect(output.textContent()).resolves.toContain('<script>alert(1)</script>');

    // The stylesheet loaded under the CSP (layout is not the browser default).
    const font = await page.evaluate(() => getComputedStyle(document.body).fontFamily);
    expect(font).toMatch(/Noto Sans JP|system-ui/);

    await fs.mkdir(path.join(REPO, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(REPO, 'test-results', 'session-page.png'), fullPage: true });
    await page.close();
  });

  it("gives a message's time its date and zone offset, and an answer's tokens their kinds, as tooltips", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${server.url}/sessions/claude-code/${SESSION.A}/`);
    const time = page.locator('.thread time[datetime]').first();
    const datetime = (await time.getAttribute('datetime'))!;
    await expect(time.getAttribute('title')).resolves.toBeNull();
    // The test site is built with --tz Asia/Tokyo.
    await time.hover();
    const tokyo = formatInZone(datetime, 'yyyy-MM-dd HH:mm:ss xxx', 'Asia/Tokyo');
    expect(tokyo).toMatch(/ \+09:00$/);
    await expect(time.getAttribute('title')).resolves.toBe(tokyo);
    await expect(time.textContent()).resolves.toBe(tokyo.slice(11, 19));
    // A site built in UTC says so in its thread: "+00:00".
    await page.reload();
    await page.evaluate(() => (document.querySelector<HTMLElement>('.thread')!.dataset.tz = 'UTC'));
    await time.hover();
    await expect(time.getAttribute('title')).resolves.toBe(formatInZone(datetime, 'yyyy-MM-dd HH:mm:ss xxx', 'UTC'));
    // An answer's tokens by kind, as the page's other token tooltips write them (fixtures/README.md: L7–9).
    const tokens = page.locator('.thread .tokens').first();
    await expect(tokens.getAttribute('title')).resolves.toBeNull();
    await tokens.hover();
    await expect(tokens.getAttribute('title')).resolves.toBe(
      'input 100 · output 120 · cache read 1,000 · cache write 200',
    );
    await page.close();
  });

  it('navigates from the index to a day and on to a session', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.locator('table.days').getByRole('link', { name: '2026-03-04' }).click();
    await expect(page.locator('h1').textContent()).resolves.toContain('2026-03-04');
    await page
      .locator('table.sessions')
      .getByRole('link', { name: /明日の定例会議/ })
      .click();
    expect(page.url()).toBe(`${server.url}/sessions/claude-code/${SESSION.C}/`);
    await page.close();
  });
});

describe('report pages in Chromium', () => {
  it('shows a day report and the statistics page, readable in dark mode too', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 }, colorScheme: 'dark' });
    await page.goto(`${server.url}/days/2026-03-03/`);
    await expect(page.locator('h1').textContent()).resolves.toContain('2026-03-03');
    await expect(page.locator('.report-prompts li').count()).resolves.toBe(9);
    await page.getByRole('link', { name: 'This day as Markdown' }).click();
    await expect(page.locator('body').textContent()).resolves.toContain('# 2026-03-03 (Tue)');

    await page.goto(`${server.url}/stats/`);
    const bar = page.locator('.chart-bar').first();
    const fill = await bar.evaluate((el) => getComputedStyle(el).fill);
    const background = await page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
    expect(fill).not.toBe(background);
    expect(background).toBe('rgb(15, 17, 21)'); // the dark palette applied
    await page.screenshot({ path: path.join(REPO, 'test-results', 'stats-dark.png'), fullPage: true });
    await page.close();
  });
});
