import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { createCursorSource, cursor } from '../../src/sources/cursor/index.ts';
import { CURSOR_IDS, CURSOR_SECRET, demoRows, writeCursorDb, writeDemoCursorDb } from '../helpers/cursor-db.ts';
import { FIXTURE_HOME, REPO, tempDir } from '../helpers/paths.ts';

const { A, B, C, D, E } = CURSOR_IDS;
const MTIME = new Date('2026-03-10T09:30:00Z');

/** A private home with the demo transcripts (mtimes set) and the demo database. */
async function demoHome(): Promise<{ home: string; dotCursor: string; db: string }> {
  const home = await tempDir('cursor-home');
  const dotCursor = path.join(home, '.cursor');
  // The CLI's chat stores have their own tests (cursor-cli.test.ts).
  const chats = path.join(FIXTURE_HOME, '.cursor', 'chats');
  await fs.cp(path.join(FIXTURE_HOME, '.cursor'), dotCursor, {
    recursive: true,
    filter: (src) => !src.startsWith(chats),
  });
  for (const entry of await fs.readdir(dotCursor, { recursive: true, withFileTypes: true }))
    if (entry.isFile()) await fs.utimes(path.join(entry.parentPath, entry.name), MTIME, MTIME);
  const db = await writeDemoCursorDb(home);
  return { home, dotCursor, db };
}

async function run(home: string, dirs: string[], data?: string, source = cursor) {
  const dataDir = data ?? path.join(await tempDir('cursor-data'), 'd');
  const warnings: string[] = [];
  const report = await collect({
    home,
    env: {},
    dataDir,
    sourceOptions: { explicitHome: 'true', cursorDir: dirs },
    sources: [source],
    onWarning: (w) => warnings.push(`${w.file}:${w.line ?? ''}: ${w.message}`),
  });
  const summaries = JSON.parse(
    await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  const byId = new Map(summaries.map((s) => [s.sessionId, s]));
  const body = async (id: string) => (await readBodyFile(dataDir, byId.get(id)!.body))!.session;
  return { dataDir, report, warnings, byId, body };
}

const kinds = (ms: NormalizedMessage[]) => ms.map((m) => m.metadata?.kind ?? m.source_type);
const calls = (ms: NormalizedMessage[]) => ms.filter((m) => m.source_type === 'tool_call').map((m) => m.tool_call!);

async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    const stat = await fs.stat(file);
    out.set(file, `${(await fs.readFile(file)).toString('base64')}:${stat.mtimeMs}`);
  }
  return out;
}

