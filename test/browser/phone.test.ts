import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, layOutEverything, startPreview } from '../helpers/browser.ts';
import { REPO, SESSION } from '../helpers/paths.ts';

const site = inject('site');
const SHOTS = path.join(REPO, 'test-results', 'phone');
const PHONE = { width: 390, height: 844 };
const WIDE = { width: 1440, height: 900 };
let browser: Browser;
let server: { url: string; stop: () => Promise<void> };
let pages: Record<string, string>;

beforeAll(async () => {
  server = await startPreview(site.outDir);
  browser = await launchChromium();
  await fs.mkdir(SHOTS, { recursive: true });
  const home = await browser.newPage();
  await home.goto(`${server.url}/`);
  const project = await home.locator('table.projects a', { hasText: 'webapp' }).getAttribute('href');
  await home.close();
  pages = {
    home: '/',
    day: '/days/2026-03-03/',
    week: '/weeks/2026-W10/',
    project: project!,
    session: `/sessions/claude-code/${SESSION.A}/`,
    'session with code': `/sessions/claude-code/${SESSION.B}/`,
    statistics: '/stats/',
  };
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(url: string, viewport: { width: number; height: number }, asShipped = false): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await page.goto(`${server.url}${url}`);
  if (!asShipped) await layOutEverything(page);
  // Everything folded is opened: what a reader can unfold must fit too.
  await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
  return page;
}

/** What does not fit a phone's width: the document scrolling sideways, anything reaching past the screen's edge
 * (the body clips it, so it would be cut), a table cell cut, a header broken inside a word, a cell of the wide
 * layout not shown. Boxes that scroll sideways on purpose are allowed: code, and any other box that shows it
 * scrolls (a shadow at its edge). */
function phoneProblems(): string[] {
  const problems: string[] = [];
  const doc = document.documentElement;
  const describe = (el: Element) =>
    `${el.tagName.toLowerCase()}.${[...el.classList].join('.')} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
  const scrollsOnPurpose = (box: Element) => {
    const style = getComputedStyle(box);
    // An ellipsis is a sign too (a tool call's headline; the whole text is in the call once opened).
    if (style.overflowX === 'hidden') return style.textOverflow === 'ellipsis';
    if (style.overflowX !== 'auto' && style.overflowX !== 'scroll') return false;
    return box.tagName === 'PRE' || style.backgroundImage.includes('gradient');
  };
  const inScroller = (el: Element) => {
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
      const style = getComputedStyle(up);
      if (style.overflowX === 'auto' || style.overflowX === 'scroll' || style.overflowX === 'hidden')
        return scrollsOnPurpose(up) ? 'cue' : 'no cue';
    }
    return undefined;
  };
  const shown = (el: Element) => el.checkVisibility({ checkOpacity: false, checkVisibilityCSS: true });

  if (doc.scrollWidth - doc.clientWidth !== 0) problems.push(`the page scrolls sideways: ${doc.scrollWidth} px`);
  for (const el of document.querySelectorAll('header *, main *')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || !shown(el)) continue;
    if ((box.right > doc.clientWidth + 1 || box.left < -1) && inScroller(el) !== 'cue')
      problems.push(`past the screen's edge (${Math.round(box.left)}–${Math.round(box.right)} px): ${describe(el)}`);
  }
  for (const box of document.querySelectorAll('main *')) {
    if (box.scrollWidth > box.clientWidth + 1 && box.clientWidth > 0) {
      const style = getComputedStyle(box);
      if ((style.overflowX === 'auto' || style.overflowX === 'scroll') && !scrollsOnPurpose(box))
        problems.push(`scrolls sideways with no sign of it: ${describe(box)}`);
    }
  }
  // A column's header may be hidden when the rows are cards: each cell then shows the column's name, or heads
  // its card (comes first on the screen).
  const cardHeaders = (header: Element) => {
    const table = header.closest('table');
    if (!header.closest('thead') || !table) return false;
    const column = [...header.parentElement!.children].indexOf(header);
    return [...table.querySelectorAll('tbody tr')].every((row) => {
      const cell = row.children[column];
      if (!cell || cell.getAttribute('data-label') === header.textContent!.trim()) return true;
      const tops = [...row.children].filter(shown).map((c) => c.getBoundingClientRect());
      const box = cell.getBoundingClientRect();
      return tops.every((t) => t.top > box.top || (t.top === box.top && t.left >= box.left));
    });
  };
  for (const cell of document.querySelectorAll('main th, main td')) {
    if (!(cell.textContent ?? '').trim()) continue;
    if (!shown(cell) && !cardHeaders(cell)) {
      problems.push(`a cell is hidden: ${describe(cell)}`);
      continue;
    }
    if (cell.scrollWidth > cell.clientWidth + 1 && inScroller(cell) !== 'cue')
      problems.push(`a cell is cut (${cell.scrollWidth} > ${cell.clientWidth} px): ${describe(cell)}`);
  }
  for (const header of document.querySelectorAll('main th')) {
    if (!shown(header)) continue;
    const walker = document.createTreeWalker(header, NodeFilter.SHOW_TEXT);
    for (let text = walker.nextNode(); text; text = walker.nextNode()) {
      for (const word of (text.textContent ?? '').matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(text, word.index);
        range.setEnd(text, word.index + word[0].length);
        const lines = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) problems.push(`a header is broken inside "${word[0]}": ${describe(header)}`);
      }
    }
  }
  return problems;
}

