import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, startPreview, typeQuery } from '../helpers/browser.ts';
import { SESSION } from '../helpers/paths.ts';

const site = inject('site');
let browser: Browser;
let server: { url: string; stop: () => Promise<void> };

const PHRASE = 'ログイン画面のバグを直して';
const C_HIT = `/sessions/claude-code/${SESSION.C}/#m1`;

beforeAll(async () => {
  server = await startPreview(site.outDir);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

/** A page of the site, watching for CSP violations and script errors. */
async function open(path: string, lang?: string): Promise<{ page: Page; problems: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (/Content Security Policy|pagefind/i.test(msg.text())) problems.push(msg.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  if (lang) {
    // The page as a site in that language would serve it: <html lang="…">.
    await page.route(`${server.url}${path}`, async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace('<html lang="en">', `<html lang="${lang}">`);
      await route.fulfill({ response, body });
    });
  }
  await page.goto(`${server.url}${path}`);
  return { page, problems };
}

/** Types a query the way a person does (`/` to focus), and returns the result links once they settle. */
async function search(page: Page, query: string): Promise<string[]> {
  await typeQuery(page, query);
  await page.waitForFunction(
    (q) => {
      const list = document.querySelector<HTMLElement>('form.site-search .site-search-results');
      const filters: Record<string, string> = {};
      for (const select of document.querySelectorAll<HTMLSelectElement>('form.site-search select'))
        if (select.value) filters[select.name] = select.value;
      return list?.dataset.query === q && list.dataset.filters === JSON.stringify(filters);
    },
    query,
    { timeout: 20_000 },
  );
  return page.$$eval('.site-search-results a', (links) =>
    links.map((a) => new URL((a as HTMLAnchorElement).href).pathname + new URL((a as HTMLAnchorElement).href).hash),
  );
}

describe('site search in Chromium', () => {
  it('loads the index as the page opens, before the box is used, and not when the browser asks to save data', async () => {
    for (const saveData of [false, true]) {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      if (saveData) {
        await page.addInitScript(() =>
          Object.defineProperty(navigator, 'connection', { value: { saveData: true }, configurable: true }),
        );
      }
      const requested: string[] = [];
      page.on('request', (request) => requested.push(new URL(request.url()).pathname));
      const loaded = saveData
        ? undefined
        : page.waitForRequest(/\/pagefind\/s0001\/pagefind\.js$/, { timeout: 15_000 });
      await page.goto(`${server.url}/days/2026-03-04/`);
      if (loaded) await loaded;
      else await page.waitForTimeout(3000);
      const index = requested.filter((p) => p.startsWith('/pagefind/'));
      if (saveData) expect(index).toEqual([]);
      else expect(index).toEqual(expect.arrayContaining(['/pagefind/shards.json', '/pagefind/s0001/pagefind.js']));
      // The box was never focused.
      expect(await page.evaluate(() => document.activeElement?.tagName)).not.toBe('INPUT');
      await page.close();
    }
  });

  it("fetches the filters' values after the results of a query typed as the page opens, not before them", async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    // For each filter file Pagefind asks for (from its worker), what the result list showed when it asked.
    const shownWhenAsked: string[] = [];
    await page.route('**/*.pf_filter', async (route) => {
      shownWhenAsked.push(
        await page.evaluate(
          () => document.querySelector<HTMLElement>('form.site-search .site-search-results')?.dataset.query ?? '',
        ),
      );
      await route.continue();
    });
    await page.goto(`${server.url}/`);
    expect(await search(page, 'ログイン')).toContain(C_HIT);
    // Then the selects fill.
    await page.waitForFunction(() => document.querySelectorAll('form.site-search select option').length > 3);
    expect(shownWhenAsked.length).toBeGreaterThan(0);
    expect(shownWhenAsked).toEqual(shownWhenAsked.map(() => 'ログイン'));
    await page.close();
  });

  it('loads the index chunks of what is typed at once, before the box waits for the typing to pause', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
    await page.goto(`${server.url}/days/2026-03-04/`);
    // Once the index is set up, its filters fill the selects.
    await page.waitForFunction(() => document.querySelectorAll('form.site-search select option').length > 3);
    const chunks: string[] = [];
    page.on('request', (request) => {
      if (/\.pf_index$/.test(request.url())) chunks.push(new URL(request.url()).pathname);
    });
    // Typed and taken back within one task: the query that runs after the pause is empty and searches nothing, so
    // only the preload of what was typed asks for chunks.
    await page.evaluate(() => {
      const input = document.querySelector<HTMLInputElement>('form.site-search input[name=q]')!;
      for (const value of ['redirect', '']) {
        input.value = value;
        input.dispatchEvent(new Event('input'));
      }
    });
    await page.waitForTimeout(1000);
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.every((p) => /^\/pagefind\/s\d{4}\/index\/[^/]+\.pf_index$/.test(p))).toBe(true);
    await expect(page.locator('.site-search-results li').count()).resolves.toBe(0);
    await page.close();
  });

  it("fetches a found bundle's text at once, without reading its Pagefind fragment first", async () => {
    const { page, problems } = await open('/days/2026-03-04/');
    const requested: string[] = [];
    page.on('request', (request) => requested.push(new URL(request.url()).pathname));
    expect(await search(page, 'redirect')).toContain(`/sessions/claude-code/${SESSION.A}/`);
    expect(requested.filter((p) => p.endsWith('.pf_text')).length).toBeGreaterThan(0);
    expect(requested.filter((p) => p.endsWith('.pf_fragment'))).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  });

  for (const [label, path, lang] of [
    ['the home page (English)', '/', undefined],
    ['a Japanese session page served as lang="ja"', `/sessions/claude-code/${SESSION.C}/`, 'ja'],
    ['a day page', '/days/2026-03-04/', undefined],
  ] as const) {
    it(`finds ${PHRASE} by ログイン, バグ and 画面, and English words, from ${label}`, async () => {
      const { page, problems } = await open(path, lang);
      for (const query of ['ログイン', 'バグ', '画面', PHRASE, 'バグを直']) {
        expect(await search(page, query), query).toContain(C_HIT);
      }
      const english = await search(page, 'redirect');
      expect(english).toContain(`/sessions/claude-code/${SESSION.A}/`);
      expect(english.length).toBeGreaterThan(3);
      // Code and paths as typed: the index holds their runs of letters and digits (see wordRuns).
      for (const query of ['src/auth/callback.ts', 'res.redirect(next', 'callback.t', "'/dashboard'"])
        expect(
          (await search(page, query)).some((hit) => hit.startsWith(`/sessions/claude-code/${SESSION.A}/#`)),
          query,
        ).toBe(true);
      expect(await search(page, 'callback.tsx')).toEqual([]);
      // Bigrams found apart are not a hit: ログ and イン occur in C, but not ログ…ン画 as typed.
      expect(await search(page, 'グイン画面のバ')).toEqual([C_HIT]);
      expect(await search(page, 'バグ画面')).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    });
  }

  it('shows source, project, date, title and the match highlighted; a click lands on the message', async () => {
    const { page, problems } = await open('/');
    await search(page, 'バグ');
    const hit = page.locator(`.site-search-results a[href$="${C_HIT}"]`);
    await expect(hit.locator('.hit-meta').textContent()).resolves.toBe(
      'Claude Code · 日本語 · 2026-03-04 11:00 · answer',
    );
    await expect(hit.locator('.hit-title').textContent()).resolves.toBe(
      '明日の定例会議のアジェンダを箇条書きで3つ作ってください。',
    );
    await expect(hit.locator('mark').allTextContents()).resolves.toEqual(['バグ']);
    await expect(hit.locator('.hit-snippet').textContent()).resolves.toContain(PHRASE);
    await hit.click();
    await page.waitForURL(`**${C_HIT}`);
    expect(new URL(page.url()).pathname + new URL(page.url()).hash).toBe(C_HIT);
    await expect(page.getByText('ログイン画面のバグを直してからのリリース日程の調整').isVisible()).resolves.toBe(true);
    // Message anchors (id="m<I>") come with the session page's markup; once there, the hit is on screen.
    const anchor = page.locator('[id="m1"]');
    if ((await anchor.count()) > 0) await expect(anchor.isVisible()).resolves.toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('filters by source, project and month (the months there are)', async () => {
    const { page } = await open('/');
    expect((await search(page, 'ログイン')).some((h) => h.includes('/codex/'))).toBe(true);
    await page.selectOption('select[name=source]', 'claude-code');
    let hits = await search(page, 'ログイン');
    expect(hits).toContain(C_HIT);
    for (const hit of hits) expect(hit).toContain('/sessions/claude-code/');
    await page.selectOption('select[name=source]', '');
    await page.selectOption('select[name=project]', '日本語');
    hits = await search(page, 'ログイン');
    expect(hits).toEqual([C_HIT]);
    await page.selectOption('select[name=project]', '');
    const months = await page.$$eval('select[name=month] option', (options) =>
      options.map((o) => (o as HTMLOptionElement).value),
    );
    // Every fixture session is from March 2026 (Tokyo time); test/search/site-search-share.test.ts has two months.
    expect(months).toEqual(['', '2026-03']);
    await page.selectOption('select[name=month]', '2026-03');
    expect(await search(page, 'バグ')).toEqual([C_HIT]);
    await page.close();
  });

  it('finds every substring of two or more characters of Japanese phrases in the fixtures', async () => {
    const { page } = await open('/');
    const phrases: [string, string][] = [
      [PHRASE, C_HIT],
      ['定例会議のアジェンダ', `/sessions/claude-code/${SESSION.C}/`],
      ['リダイレクトを直してください', `/sessions/claude-code/${SESSION.A}/#m5`],
    ];
    const misses: string[] = [];
    for (const [phrase, expected] of phrases) {
      const chars = [...phrase];
      for (let from = 0; from < chars.length - 1; from++) {
        for (let to = from + 2; to <= chars.length; to += Math.max(1, Math.floor((chars.length - from) / 4))) {
          const query = chars.slice(from, to).join('');
          const hits = await search(page, query);
          if (!hits.some((h) => h.startsWith(expected))) misses.push(query);
        }
      }
    }
    expect(misses).toEqual([]);
    await page.close();
  });

  it('shows an answer as plain text: no backticks, list or table marks, code without its fence', async () => {
    const { page } = await open('/');
    // Answers are Markdown; a prompt is shown as typed.
    const snippets = async (query: string) => {
      await search(page, query);
      return page.$$eval('.site-search-results a', (links) =>
        links
          .filter((a) => a.querySelector('.hit-meta')!.textContent!.endsWith('answer'))
          .map((a) => a.querySelector('.hit-snippet')!.textContent!),
      );
    };
    expect(await snippets('ENOENT')).toContain('エラーは ENOENT です。notes.md というファイルが見つかりません。');
    expect(await snippets('Endpoint')).toContainEqual(
      expect.stringMatching(
        /^Two endpoints lack input validation: Endpoint · Location POST \/users · routes\/users\.ts:18 PATCH/,
      ),
    );
    expect(await snippets('diff')).toContain(
      "Here is the diff: - if (!user) navigate('/login'); + if (!user) return navigate('/login');",
    );
    for (const query of ['redirect', 'src', 'validation', 'ファイル']) {
      for (const text of await snippets(query)) expect(text, query).not.toMatch(/`|\*\*|\| | - `|^#/);
    }
    await page.close();
  });

  it('lists a session once, its best hits (at most 3) under it, the title only on the first', async () => {
    const { page } = await open('/');
    await search(page, 'redirect');
    const groups = await page.$$eval('.site-search-results > li', (items) =>
      items.map((li) => ({
        session: (li as HTMLElement).dataset.session!,
        links: [...li.querySelectorAll('a')].map((a) => new URL(a.href).pathname),
        titles: li.querySelectorAll('.hit-title').length,
        firstHasTitle: li.querySelector('a')?.querySelector('.hit-title') !== null,
      })),
    );
    expect(groups.length).toBeGreaterThan(3);
    expect(new Set(groups.map((g) => g.session)).size).toBe(groups.length);
    for (const group of groups) {
      expect(group.links.length).toBeGreaterThanOrEqual(1);
      expect(group.links.length).toBeLessThanOrEqual(3);
      for (const link of group.links) expect(link).toBe(`/${group.session}`);
      expect(group).toMatchObject({ titles: 1, firstHasTitle: true });
    }
    // Session A answers about the redirect again and again: one entry, three hits under it.
    const a = groups.find((g) => g.session === `sessions/claude-code/${SESSION.A}/`)!;
    expect(a.links).toHaveLength(3);
    await page.close();
  });

  it('says so when nothing matches, and Escape closes the results', async () => {
    const { page } = await open('/');
    expect(await search(page, 'xyzzyplugh')).toEqual([]);
    await expect(page.locator('.site-search-status').textContent()).resolves.toBe('No match.');
    await page.keyboard.press('Escape');
    await expect(page.locator('.site-search-panel').isHidden()).resolves.toBe(true);
    await page.close();
  });
});
