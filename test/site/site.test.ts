import { promises as fs } from 'node:fs';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { describe, expect, inject, it } from 'vitest';
import { SESSION } from '../helpers/paths.ts';
import { sessionMarkdownOf } from '../helpers/markdown-packs.ts';

// The site built once by test/global-setup.ts: the real CLI over fixtures/home, --tz Asia/Tokyo.
const site = inject('site');
// Claude Code: fixtures/README.md; Codex: fixtures/CODEX.md (K5, K6 and a history prompt add 03-06);
// Amazon Q / Kiro: fixtures/AMAZONQ.md. All in Tokyo.
const CLAUDE_DAYS = ['2025-05-20', '2026-03-02', '2026-03-03', '2026-03-04', '2026-03-05', '2026-03-06'];
const Q_DAYS = ['2026-03-10', '2026-03-12', '2026-03-14', '2026-03-20'];

async function page(route: string): Promise<Document> {
  const file = path.join(site.outDir, route, 'index.html');
  return new JSDOM(await fs.readFile(file, 'utf8')).window.document;
}
const texts = (doc: ParentNode, selector: string) =>
  [...doc.querySelectorAll(selector)].map((e) => e.textContent!.replace(/\s+/g, ' ').trim());

describe('build over the fixture home', () => {
  it('exits 0 and reports what it read, with each warning naming file and line', () => {
    expect(site.code).toBe(0);
    expect(site.stderr).toMatch(
      /^Claude Code: .*fixtures\/home\/\.claude: 6 sessions, 11 history prompts, 5 warnings$/m,
    );
    expect(site.stderr).toMatch(/33333333-3333-4333-8333-333333333333\.jsonl:3: invalid JSON/);
    expect(site.stderr).toMatch(
      /^Amazon Q \/ Kiro CLI: .*amazon-q\/data\.sqlite3, .*kiro-cli\/data\.sqlite3: 4 sessions$/m,
    );
    expect(site.stderr).toMatch(/^Codex CLI: .*fixtures\/home\/\.codex: 7 sessions, 5 history prompts, 3 warnings$/m);
    // 10 days + 4 weeks + 4 projects + 17 sessions + index + stats + 404
    expect(site.stderr).toMatch(/Site: 38 pages in .* \(.*days in Asia\/Tokyo\)/);
  });

  it('writes the routes of the contract', async () => {
    const days = (await fs.readdir(path.join(site.outDir, 'days'))).filter((d) => !d.includes('.')).sort();
    // Amazon Q: B 03-10, C 03-12, D 03-14, A at the database mtime 03-20.
    expect(days).toEqual([...CLAUDE_DAYS, ...Q_DAYS]);
    const claude = await fs.readdir(path.join(site.outDir, 'sessions', 'claude-code'));
    expect(claude.sort()).toEqual(Object.values(SESSION).sort());
    // Each session's Markdown export, gzipped, in the pack of the day it started (no file of its own).
    for (const id of Object.values(SESSION))
      expect(await sessionMarkdownOf(site.outDir, 'claude-code', id), id).toMatch(/^# /);
    const packs = (await fs.readdir(path.join(site.outDir, 'days'))).filter((d) => d.endsWith('.sessions.md.gz'));
    expect(packs.length).toBeGreaterThan(0);
    const q = (await fs.readdir(path.join(site.outDir, 'sessions', 'amazon-q'))).map((id) => id[0]).sort();
    expect(q).toEqual(['a', 'b', 'c', 'd']);
    // Codex: K1, K2, K3, K5 (K4 is its subagent), K6, L1, T1 (K7 holds no conversation).
    const codex = (await fs.readdir(path.join(site.outDir, 'sessions', 'codex'))).sort();
    expect(codex).toEqual([
      '019cb1a0-0001-7000-8000-000000000001',
      '019cb1a0-0002-7000-8000-000000000002',
      '019cb1a0-0003-7000-8000-000000000003',
      '019cb1a0-0005-7000-8000-000000000005',
      '019cb1a0-0006-7000-8000-000000000006',
      '5c0d1e9a-0001-4000-8000-00000000000a',
      '5c0d1e9a-0002-4000-8000-00000000000b',
    ]);
    expect((await fs.readdir(path.join(site.outDir, 'projects'))).length).toBe(4);
    // Astro's content-layer scratch files must not be left in the site.
    await expect(fs.access(path.join(site.outDir, 'content-modules.mjs'))).rejects.toThrow();
  });

  it('lists days and projects on the index', async () => {
    const doc = await page('');
    expect(texts(doc, 'table.days tbody td:first-child a')).toEqual([...CLAUDE_DAYS, ...Q_DAYS].reverse());
    // By last activity: webapp (Q A, 03-20), api (Q D, 03-14), 日本語 (Q B, 03-10), and the Codex TS-era
    // session T1, whose format records no working directory.
    expect(texts(doc, 'table.projects tbody td:first-child')).toEqual(['webapp', 'api', '日本語', '(unknown project)']);
  });

  it('puts a day page in --tz: 16:30 UTC and 23:50 UTC are the next day in Tokyo', async () => {
    const doc = await page('days/2026-03-03');
    // History #4–9 (fixtures/README.md): #4 is 2026-03-02T16:30Z = 01:30 JST; B's prompts are 08:49–09:18 JST.
    // Codex L1 (10:00:03, 10:00:12 JST) and T1 (11:00:01 JST) add three more (fixtures/CODEX.md).
    // Each under its session in its project: in time order once put together. B's are read at the transcript's
    // times (23:50:00Z and on; the history logs each 300 ms before).
    expect(texts(doc, '.report-prompts time').sort()).toEqual([
      '01:30',
      '08:50',
      '08:54',
      '09:19',
      '10:00',
      '10:00',
      '10:00',
      '10:04',
      '11:00',
    ]);
    expect(texts(doc, 'table.sessions td.title a')).toEqual([
      'Add rate limiting to login endpoint',
      'Why does npm run build fail?',
      'Rename the `usr` variable to `user` in src/app.js',
    ]);
    expect(texts(doc, '.history-only .report-prompts li').length).toBe(3); // the deleted sessions' prompts
    expect(doc.querySelector('a[rel=prev]')?.getAttribute('href')).toBe('/days/2026-03-02/');
    expect(doc.querySelector('a[rel=next]')?.getAttribute('href')).toBe('/days/2026-03-04/');
  });

  it('shows a project page with its sessions', async () => {
    const index = await page('');
    const href = index.querySelector('table.projects a')!.getAttribute('href')!;
    const doc = await page(href);
    expect(doc.querySelector('h1')!.textContent).toBe('webapp');
    const titles = texts(doc, 'table.sessions td.title a');
    expect(titles).toHaveLength(8); // Claude A, B, D, E; Codex L1, K1, K3; Amazon Q A
    expect(titles).toEqual(
      expect.arrayContaining([
        'Add rate limiting to login endpoint',
        'Fix login redirect',
        'Increase it to 60 minutes and update the comment.',
        'What does the `sessionTimeout` option in config/auth.ts do?',
      ]),
    );
  });

  it('renders a whole conversation: prompts, Markdown answers, collapsed thinking, tools with results, nested subagent', async () => {
    const doc = await page(`sessions/claude-code/${SESSION.A}`);
    expect(doc.querySelector('h1')!.textContent).toBe('Fix login redirect');
    expect(texts(doc, '.thread > .item .prompt .plain')[0]).toBe('ログイン画面のリダイレクトを直してください。');
    const answer = doc.querySelector('.thread .answer > .md')!;
    expect(answer.querySelector('pre code')).not.toBeNull();
    expect(answer.querySelector('a[href^="https://"]')!.getAttribute('rel')).toContain('noopener');
    const thinking = doc.querySelector('details.thinking')!;
    expect(thinking.hasAttribute('open')).toBe(false);
    const tools = texts(doc, '.thread > .item > details.tool > summary .tool-name');
    expect(tools).toEqual(['Read', 'Bash', 'Grep', 'Task']);
    const bash = [...doc.querySelectorAll('.thread > .item > details.tool')][1]!;
    expect(bash.querySelector('.status')!.textContent).toBe('error');
    const task = [...doc.querySelectorAll('.thread > .item > details.tool')][3]!;
    const nested = task.querySelector('.subagent')!;
    expect(nested.querySelector('.subagent-head')!.textContent).toContain('Explore');
    expect(texts(nested, 'details.tool > summary .tool-name')).toEqual(['Glob']);
  });

  it("puts each session page's thread in its place, between the table of contents and the pager", async () => {
    const pages: string[] = [];
    for (const source of await fs.readdir(path.join(site.outDir, 'sessions')))
      for (const entry of await fs.readdir(path.join(site.outDir, 'sessions', source), { recursive: true }))
        if (String(entry).endsWith('index.html')) pages.push(path.join(site.outDir, 'sessions', source, String(entry)));
    expect(pages.length).toBeGreaterThanOrEqual(17);
    for (const file of pages) {
      const html = await fs.readFile(file, 'utf8');
      expect(html, file).not.toContain('agent-logbook:thread');
      const doc = new JSDOM(html).window.document;
      const thread = doc.querySelector('main > .thread')!;
      expect(thread.querySelectorAll(':scope > .item').length, file).toBeGreaterThan(0);
      expect(thread.previousElementSibling, file).not.toBeNull();
      // Nothing of the page's own markup after the thread was swallowed by it.
      expect(thread.querySelector('.pager-next, script, nav.toc, h1'), file).toBeNull();
    }
  });

  it('never lets transcript HTML become markup: answers are sanitized, tool output is text', async () => {
    const html = await fs.readFile(path.join(site.outDir, 'sessions/claude-code', SESSION.A, 'index.html'), 'utf8');
    const doc = new JSDOM(html).window.document;
    // Scripts are our own files only (keyboard, copy buttons, search); nothing inline, nothing from a transcript.
    for (const script of doc.querySelectorAll('script')) {
      expect(script.getAttribute('src')).toMatch(/^\/(_astro\/)?[\w.-]+\.js$/);
      expect(script.textContent).toBe('');
    }
    // Raw HTML in an answer is shown as escaped text: no element carries an event handler.
    const handlers = [...doc.querySelectorAll('*')].flatMap((el) =>
      [...el.attributes].filter((a) => /^on/i.test(a.name)).map((a) => `${el.tagName} ${a.name}`),
    );
    expect(handlers).toEqual([]);
    expect(html).not.toMatch(/<img[^>]*onerror=/i);
    expect(texts(doc, '.answer .md').some((t) => t.includes('<img src=x onerror="window.__xss=1">'))).toBe(true);
    expect([...doc.querySelectorAll('img')].map((i) => i.getAttribute('src'))).toEqual([]);
    // The Read result contains "<script>alert(1)</script>" as text: it is shown, escaped.
    expect(texts(doc, 'details.tool pre').some((t) => t.includes('<script>alert(1)</script>'))).toBe(true);
    const csp = doc.querySelector('meta[http-equiv="Content-Security-Policy"]')!.getAttribute('content')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
  });

  it('shows compaction as a divider, an unanswered call, and a session with no final answer', async () => {
    const doc = await page(`sessions/claude-code/${SESSION.B}`);
    expect(texts(doc, '.divider span')).toEqual(['Conversation compacted']);
    expect(texts(doc, '.divider small')).toEqual(['auto, 150,000 tokens before']);
    const statuses = texts(doc, '.thread > .item > details.tool > summary .status');
    expect(statuses[statuses.length - 1]).toBe('unanswered');
    expect(texts(doc, '.totals .pattern')).toEqual(['no final answer']);
    expect(doc.querySelector('.totals .pattern')!.getAttribute('title')).toMatch(/^the session ended on a tool call/);
    expect(texts(doc, '.thread > .item > details.tool .subagent-head')).toEqual(['Subagent']);
  });

  it('links a resumed session to the one it continues', async () => {
    const doc = await page(`sessions/claude-code/${SESSION.D}`);
    expect(doc.querySelector('.callout a')!.getAttribute('href')).toBe(`/sessions/claude-code/${SESSION.E}/`);
  });

  it('never reads the credentials file', async () => {
    const files = await fs.readdir(site.dataDir, { recursive: true });
    for (const file of files) {
      const full = path.join(site.dataDir, file);
      if ((await fs.stat(full)).isFile()) expect(await fs.readFile(full, 'utf8')).not.toContain('DO-NOT-READ');
    }
  });
});

describe('reports and statistics in the built site', () => {
  it('serves stats.json with the contract keys and Tokyo days', async () => {
    const stats = JSON.parse(await fs.readFile(path.join(site.outDir, 'stats.json'), 'utf8'));
    for (const key of [
      'generatedAt',
      'timeZone',
      'sessions',
      'patterns',
      'patternsBySource',
      'entriesPerConversation',
      'toolUses',
      'tokens',
      'tokensByDay',
      'days',
    ]) {
      expect(stats).toHaveProperty(key);
    }
    expect(stats.timeZone).toBe('Asia/Tokyo');
    expect(Object.keys(stats.days)).toEqual([...CLAUDE_DAYS, ...Q_DAYS]);
    expect(stats.tokens.bySource['claude-code'].output).toBe(1355);
  });

  it('writes week pages and links days to their week', async () => {
    // ISO weeks: 2025-05-20 → W21; 03-02..05 → W10; 03-10, 12, 14 → W11; 03-20 → W12.
    expect((await fs.readdir(path.join(site.outDir, 'weeks'))).sort()).toEqual(
      ['2025-W21', '2026-W10', '2026-W11', '2026-W12'].flatMap((w) => [w, `${w}.md`]),
    );
    const day = await page('days/2026-03-03');
    expect(day.querySelector('a[href="/weeks/2026-W10/"]')).not.toBeNull();
    expect(day.querySelector('a[href="/days/2026-03-03.md"]')).not.toBeNull();
    const week = await page('weeks/2026-W10');
    expect(texts(week, 'table.days tbody td:first-child')[1]).toBe('2026-03-03 Tue');
    expect(texts(week, 'table.compare tbody tr > :first-child').map((r) => r.split(' ')[0])).toEqual([
      'Sessions',
      'Prompts',
      'Entries',
      'Tool',
      'Tokens',
    ]);
  });

  it('shows the statistics page with charts and their numbers as text', async () => {
    const doc = await page('stats');
    const figures = [...doc.querySelectorAll('figure.chart')];
    expect(figures.length).toBeGreaterThanOrEqual(5);
    const patterns = figures[0]!;
    // Claude: simple C, E; single D; multi A, F; incomplete B. Codex: simple K6; single K3, K5, T1; multi K1;
    // incomplete K2, L1. Amazon Q: simple B; multi A, D; incomplete C.
    expect(patterns.querySelector('[role="img"]')!.getAttribute('aria-label')).toBe(
      'All sources: simple 4 (24%), single tool 4 (24%), multi tool 5 (29%), no final answer 4 (24%)',
    );
    expect(texts(patterns, 'table tbody th')).toEqual(['simple', 'single tool', 'multi tool', 'no final answer']);
    // Each pattern says what it means: a legend line, and the bar's label on hover.
    expect(texts(doc, '.pattern-legend li')).toEqual([
      'simple: answered without calling any tool',
      'single tool: one round of tool calls, then a final answer',
      'multi tool: two or more rounds of tool calls, then a final answer',
      'no final answer: the session ended on a tool call, mid-work or with no reply to the last prompt',
    ]);
    expect(patterns.querySelectorAll('.bar-label')[3]!.getAttribute('title')).toMatch(/ended on a tool call/);
    // Scripts are our own files only (keyboard, copy buttons, search); nothing inline, nothing from a transcript.
    for (const script of doc.querySelectorAll('script')) {
      expect(script.getAttribute('src')).toMatch(/^\/(_astro\/)?[\w.-]+\.js$/);
      expect(script.textContent).toBe('');
    }
  });
});