describe('every page kind at 390 px (a phone)', () => {
  for (const kind of ['home', 'day', 'week', 'project', 'session', 'session with code', 'statistics']) {
    it(`the ${kind} page fits: nothing cut, nothing hidden, only code and marked boxes scroll`, async () => {
      const page = await open(pages[kind]!, PHONE);
      expect(await page.evaluate(phoneProblems)).toEqual([]);
      await page.screenshot({ path: path.join(SHOTS, `${kind.replace(/ /g, '-')}-390.png`), fullPage: true });
      await page.close();
    });
  }

  // The checks above lay out everything first; as shipped, the browser lays out a card or a message only near the
  // screen, and what it has laid out must fit the same way.
  for (const kind of ['home', 'session with code']) {
    it(`the ${kind} page fits as shipped, read from top to bottom`, async () => {
      const page = await open(pages[kind]!, PHONE, true);
      const problems = new Set<string>();
      for (let y = 0; y < (await page.evaluate(() => document.documentElement.scrollHeight)); y += PHONE.height) {
        await page.evaluate((top) => window.scrollTo(0, top), y);
        await page.evaluate(
          () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))),
        );
        for (const problem of await page.evaluate(phoneProblems)) problems.add(problem);
      }
      expect([...problems]).toEqual([]);
      await page.close();
    });
  }

  it('search results fit too', async () => {
    const page = await open('/', PHONE);
    await page.locator('.site-search-input').fill('redirect');
    await page.waitForFunction(() => document.querySelectorAll('.site-search-results a').length > 0, undefined, {
      timeout: 20_000,
    });
    expect(await page.evaluate(phoneProblems)).toEqual([]);
    await page.screenshot({ path: path.join(SHOTS, 'search-390.png') });
    await page.close();
  });

  it('shows a table row as a card: a day, its link first, every number with its column name', async () => {
    const page = await open('/', PHONE);
    const row = page.locator('table.days tbody tr').filter({ hasText: '2026-03-03' });
    await expect(row.evaluate((tr) => getComputedStyle(tr).display)).resolves.toBe('flex');
    await expect(page.locator('table.days thead').isVisible()).resolves.toBe(false);
    const labelled = await row
      .locator('td[data-label]')
      .evaluateAll((cells) =>
        cells.map((c) => `${getComputedStyle(c, '::before').content.replace(/"/g, '')} ${c.textContent!.trim()}`),
      );
    expect(labelled).toEqual([
      'Sessions 3',
      'Prompts 9',
      'Entries 13',
      'Tool uses 8',
      'Projects webapp, (unknown project)',
    ]);
    await page.close();
  });

  it("breaks a path after a '/', never inside a folder's name", async () => {
    const page = await open('/', PHONE);
    const cells = page.locator('table.projects td.path');
    expect(await cells.count()).toBeGreaterThan(0);
    for (const cell of await cells.all()) {
      const pieces = await cell.evaluate((td) => {
        const range = document.createRange();
        range.selectNodeContents(td);
        const lines = new Map<number, string>();
        const text = td.textContent!;
        // Each character's line: a line may only begin after a '/'.
        const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
        let offset = 0;
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          for (let i = 0; i < node.textContent!.length; i++) {
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            const top = Math.round(range.getBoundingClientRect().top);
            lines.set(top, (lines.get(top) ?? '') + text[offset + i]);
          }
          offset += node.textContent!.length;
        }
        return [...lines.values()];
      });
      for (const line of pieces.slice(0, -1)) expect(line, pieces.join(' | ')).toMatch(/\/$/);
    }
    await page.close();
  });

  it('opens the activity calendar at its newest week', async () => {
    const page = await open('/', PHONE);
    const calendar = await page.evaluate(() => {
      const days = [...document.querySelectorAll('.calendar svg rect.cal')];
      const newest = days[days.length - 1]!.getBoundingClientRect();
      return { right: newest.right, left: newest.left, width: document.documentElement.clientWidth };
    });
    expect(calendar.left).toBeGreaterThan(0);
    expect(calendar.right).toBeLessThanOrEqual(calendar.width);
    await page.close();
  });

  it('keeps the file name of a cut Read path, and the status inside a tool card with a long name', async () => {
    const page = await open(`/sessions/claude-code/${SESSION.A}/`, PHONE);
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = false)));
    const read = page.locator('details.tool', { has: page.locator('.tool-name', { hasText: /^Read$/ }) }).first();
    const name = await read.locator('.headline').evaluate((headline) => {
      const text = headline.textContent!.trim();
      const file = text.slice(text.lastIndexOf('/') + 1);
      const node = document.createTreeWalker(headline, NodeFilter.SHOW_TEXT).nextNode()!;
      const at = node.textContent!.lastIndexOf(file);
      const range = document.createRange();
      range.setStart(node, at);
      range.setEnd(node, at + file.length);
      const box = headline.getBoundingClientRect();
      const word = range.getBoundingClientRect();
      return { file, cut: headline.scrollWidth > headline.clientWidth, inside: word.right <= box.right + 1 };
    });
    expect(name).toEqual({ file: 'login.html', cut: true, inside: true });

    const tool = page.locator('details.tool').nth(1);
    await tool
      .locator('.tool-name')
      .evaluate((el) => (el.textContent = 'mcp__github__create_pull_request_review_comment'));
    const [card, status] = await Promise.all([tool.boundingBox(), tool.locator('summary .status').boundingBox()]);
    expect(status!.x + status!.width).toBeLessThanOrEqual(card!.x + card!.width);
    expect(await page.evaluate(phoneProblems)).toEqual([]);
    await page.close();
  });
});

describe('every page kind at 1,440 px', () => {
  for (const kind of ['home', 'day', 'week', 'project', 'session', 'statistics']) {
    it(`the ${kind} page keeps its tables as tables with their headers`, async () => {
      const page = await open(pages[kind]!, WIDE);
      const tables = await page.$$eval('main table.data-table', (list) =>
        list.map((t) => ({
          display: getComputedStyle(t).display,
          headers: [...t.querySelectorAll('thead th')].every((th) => th.checkVisibility()),
        })),
      );
      if (kind !== 'session') expect(tables.length).toBeGreaterThan(0);
      for (const table of tables) expect(table).toEqual({ display: 'table', headers: true });
      await page.screenshot({ path: path.join(SHOTS, `${kind}-1440.png`), fullPage: true });
      await page.close();
    });
  }
});
