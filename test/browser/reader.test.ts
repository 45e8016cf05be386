import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { JSDOM } from 'jsdom';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, layOutEverything, startPreview } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { REPO, SESSION, tempDir } from '../helpers/paths.ts';
import { sessionMarkdownMember, sessionMarkdownOf } from '../helpers/markdown-packs.ts';
import { LONG, LONG_PROMPTS, longOutput, writeLongSession } from '../helpers/long-session.ts';

/** The reader fixtures (fixtures/reader, see fixtures/README.md) plus a long, tool-heavy, Japanese session. */
const TOOLS = 'aaaaaaaa-0001-4000-8000-000000000001';
const FRAGMENT = 'bbbbbbbb-0002-4000-8000-000000000002';
const site = inject('site');
let browser: Browser;
let fixture: { url: string; stop: () => Promise<void> };
let reader: { url: string; stop: () => Promise<void> };
let readerOut: string;

beforeAll(async () => {
  const home = await tempDir('reader');
  await fs.cp(path.join(REPO, 'fixtures', 'reader'), home, { recursive: true });
  await writeLongSession(home);
  readerOut = path.join(home, 'dist');
  const run = await runCli([
    'build',
    '--home',
    home,
    '--data',
    path.join(home, 'data'),
    '--out',
    readerOut,
    '--tz',
    'UTC',
  ]);
  expect(run.code, run.stderr).toBe(0);
  fixture = await startPreview(site.outDir);
  reader = await startPreview(readerOut);
  browser = await launchChromium();
}, 300_000);
afterAll(async () => {
  await browser?.close();
  await fixture?.stop();
  await reader?.stop();
});

async function sessionPages(id: string): Promise<Document[]> {
  const dir = path.join(readerOut, 'sessions', 'claude-code', id);
  const extra = await fs.readdir(path.join(dir, 'page')).catch(() => [] as string[]);
  const files = [
    path.join(dir, 'index.html'),
    ...extra
      .map(Number)
      .sort((a, b) => a - b)
      .map((n) => path.join(dir, 'page', String(n), 'index.html')),
  ];
  return Promise.all(files.map(async (f) => new JSDOM(await fs.readFile(f, 'utf8')).window.document));
}

