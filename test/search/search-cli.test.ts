import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureSearchIndex, searchIndexPath, searchLogbook, type SearchHit } from '../../src/search/index.ts';
import { parseQuery } from '../../src/search/query.ts';
import { runCli } from '../helpers/cli.ts';
import { copyFixtureHome, COUNTED_ASSISTANTS, FIXTURE_HOME, SESSION, tempDir } from '../helpers/paths.ts';
import { writeTurns } from '../helpers/transcripts.ts';

const TOKYO = { timeZone: 'Asia/Tokyo' };
const PHRASE = 'ログイン画面のバグを直して';

async function searchJson(args: string[]): Promise<SearchHit[]> {
  const run = await runCli(['search', ...args]);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout) as SearchHit[];
}

describe('search (CLI, SQLite FTS5)', () => {
  let data: string;
  beforeAll(async () => {
    data = path.join(await tempDir('search'), 'data');
    const run = await runCli([
      'collect',
      '--home',
      FIXTURE_HOME,
      '--assistants',
      COUNTED_ASSISTANTS.join(','),
      '--data',
      data,
    ]);
    expect(run.code, run.stderr).toBe(0);
  });
  const json = (...args: string[]) =>
    searchJson([...args, '--no-collect', '--data', data, '--tz', 'Asia/Tokyo', '--json']);

  it('finds Japanese substrings of one, two, three and more characters', async () => {
    for (const query of ['ログイン', 'バグ', '画面', 'バ', '画面のバ', PHRASE]) {
      const hits = await json(query);
      const hit = hits.find((h) => h.key === `claude-code/${SESSION.C}`);
      expect(hit, query).toBeDefined();
      expect(hit!.kind).toBe('answer');
      expect(hit!.snippet).toContain(`«${query}»`);
      expect(hit!.snippetText.slice(...hit!.highlights[0]!)).toBe(query);
      expect(hit!.messageIndex).toBe(1);
      expect(hit!.anchor).toBe('m1');
      expect(hit!.route).toBe(`sessions/claude-code/${SESSION.C}/#m1`);
      expect(hit!.projectName).toBe('日本語');
    }
    // A two-character CJK query that is not in the text finds nothing (the n-gram table is exact).
    expect(await json('バラ')).toEqual([]);
    // Every hit holds every term.
    for (const hit of await json('ログイン')) expect(hit.snippetText).toContain('ログイン');
  });

  it('finds English words in any case, every term of a query, tool inputs and outputs and titles', async () => {
    const hits = await json('REDIRECT');
    expect(hits.length).toBeGreaterThan(3);
    for (const hit of hits) expect(hit.snippetText.toLowerCase()).toContain('redirect');
    const both = await json('login', 'redirect', '--limit', '50');
    expect(both.length).toBeGreaterThan(0);
    for (const hit of both) expect(hit.snippetText.toLowerCase()).toMatch(/login[\s\S]*|redirect/);
    const bash = await json('"FAIL  test/auth.test.ts"');
    expect(bash.map((h) => [h.key, h.kind])).toContainEqual([`claude-code/${SESSION.A}`, 'tool-output']);
    const input = await json('npm test -- auth');
    expect(input.map((h) => h.kind)).toContain('tool-input');
    const title = await json('Fix login redirect');
    expect(title.find((h) => h.kind === 'session')).toMatchObject({ key: `claude-code/${SESSION.A}`, anchor: '' });
    expect(title.find((h) => h.kind === 'session')!.route).toBe(`sessions/claude-code/${SESSION.A}/`);
    // LIKE's wildcards in a query are plain characters: `n_xt` does not find `next`.
    expect((await json('next')).length).toBeGreaterThan(0);
    expect(await json('n_xt')).toEqual([]);
    expect(await json('ne%t')).toEqual([]);
    // Short non-CJK words (under three characters) are matched by scanning.
    const short = await json('ls', '--limit', '5');
    expect(short.length).toBe(5);
    for (const hit of short) expect(hit.snippetText.toLowerCase()).toContain('ls');
  });

  it("anchors a subagent's messages at the Task call that started it", async () => {
    const hits = await json('src/auth/**/*.ts');
    const glob = hits.find((h) => h.kind === 'tool-input' && h.key === `claude-code/${SESSION.A}`);
    expect(glob).toBeDefined();
    // A's main thread: the Task call is its 16th message (index 15).
    expect(glob!.anchor).toBe('m15');
  });

  it('filters by source, project and days in the zone', async () => {
    const codex = await json('redirect', '--source', 'codex', '--limit', '100');
    expect(codex.length).toBeGreaterThan(0);
    expect(new Set(codex.map((h) => h.source))).toEqual(new Set(['codex']));
    const claude = await json('redirect', '--source', 'claude-code', '--limit', '100');
    expect(claude.length).toBeGreaterThan(0);
    expect(new Set(claude.map((h) => h.source))).toEqual(new Set(['claude-code']));

    const notes = await json('ログイン', '--project', '日本語');
    expect(notes.map((h) => h.key)).toEqual([`claude-code/${SESSION.C}`]);
    expect(await json('ログイン', '--project', '/home/alice/notes/日本語')).toHaveLength(1);
    expect(await json('ログイン', '--project', notes[0]!.project)).toHaveLength(1);
    expect(await json('ログイン', '--project', 'nowhere')).toEqual([]);

    // C's answer is 2026-03-04T02:00:06Z: 11:00 on 03-04 in Tokyo, but 21:00 on 03-03 in New York.
    expect((await json('バグ', '--since', '2026-03-04', '--until', '2026-03-04')).length).toBe(1);
    expect(await json('バグ', '--until', '2026-03-03')).toEqual([]);
    expect(await json('バグ', '--since', '2026-03-05')).toEqual([]);
    const ny = await searchJson([
      'バグ',
      '--no-collect',
      '--data',
      data,
      '--tz',
      'America/New_York',
      '--json',
      '--until',
      '2026-03-03',
    ]);
    expect(ny).toHaveLength(1);
  });

  it('prints one line per hit with time, source, project, session, marked snippet and page path', async () => {
    const run = await runCli(['search', 'バグ', '--no-collect', '--data', data, '--tz', 'Asia/Tokyo']);
    expect(run.code).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^2026-03-04 11:00 {2}claude-code {2}日本語 {2}33333333-3333-4333-8333-333333333333 {2}answer {2}/,
    );
    expect(lines[0]).toContain('ログイン画面の«バグ»を直して');
    expect(lines[0]).toMatch(/ {2}sessions\/claude-code\/33333333-3333-4333-8333-333333333333\/#m1$/);
  });

  it('prints [] (exit 0) or a notice when nothing matches, and rejects bad arguments', async () => {
    const run = await runCli(['search', 'xyzzy-nothing', '--no-collect', '--data', data, '--json']);
    expect(run).toMatchObject({ code: 0, stdout: '[]\n' });
    const plain = await runCli(['search', 'xyzzy-nothing', '--no-collect', '--data', data]);
    expect(plain.code).toBe(0);
    expect(plain.stdout).toBe('');
    expect(plain.stderr).toContain('No match');
    expect((await runCli(['search', 'x', '--source', 'vim', '--data', data])).code).toBe(2);
    expect((await runCli(['search', 'x', '--limit', '0', '--data', data])).code).toBe(2);
    const missing = await runCli(['search', 'x', '--no-collect', '--data', path.join(data, 'nope')]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/not an agent-logbook data directory yet; run agent-logbook collect first/);
  });

  it('splits queries into words and "phrases", each looked up the right way', () => {
    expect(parseQuery('ログイン  "fix the bug" go 画面 バ')).toEqual([
      { text: 'ログイン', via: 'trigram' },
      { text: 'fix the bug', via: 'trigram' },
      { text: 'go', via: 'scan' },
      { text: '画面', via: 'cjk' },
      { text: 'バ', via: 'cjk' },
    ]);
  });
});

