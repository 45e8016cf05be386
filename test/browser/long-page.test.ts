import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startPreview } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { LONG, writeLongSession } from '../helpers/long-session.ts';
import { tempDir } from '../helpers/paths.ts';

// A session page of some hundred messages, as shipped: the browser lays out only the messages near the screen
// (content-visibility) and counts the others at a typical height until it has seen them.

let browser: Browser;
let reader: { url: string; stop: () => Promise<void> };

beforeAll(async () => {
  const home = await tempDir('long-page');
  await writeLongSession(home);
  const out = path.join(home, 'dist');
  const run = await runCli(['build', '--home', home, '--data', path.join(home, 'data'), '--out', out, '--tz', 'UTC']);
  expect(run.code, run.stderr).toBe(0);
  reader = await startPreview(out);
  browser = await launchChromium();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await reader?.stop();
});

describe('a long session page in Chromium', () => {
  it('lays out only the messages near the screen of a long page, and a link or k still lands on a far one', async () => {
    const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
    await page.goto(`${reader.url}/sessions/claude-code/${LONG}/`);
    const laidOut = () =>
      page.$$eval('.thread > .item', (items) =>
        // An item's own box is always there; what it holds is what the browser skips.
        items.map((item) =>
          item.lastElementChild!.checkVisibility({ contentVisibilityAuto: true } as CheckVisibilityOptions),
        ),
      );
    const first = await laidOut();
    expect(first.length).toBeGreaterThan(100);
    expect(first[0]).toBe(true);
    // The browser skips what is far below: a few screens' worth at most is laid out.
    expect(first.filter(Boolean).length).toBeLessThan(first.length / 4);
    expect(first.at(-1)).toBe(false);
    // The page's last prompt, by its link: it is laid out and at the top of the screen.
    const prompts = await page.$$eval('.thread > .item .bubble.prompt[id]', (bubbles) => bubbles.map((b) => b.id));
    const last = prompts.at(-1)!;
    await page.goto(`${reader.url}/sessions/claude-code/${LONG}/#${last}`);
    /** Where a prompt's message is on the screen, and whether what it holds is laid out. */
    const placed = async (id: string) =>
      page.evaluate((target) => {
        const bubble = document.getElementById(target)!;
        const box = bubble.closest('.item')!.getBoundingClientRect();
        const shown = bubble.checkVisibility({ contentVisibilityAuto: true } as CheckVisibilityOptions);
        return { top: Math.round(box.top), height: Math.round(box.height), shown };
      }, id);
    await expect.poll(async () => (await placed(last)).shown).toBe(true);
    const landed = await placed(last);
    expect(landed.top).toBeGreaterThan(-40);
    expect(landed.top).toBeLessThan(40);
    expect(landed.height).toBeGreaterThan(20);
    // k goes back to the prompt before it, screens above, and lands on it too.
    // (The first k may go to the top of the prompt's own message, which starts above its bubble.)
    const hash = () => page.evaluate(() => location.hash.slice(1));
    await page.keyboard.press('k');
    if ((await hash()) === last) await page.keyboard.press('k');
    const before = await hash();
    expect(before).toBe(prompts.at(-2));
    // At its scroll margin (0.75rem) from the top.
    await expect.poll(() => placed(before)).toMatchObject({ top: 12, shown: true });
    await page.close();
  });

  // Messages above the screen count at a typical height until laid out, so the same offset in pixels would show
  // another message after a reload (serve --watch reloads at every rebuild) or on coming back to the page.
  it('shows the same message at the same place after a reload and on coming back to a long page', async () => {
    for (const width of [390, 1440]) {
      const page = await browser.newPage({ viewport: { width, height: 844 } });
      await page.goto(`${reader.url}/sessions/claude-code/${LONG}/`);
      const atTop = () =>
        page.evaluate(() => {
          const items = [...document.querySelectorAll('.thread > .item')];
          const first = items.findIndex((item) => item.getBoundingClientRect().bottom > 0);
          return { item: first, top: Math.round(items[first]!.getBoundingClientRect().top) };
        });
      // Two thirds down the page, by the scroll bar: the messages above it were never laid out.
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight * 0.66));
      await page.waitForTimeout(400);
      const before = await atTop();
      expect(before.item).toBeGreaterThan(20);
      // The same message, at the same offset within a pixel (the offset is kept rounded).
      const same = async () => {
        const now = await atTop();
        return now.item === before.item && Math.abs(now.top - before.top) <= 1;
      };
      await page.reload();
      await expect.poll(same).toBe(true);
      await page.goto(`${reader.url}/`);
      await page.goBack();
      await expect.poll(same).toBe(true);
      await page.close();
    }
  });
});