describe('session pages as a reader sees them', () => {
  it('has no horizontal page scroll at 390 and 1440 px on any page type', async () => {
    const pages: [string, string][] = [
      [fixture.url, '/'],
      [fixture.url, '/days/2026-03-03/'],
      [fixture.url, '/weeks/2026-W10/'],
      [fixture.url, '/projects/webapp/'],
      [fixture.url, '/stats/'],
      [fixture.url, `/sessions/claude-code/${SESSION.A}/`],
      [fixture.url, `/sessions/claude-code/${SESSION.C}/`],
      [fixture.url, '/sessions/codex/019cb1a0-0001-7000-8000-000000000001/'],
      [reader.url, `/sessions/claude-code/${TOOLS}/`],
      [reader.url, `/sessions/claude-code/${LONG}/`],
      [reader.url, `/sessions/claude-code/${FRAGMENT}/`],
      [reader.url, '/no-such-page/'],
    ];
    const overflow: string[] = [];
    await fs.mkdir(path.join(REPO, 'test-results', 'reader'), { recursive: true });
    for (const [width, height] of [
      [390, 844],
      [1440, 900],
    ] as const) {
      const page = await browser.newPage({ viewport: { width, height } });
      for (const [base, route] of pages) {
        await page.goto(`${base}${route}`);
        await layOutEverything(page);
        // Open everything a reader can open: that must not widen the page either.
        await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
        const [scroll, inner] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
        if (scroll > inner) overflow.push(`${route} at ${width}px: ${scroll} > ${inner}`);
        const name = `${route.replace(/[^a-z0-9]+/gi, '_').slice(0, 50)}_${width}.png`;
        await page.screenshot({
          path: path.join(REPO, 'test-results', 'reader', name),
          fullPage: !route.includes(LONG),
        });
      }
      await page.close();
    }
    expect(overflow).toEqual([]);
  }, 300_000);

  it('keeps every call with its result and every message exactly once over the pages of a long session', async () => {
    const docs = await sessionPages(LONG);
    expect(docs.length).toBeGreaterThan(2);
    const messages: number[] = [];
    const prompts: string[] = [];
    for (const doc of docs) {
      for (const tool of doc.querySelectorAll('.thread > .item > details.tool')) {
        const command = tool.querySelector('pre.command')!.textContent!;
        const id = /part-(\d+)-(\d+)/.exec(command)!;
        // The result on the same page, in the same item.
        expect(tool.querySelector('.io-output')!.textContent).toContain(`call_${id[1]}_${id[2]}`);
      }
      for (const el of doc.querySelectorAll('.thread [id^="m"]')) messages.push(Number(el.id.slice(1)));
      prompts.push(...[...doc.querySelectorAll('.thread .prompt[id^="p"]')].map((e) => e.id));
      // Each page opens with its table of contents, linking its prompts.
      const toc = [...doc.querySelectorAll('nav.toc a')].map((a) => a.getAttribute('href'));
      expect(toc).toEqual([...doc.querySelectorAll('.thread .prompt[id^="p"]')].map((e) => `#${e.id}`));
    }
    // Each main-thread message has its anchor once (a call's result is anchored inside the call's item).
    expect([...messages].sort((a, b) => a - b)).toEqual(Array.from({ length: messages.length }, (_, i) => i));
    expect(prompts).toEqual(Array.from({ length: LONG_PROMPTS }, (_, i) => `p${i + 1}`));
    // A page of a long prompt holds steps of that prompt only; no page is background events alone.
    for (const doc of docs) expect(doc.querySelectorAll('.thread > .item:not(.item-hidden)').length).toBeGreaterThan(0);
    // The header names both dates of a session that crosses midnight.
    expect(docs[0]!.querySelector('.session-meta')!.textContent).toMatch(/2026-03-09 23:40 – 2026-03-10 00:/);
  });

  it('renders Edit and MultiEdit as diffs, TodoWrite as a checklist, Read and Write as code, Bash with its exit code', async () => {
    const [doc] = await sessionPages(TOOLS);
    const tool = (name: string) =>
      [...doc!.querySelectorAll('.thread > .item > details.tool')].filter(
        (t) => t.querySelector('.tool-name')!.textContent === name,
      );
    const edit = tool('Edit')[0]!;
    expect(edit.querySelector('.diff-head .path')!.textContent).toBe('/home/alice/work/shop/src/cart.ts');
    expect([...edit.querySelectorAll('.dl-del')].map((l) => l.textContent)).toEqual([
      '-  return items.reduce((sum, i) => sum + i.price, 0); // cents',
    ]);
    expect([...edit.querySelectorAll('.dl-add')].map((l) => l.textContent)).toEqual([
      '+  // prices are in cents',
      '+  return items.reduce((sum, item) => sum + item.price, 0);',
    ]);
    expect(tool('MultiEdit')[0]!.querySelectorAll('.dl-add').length).toBe(2);
    const todo = tool('TodoWrite')[0]!;
    expect(
      [...todo.querySelectorAll('.checklist li')].map((li) => [
        li.className,
        li.querySelector('.todo-text')!.textContent,
      ]),
    ).toEqual([
      ['todo-completed', 'Read package.json'],
      ['todo-in_progress', 'Write CLAUDE.md'],
      ['todo-pending', 'Check the test command'],
    ]);
    // Read output without its line numbers, highlighted as TypeScript; Write content highlighted as Markdown.
    const read = tool('Read')[0]!.querySelector('.io-output pre.hl')!;
    expect(read.textContent).toContain('export function total(items: { price: number }[]): number {');
    expect(read.querySelector('.hl-k')!.textContent).toBe('export');
    expect(tool('Write')[0]!.querySelector('.code-lang')!.textContent).toBe('markdown');
    const [failed, refused] = tool('Bash');
    expect(failed!.querySelector('pre.command')!.textContent).toBe('$ npm test -- --run cart');
    expect(failed!.querySelector('.exit')!.textContent).toBe('exit 1');
    expect(failed!.querySelector('.status')!.textContent).toBe('error');
    expect(refused!.querySelector('.io-output .io-label')!.textContent).toContain('Refused by the user');
    expect(tool('WebFetch')[0]!.querySelector('.web a')!.getAttribute('href')).toBe(
      'https://vitest.dev/guide/cli.html',
    );
  });

  it('shows /init with its text, folds injected context, shows raw HTML and images instead of dropping them', async () => {
    const [doc] = await sessionPages(TOOLS);
    const command = doc!.querySelector('.command-block')!;
    expect(command.querySelector('code')!.textContent).toBe('/init');
    expect(command.querySelector('details.expanded')!.textContent).toContain(
      'Please analyze this codebase and create a CLAUDE.md file',
    );
    expect(doc!.querySelector('.context > summary')!.textContent).toBe('Context the assistant added: System reminder');
    const answer = [...doc!.querySelectorAll('.answer')].find((a) => a.textContent!.includes('CLAUDE.md is written'))!;
    expect(answer.textContent).toContain('<div onclick="pay()">');
    expect(answer.querySelector('[onclick]')).toBeNull();
    expect(answer.querySelector('b')!.textContent).toBe('bold');
    expect(answer.textContent).toContain('[image: shop logo https://example.com/logo.png]');
    const prompt = doc!.querySelector('.prompt#p1')!;
    expect(prompt.getAttribute('lang')).toBe('ja');
    expect(prompt.querySelector('img')!.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(prompt.querySelector('.note')!.textContent).toMatch(/image\/png, \d+ B/);
    expect(doc!.querySelector('title')!.textContent).toContain('このスクリーンショットのレイアウトを直してください。');
  });

  it('shows a session made only of a subagent file, without calling it deleted', async () => {
    const [doc] = await sessionPages(FRAGMENT);
    const agent = doc!.querySelector('.thread .subagent')!;
    expect(agent.querySelector('.subagent-head')!.textContent).toContain('Explore');
    expect(agent.querySelector('.tool-name')!.textContent).toBe('Grep');
    expect(agent.textContent).toContain('Prices are formatted in src/cart.ts line 7');
    expect(doc!.querySelector('.callout')).toBeNull();
  });

  it('shows a long output as its first lines and the rest under "show all", each line once, copied whole', async () => {
    const output = longOutput('call_0_0');
    const html = await fs.readFile(path.join(readerOut, 'sessions', 'claude-code', LONG, 'index.html'), 'utf8');
    for (const line of output.split('\n').slice(1)) {
      const escaped = line.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
      expect(html.split(`${escaped}\n`).length + html.split(`${escaped}<`).length - 2, line).toBe(1);
    }
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      permissions: ['clipboard-read', 'clipboard-write'],
    });
    const page = await context.newPage();
    await page.goto(`${reader.url}/sessions/claude-code/${LONG}/`);
    const long = page.locator('.long', { hasText: 'call_0_0' }).first();
    await long.locator('xpath=ancestor::details[contains(@class, "tool")]').first().locator('summary').first().click();
    await expect(long.locator('pre.preview').textContent()).resolves.toBe(
      `${output.split('\n').slice(0, 24).join('\n')}\n`,
    );
    await expect(long.locator('pre.rest').isVisible()).resolves.toBe(false);
    await long.locator('.show-all > summary').click();
    await expect(long.locator('pre.rest').isVisible()).resolves.toBe(true);
    const [preview, rest] = await Promise.all([
      long.locator('pre.preview').boundingBox(),
      long.locator('pre.rest').boundingBox(),
    ]);
    expect(rest!.y).toBeGreaterThan(preview!.y + preview!.height);
    expect(rest!.y - (preview!.y + preview!.height)).toBeLessThan(40);
    await long.locator('button.copy').click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(output);
    await context.close();
  });

  it('moves between prompts with j and k, and saves the session as Markdown from the link on its page', async () => {
    const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
    await page.goto(`${reader.url}/sessions/claude-code/${LONG}/`);
    // The page's own location: page.url() follows an event from the browser that may come after the key's.
    const hash = () => page.evaluate(() => location.hash);
    await page.keyboard.press('j');
    await expect(hash()).resolves.toBe('#p1');
    await page.keyboard.press('j');
    await expect(hash()).resolves.toBe('#p2');
    await page.keyboard.press('k');
    await expect(hash()).resolves.toBe('#p1');
    // The link saves the session's gzip member of its day's pack as the Markdown it holds.
    await page.goto(`${reader.url}/sessions/claude-code/${TOOLS}/`);
    const packAnswers: number[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('.sessions.md.gz')) packAnswers.push(response.status());
    });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'This session as Markdown' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${TOOLS}.md`);
    const markdown = await fs.readFile((await download.path())!, 'utf8');
    // Its member alone, asked for by range (the whole pack is the fallback).
    expect(packAnswers).toEqual([206]);
    await page.close();
    expect(await sessionMarkdownOf(readerOut, 'claude-code', TOOLS)).toBe(markdown);
    expect(markdown).toContain(
      '```diff\n-  return items.reduce((sum, i) => sum + i.price, 0); // cents\n+  // prices are in cents',
    );
    expect(markdown).toContain('- [x] Read package.json');
    expect(markdown).toContain('**Command** `/init`');
  });

  it("says, to a reader without script, that the link saves the day's sessions as one gzip file", async () => {
    const url = `${reader.url}/sessions/claude-code/${TOOLS}/`;
    const note = 'without script: every session started that day, as one gzipped Markdown file';
    const withoutScript = await browser.newContext({ javaScriptEnabled: false });
    try {
      const page = await withoutScript.newPage();
      await page.goto(url);
      const exports = page.locator('p.exports');
      await expect(exports.innerText()).resolves.toContain(note);
      // What the link then saves: the day's pack, named as the file it is.
      const href = await exports.getByRole('link', { name: 'This session as Markdown' }).getAttribute('href');
      expect(href).toMatch(/\/days\/\d{4}-\d{2}-\d{2}\.sessions\.md\.gz$/);
    } finally {
      await withoutScript.close();
    }
    const page = await browser.newPage();
    try {
      await page.goto(url);
      await expect(page.locator('p.exports').innerText()).resolves.not.toContain(note);
    } finally {
      await page.close();
    }
  });

  it('saves the same Markdown from a host that answers no ranges, and from one that decodes .gz files', async () => {
    // A session after another in its day's pack, so the cut starts past the pack's first byte.
    const expected = await sessionMarkdownOf(readerOut, 'claude-code', FRAGMENT);
    const member = `claude-code/${FRAGMENT}`;
    const packs = (await fs.readdir(path.join(readerOut, 'days'))).filter((f) => f.endsWith('.sessions.md.gz'));
    for (const host of ['whole pack', 'decoded pack'] as const) {
      const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
      const asked: (string | undefined)[] = [];
      await page.route('**/days/*.sessions.md.gz', async (route) => {
        asked.push(route.request().headers()['range']);
        const file = path.join(readerOut, 'days', path.basename(new URL(route.request().url()).pathname));
        const pack = await fs.readFile(file);
        const body = host === 'whole pack' ? pack : gunzipSync(pack);
        await route.fulfill({ status: 200, body, contentType: 'application/octet-stream' });
      });
      await page.goto(`${reader.url}/sessions/claude-code/${FRAGMENT}/`);
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('link', { name: 'This session as Markdown' }).click(),
      ]);
      expect(download.suggestedFilename(), host).toBe(`${FRAGMENT}.md`);
      expect(await fs.readFile((await download.path())!, 'utf8'), host).toBe(expected);
      // The range was asked for, and the whole answer cut where the index says.
      expect(asked[0], host).toMatch(/^bytes=\d+-\d+$/);
      await page.close();
    }
    const indexes = await Promise.all(
      packs.map(async (f) =>
        JSON.parse(await fs.readFile(path.join(readerOut, 'days', f.replace(/\.md\.gz$/, '.json')), 'utf8')),
      ),
    );
    const at = indexes.find((index) => index[member])![member] as number[];
    expect(at[0]).toBeGreaterThan(0);
    expect(at[2]).toBeGreaterThan(0);
  });

  it('saves a range the host decoded as it is, and falls back to the pack when a decoded pack comes short', async () => {
    const member = `claude-code/${FRAGMENT}`;
    const expected = await sessionMarkdownOf(readerOut, 'claude-code', FRAGMENT);
    const gz = await sessionMarkdownMember(readerOut, 'claude-code', FRAGMENT);
    const days = path.join(readerOut, 'days');
    let indexFile = '';
    let index: Record<string, number[]> = {};
    for (const file of (await fs.readdir(days)).filter((f) => f.endsWith('.sessions.json'))) {
      const read = JSON.parse(await fs.readFile(path.join(days, file), 'utf8')) as Record<string, number[]>;
      if (read[member]) [indexFile, index] = [file, read];
    }
    expect(index[member]![0]).toBeGreaterThan(0);
    // A host that decodes .gz files answers the member's range with its Markdown.
    let page = await browser.newPage();
    await page.route('**/days/*.sessions.md.gz', (route) =>
      route.fulfill({ status: 206, body: gunzipSync(gz), contentType: 'application/octet-stream' }),
    );
    await page.goto(`${reader.url}/sessions/claude-code/${FRAGMENT}/`);
    let [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'This session as Markdown' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe(`${FRAGMENT}.md`);
    expect(await fs.readFile((await download.path())!, 'utf8')).toBe(expected);
    await page.close();
    // One that hands over a pack decoded only up to its first member: the Markdown asked for is not there, and
    // the link does what it does without script (the day's pack), rather than save a cut file.
    page = await browser.newPage();
    const pack = await fs.readFile(path.join(days, indexFile.replace(/\.json$/, '.md.gz')));
    const first = gunzipSync(pack.subarray(0, index[member]![0]));
    await page.route('**/days/*.sessions.md.gz', (route) =>
      route.fulfill({ status: 200, body: first, contentType: 'application/octet-stream' }),
    );
    await page.goto(`${reader.url}/sessions/claude-code/${FRAGMENT}/`);
    [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'This session as Markdown' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/\.sessions\.md\.gz$/);
    await page.close();
  });
});