describe('cursor source', () => {
  it('reads transcripts and editor chats; one conversation in both is one session', async () => {
    const { home, dotCursor, db } = await demoHome();
    const before = await snapshot(home);
    const { byId, warnings, body, report } = await run(home, [dotCursor, db]);
    expect(warnings).toEqual([]);
    expect(report.sources[0]).toMatchObject({ id: 'cursor', sessions: 4 });
    expect([...byId.keys()].sort()).toEqual([A, B, C, D]); // E has no messages
    expect(await snapshot(home)).toEqual(before); // nothing written beside the sources
    for (const s of byId.values()) expect(JSON.stringify(s)).not.toContain(CURSOR_SECRET);

    // A: a transcript with a subagent; the prompt's <timestamp>, the rest estimated from the file's mtime.
    const a = byId.get(A)!;
    expect(a).toMatchObject({
      source: 'cursor',
      title: 'Add a health check route to the server',
      cwd: '/home/alice/work/webapp', // the slug, matched against paths the tools named
      startedAt: '2026-03-10T09:00:00.000Z',
      models: [],
      subagents: 1,
    });
    expect(a.stats.tokens).toEqual({ input: 0, output: 0, cacheRead: 0, cacheCreation: 0 }); // not recorded
    expect(a.stats.toolUsesByName).toMatchObject({ Read: 1, Grep: 1, StrReplace: 1, Shell: 1, Glob: 1 });
    const sa = await body(A);
    expect(kinds(sa.messages)).toEqual([
      'injected',
      'prompt',
      'response',
      'response',
      'response',
      'response',
      'response',
      'response',
    ]);
    expect(sa.messages[1]!.segments[0]!.text).toBe('Add a health check route to the server');
    expect(calls(sa.messages).map((c) => [c.name, c.arguments_json])).toEqual([
      ['Read', { path: '/home/alice/work/webapp/src/server.ts' }],
      ['Grep', { pattern: 'app.get', path: '/home/alice/work/webapp/src' }],
      ['StrReplace', expect.objectContaining({ old_string: 'app.listen(3000);' })],
      ['Shell', { command: 'npm test', working_directory: '/home/alice/work/webapp' }],
    ]);
    expect(sa.messages.at(-1)!.timestamp).toBe(MTIME.toISOString());
    expect(sa.subagents[0]!.messages.map((m) => m.segments[0]?.text ?? m.tool_call?.name)).toEqual([
      'Find every route registered in src/',
      'Glob',
      'Two routes: GET / and POST /login.',
    ]);

    // B: the legacy .txt transcript: thinking, a call and its result joined.
    const sb = await body(B);
    expect(byId.get(B)).toMatchObject({ title: 'Summarize todo.md in three bullets', cwd: '/home/alice/notes' });
    const call = sb.messages.find((m) => m.source_type === 'tool_call')!;
    const result = sb.messages.find((m) => m.source_type === 'tool_result')!;
    expect(call.tool_call).toMatchObject({ name: 'ReadFile', status: 'completed', result_id: result.id });
    expect(call.tool_call!.arguments_json).toEqual({ path: '/home/alice/notes/todo.md' });
    expect(result.tool_call!.output).toBe('- buy milk\n- renew passport\n- call the plumber');
    expect(sb.messages.some((m) => m.segments.some((s) => s.format === 'thinking'))).toBe(true);
    expect(sb.messages.at(-1)!.segments[0]!.text).toContain('- house: plumber');

    // C: transcript + composer: the bubbles (times, results, tokens), the composer's title and model.
    const c = byId.get(C)!;
    expect(c).toMatchObject({
      title: 'Login form submits twice',
      cwd: '/home/alice/work/webapp',
      startedAt: '2026-03-11T14:00:00.000Z',
      endedAt: '2026-03-11T14:01:00.000Z',
      models: ['claude-4-sonnet'],
    });
    expect(c.files.sort()).toEqual(
      [db, path.join(dotCursor, 'projects', 'home-alice-work-webapp', 'agent-transcripts', C, `${C}.jsonl`)].sort(),
    );
    expect(c.stats.tokens).toEqual({ input: 2700, output: 120, cacheRead: 0, cacheCreation: 0 });
    expect(c.stats).toMatchObject({ prompts: 1, toolUses: 2, toolErrors: 1 });
    const sc = await body(C);
    const [read, shell] = calls(sc.messages);
    expect(read).toMatchObject({
      name: 'read_file',
      status: 'completed',
      arguments_json: { target_file: 'src/login.tsx' },
    });
    expect(shell).toMatchObject({
      name: 'run_terminal_cmd',
      status: 'error',
      arguments_json: { command: 'npm test', is_background: false },
    });
    const shellResult = sc.messages.find((m) => m.id === shell!.result_id)!;
    expect(shellResult.tool_call).toMatchObject({ output_json: { output: '1 failing', exitCode: 1 } });
    expect(sc.messages[1]!.segments).toEqual([
      { channel: 'output', type: 'text', format: 'thinking', text: 'Look at the form handler first.' },
    ]);

    // D: an editor chat only: its folder from workspaceStorage, the model the bubble names.
    expect(byId.get(D)).toMatchObject({
      title: 'Explain the API rate limits',
      cwd: '/home/alice/work/api',
      models: ['gpt-5'],
      startedAt: '2026-03-12T10:00:00.000Z',
      stats: { tokens: { input: 800, output: 30, cacheRead: 0, cacheCreation: 0 } },
    });
  });

  it('a transcript checked out or restored months later does not end on that day', async () => {
    const { home, dotCursor, db } = await demoHome();
    const later = new Date('2026-11-25T08:00:00Z');
    const folder = path.join(dotCursor, 'projects', 'home-alice-work-webapp', 'agent-transcripts', A);
    for (const entry of await fs.readdir(folder, { recursive: true, withFileTypes: true }))
      if (entry.isFile()) await fs.utimes(path.join(entry.parentPath, entry.name), later, later);
    const { byId } = await run(home, [dotCursor, db]);
    // Its one dated message is the prompt at 09:00: the mtime, 260 days later, is not taken as its end.
    expect(byId.get(A)).toMatchObject({ startedAt: '2026-03-10T09:00:00.000Z', endedAt: '2026-03-10T09:00:00.000Z' });
  });

  it('a second collect yields every session unchanged; a grown transcript is read again', async () => {
    const { home, dotCursor, db } = await demoHome();
    const first = await run(home, [dotCursor, db]);
    const second = await run(home, [dotCursor, db], first.dataDir);
    expect(second.report.sources[0]).toMatchObject({ sessions: 0, unchanged: 4 });
    const file = path.join(dotCursor, 'projects', 'home-alice-notes', 'agent-transcripts', `${B}.txt`);
    await fs.appendFile(file, '\nuser:\n<user_query>\nAnd the fourth?\n</user_query>\n');
    const third = await run(home, [dotCursor, db], second.dataDir);
    // A changed transcript has the database read again with it (Cursor writes the two together): B, C and D are
    // read, A (not in the database) stays.
    expect(third.report.sources[0]).toMatchObject({ sessions: 3, unchanged: 1 });
    expect(third.byId.get(B)!.stats.prompts).toBe(2);
  });

  it('reads only composerData and bubble rows, never ItemTable', async () => {
    const { home, db } = await demoHome();
    const sql: string[] = [];
    await run(home, [db], undefined, createCursorSource({ onSql: (s) => sql.push(s) }));
    expect(sql.length).toBeGreaterThan(0);
    expect(sql.join('\n')).not.toMatch(/ItemTable/);
    expect(sql.every((s) => /sqlite_master|cursorDiskKV/.test(s))).toBe(true);
  });

  it('a bad line, an unknown record and a bad bubble cost only themselves, with file:line', async () => {
    const home = await tempDir('cursor-edge');
    const dir = path.join(home, '.cursor', 'projects', 'home-bob-app', 'agent-transcripts');
    await fs.mkdir(dir, { recursive: true });
    const file = path.join(dir, `${A}.jsonl`);
    await fs.writeFile(
      file,
      [
        '{"role":"user","message":{"content":[{"type":"text","text":"<user_query>\\nfirst\\n</user_query>"}]}}',
        '{"role":"assistant","message":{"content":[{"type":"text","text":"one"}]}}',
        '{"role":"assistant","message":{"content":[{"type":"te',
        '{"type":"turn_ended","reason":"done"}',
        '{"role":"assistant","message":{"content":[{"type":"text","text":"two"}]}}',
      ].join('\n') + '\n',
    );
    const db = path.join(home, 'state.vscdb');
    const rows = demoRows().filter(([k]) => k.includes(D));
    rows.push([`bubbleId:${D}:d2`, '{not json']);
    const composer = JSON.parse(rows.find(([k]) => k.startsWith('composerData'))![1]);
    composer.fullConversationHeadersOnly.push({ bubbleId: 'd3', type: 2 }, { bubbleId: 'd4', type: 2 });
    rows.push([`composerData:${D}`, JSON.stringify(composer)]);
    rows.push([`bubbleId:${D}:d4`, JSON.stringify({ type: 7, createdAt: '2026-03-12T10:00:09Z', what: 'new kind' })]);
    rows.push([`composerData:${E}`, '{broken']);
    writeCursorDb(db, rows, { wal: true });
    const { warnings, byId, body } = await run(home, [path.join(home, '.cursor'), db]);
    expect(warnings).toHaveLength(4);
    expect(warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(new RegExp(`^${file}:3: `)),
        expect.stringContaining(`${db}:: composerData:${E} is not valid JSON`),
        expect.stringContaining(`${db}:2: bubble d2 of composer ${D}: not valid JSON`),
        `${db}:3: bubble d3 of composer ${D}: not stored; skipped`,
      ]),
    );
    const sa = await body(A);
    expect(sa.messages.map((m) => m.segments[0]?.text ?? m.metadata?.kind)).toEqual(['first', 'one', 'unknown', 'two']);
    expect(sa.messages[2]!.raw).toMatchObject({ line_index: 4, record: { type: 'turn_ended', reason: 'done' } });
    const sd = await body(D);
    expect(sd.messages.map((m) => m.metadata?.kind)).toEqual(['prompt', 'unknown']);
    expect(sd.messages[1]!.raw.record).toMatchObject({ type: 7, what: 'new kind' });
    expect(byId.get(D)!.endedAt).toBe('2026-03-12T10:00:09.000Z');
    expect((await fs.readdir(home)).sort()).toEqual(['.cursor', 'state.vscdb']); // no -wal/-shm made beside it
  });

  it('reads the real transcript from git-ai (fixtures/cursor/real)', async () => {
    const home = await tempDir('cursor-real');
    const slug = 'Users-aidancunniffe-Desktop-testing-gitflows-git-ai';
    const id = '123f1cae-0c8d-4041-905b-ac6e2e32d6e4';
    const dir = path.join(home, '.cursor', 'projects', slug, 'agent-transcripts', id);
    await fs.mkdir(dir, { recursive: true });
    await fs.copyFile(
      path.join(REPO, 'fixtures', 'cursor', 'real', 'cursor-session-simple.jsonl'),
      path.join(dir, `${id}.jsonl`),
    );
    await fs.utimes(path.join(dir, `${id}.jsonl`), MTIME, MTIME);
    const { byId, warnings, body } = await run(home, [path.join(home, '.cursor')]);
    expect(warnings).toEqual([]);
    const s = byId.get(id)!;
    expect(s).toMatchObject({
      title: "Generate a file with all the HBO shows from the 90's in it",
      cwd: '/Users/aidancunniffe/Desktop/testing-gitflows-git-ai',
      endedAt: MTIME.toISOString(),
    });
    expect(s.stats).toMatchObject({
      prompts: 1,
      entries: 10,
      toolUses: 10,
      toolUsesByName: { Read: 3, WebSearch: 4, WebFetch: 1, Grep: 1, Write: 1 },
    });
    const sb = await body(id);
    const write = calls(sb.messages).find((c) => c.name === 'Write')!;
    expect(write.arguments_json).toMatchObject({
      path: '/Users/aidancunniffe/Desktop/testing-gitflows-git-ai/hbo-shows-1990s.txt',
    });
    expect(String((write.arguments_json as { contents: string }).contents)).toContain('The Sopranos (premiered 1999)');
    expect(sb.messages.at(-1)!.segments[0]!.text).toContain('**New file:** `hbo-shows-1990s.txt`');
  });
});