describe('search index upkeep', () => {
  it('is built on first search, kept up to date by collect (only changed sessions), rebuilt when older', async () => {
    const home = await copyFixtureHome();
    const data = path.join(await tempDir('search-inc'), 'data');
    const collectArgs = ['collect', '--home', home, '--assistants', COUNTED_ASSISTANTS.join(','), '--data', data];
    expect((await runCli(collectArgs)).code).toBe(0);
    // A collect does not create the index: the first search does.
    await expect(fs.stat(searchIndexPath(data))).rejects.toThrow();
    const first = await runCli(['search', 'バグ', '--home', home, '--data', data, '--json']);
    expect(JSON.parse(first.stdout)).toHaveLength(1);
    const { sessions } = await ensureSearchIndex(data);
    expect(await ensureSearchIndex(data)).toEqual({ indexed: 0, removed: 0, sessions });
    expect(sessions).toBe(
      (JSON.parse(await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8')) as unknown[]).length,
    );

    // Append an exchange to E and add a new session; collect updates the index.
    const webapp = path.join(home, '.claude', 'projects', '-home-alice-work-webapp');
    const e = path.join(webapp, `${SESSION.E}.jsonl`);
    const last = JSON.parse((await fs.readFile(e, 'utf8')).trim().split('\n').pop()!);
    const prompt = (uuid: string, sessionId: string, content: string, timestamp: string) =>
      JSON.stringify({
        ...last,
        sessionId,
        type: 'user',
        uuid,
        parentUuid: null,
        timestamp,
        message: { role: 'user', content },
      });
    await fs.appendFile(
      e,
      `${prompt('s-u1', SESSION.E, '検索索引の追記テスト zebra-appended', '2026-03-06T01:00:00.000Z')}\n`,
    );
    const newId = '99999999-9999-4999-8999-999999999999';
    await fs.writeFile(
      path.join(webapp, `${newId}.jsonl`),
      `${prompt('s-u2', newId, '新しいセッションの猫 giraffe-added', '2026-03-07T01:00:00.000Z')}\n`,
    );
    const collected = await runCli(collectArgs);
    expect(collected.code, collected.stderr).toBe(0);
    // Straight from the index, without bringing it up to date: collect did.
    const appended = await searchLogbook(data, 'zebra-appended', { timeZone: 'UTC' });
    expect(appended.map((h) => [h.key, h.kind])).toEqual([[`claude-code/${SESSION.E}`, 'prompt']]);
    expect((await searchLogbook(data, '追記', { timeZone: 'UTC' })).map((h) => h.key)).toEqual([
      `claude-code/${SESSION.E}`,
    ]);
    expect((await searchLogbook(data, '猫', { timeZone: 'UTC' })).map((h) => h.key)).toEqual([`claude-code/${newId}`]);
    expect((await searchLogbook(data, 'giraffe-added', { timeZone: 'UTC' }))[0]!.anchor).toBe('m0');
    expect(await ensureSearchIndex(data)).toEqual({ indexed: 0, removed: 0, sessions: sessions + 1 });
    // The old rows of a session read again are gone (no duplicates).
    expect(await searchLogbook(data, 'ログイン画面のリダイレクト', { timeZone: 'UTC' })).toHaveLength(1);

    // Only the changed session is read again.
    await fs.appendFile(e, `${prompt('s-u3', SESSION.E, 'third-append', '2026-03-06T02:00:00.000Z')}\n`);
    const { collect } = await import('../../src/collect/collect.ts');
    await collect({
      home,
      env: {},
      dataDir: data,
      sourceOptions: { explicitHome: 'true', assistants: COUNTED_ASSISTANTS },
    });
    expect(await ensureSearchIndex(data)).toEqual({ indexed: 1, removed: 0, sessions: sessions + 1 });

    // An index of another schema version is rebuilt whole.
    const db = new Database(searchIndexPath(data));
    db.pragma('user_version = 999');
    db.close();
    expect(await ensureSearchIndex(data)).toEqual({ indexed: sessions + 1, removed: 0, sessions: sessions + 1 });
    // A deleted index is rebuilt by the next search.
    await fs.rm(path.join(data, 'search'), { recursive: true });
    expect(await searchLogbook(data, 'third-append', TOKYO)).toHaveLength(1);
  });

  it('points hits in a long session at the page that holds them', async () => {
    const home = await tempDir('search-long');
    const id = 'abcdefab-0000-4000-8000-000000000777';
    await writeTurns(home, id, 400, '2026-04-01T00:00:00Z', (t) => ({
      prompt: `質問 question-${t}-end`,
      answer: `answer ${t}`,
    }));
    const data = path.join(home, 'data');
    const hits = await searchJson(['question-350-end', '--home', home, '--data', data, '--json']);
    expect(hits).toHaveLength(1);
    expect(hits[0]!.messageIndex).toBe(700);
    expect(hits[0]!.page).toBeGreaterThan(1);
    expect(hits[0]!.route).toBe(`sessions/claude-code/${id}/page/${hits[0]!.page}/#m700`);
    const header = JSON.parse(await fs.readFile(path.join(data, 'sessions', 'claude-code', `${id}.json`), 'utf8'));
    const starts: number[] = header.summary.pageStarts;
    expect(starts[hits[0]!.page - 1]).toBeLessThanOrEqual(700);
    expect(starts[hits[0]!.page] ?? Infinity).toBeGreaterThan(700);
  });
});
