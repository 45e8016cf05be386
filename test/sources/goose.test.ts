import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import { collect } from '../../src/collect/collect.ts';
import { editedFiles } from '../../src/model/files-edited.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { GooseDb } from '../../src/sources/goose/db-reader.ts';
import { goose } from '../../src/sources/goose/index.ts';
import { locateGoose } from '../../src/sources/goose/paths.ts';
import type { SourceContext } from '../../src/sources/source.ts';
import { toolInputView } from '../../src/transcript/tool-view.ts';
import { runCli } from '../helpers/cli.ts';
import { GOOSE_LEGACY_DIR, writeGooseDb } from '../helpers/goose-db.ts';
import { tempDir } from '../helpers/paths.ts';

const MAIN = '20260311_1';
const UNTITLED = '20260311_2';
const LEGACY = '20250214_093000';

async function run(dir: string, dataDir?: string) {
  const data = dataDir ?? path.join(await tempDir('goose-data'), 'd');
  const warnings: string[] = [];
  const report = await collect({
    home: await tempDir('goose-home'),
    env: {},
    dataDir: data,
    sourceOptions: { explicitHome: 'true', gooseDir: [dir] },
    sources: [goose],
    onWarning: (w) => warnings.push(`${w.file}${w.line === undefined ? '' : `:${w.line}`}: ${w.message}`),
  });
  const index = await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8').catch(() => '[]');
  const summaries = JSON.parse(index) as SessionSummary[];
  const byId = new Map(summaries.map((s) => [s.sessionId, s]));
  const body = async (id: string) => (await readBodyFile(data, byId.get(id)!.body))!.session;
  return { data, warnings, report: report.sources.find((s) => s.id === 'goose')!, byId, body };
}

/** A Goose data folder with `sessions/sessions.db` written from the fixture. */
async function dataFolder(): Promise<{ dir: string; db: string }> {
  const dir = path.join(await tempDir('goose-src'), 'goose');
  await fs.mkdir(path.join(dir, 'sessions'), { recursive: true });
  const db = path.join(dir, 'sessions', 'sessions.db');
  writeGooseDb(db);
  return { dir, db };
}

async function digest(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    out[path.relative(dir, file)] = createHash('sha1')
      .update(await fs.readFile(file))
      .digest('hex');
  }
  return out;
}

const text = (m: NormalizedMessage) => m.segments.map((s) => s.text ?? '').join('\n');

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Goose', () => {
  it('reads sessions.db: prompts, answers, thinking, tools joined to their results, session tokens once', async () => {
    const { dir, db } = await dataFolder();
    const before = await digest(dir);
    const { warnings, report, byId, body } = await run(dir);
    expect(warnings).toEqual([]);
    expect(report).toMatchObject({ sessions: 2, found: [db] });
    expect(await digest(dir)).toEqual(before); // never written, nothing created beside it

    const main = byId.get(MAIN)!;
    expect(main).toMatchObject({
      source: 'goose',
      title: 'Fix the signup form validation',
      cwd: '/home/alice/work/webapp',
      startedAt: '2026-03-11T14:00:00.000Z',
      endedAt: '2026-03-11T14:03:20.000Z',
      models: ['claude-sonnet-4-5'],
    });
    expect(main.stats).toMatchObject({
      prompts: 1,
      toolUses: 5,
      toolUsesByName: {
        developer__text_editor: 2,
        developer__shell: 1,
        todo__todo_write: 1,
        github__create_issue: 1,
      },
      toolErrors: 2,
      toolErrorsByName: { developer__shell: 1, github__create_issue: 1 },
      // The session's accumulated_* columns, counted once (not the last request's input_tokens 6100).
      tokens: { input: 18400, output: 1250, cacheRead: 0, cacheCreation: 0 },
      recordedUsd: 0.0741,
    });

    const msgs = (await body(MAIN)).messages;
    expect(msgs[0]).toMatchObject({
      id: '2026-03-11T14:00:00.000Z#1',
      role: 'user',
      metadata: { kind: 'prompt' },
      raw: { file_path: db, line_index: 1, uuid: `msg_${MAIN}_1` },
    });
    expect(text(msgs[0]!)).toBe('Fix the signup form validation: an empty email is accepted');
    const thinking = msgs.find((m) => m.metadata?.kind === 'thinking')!;
    expect(thinking.segments[0]).toMatchObject({ format: 'thinking', text: expect.stringContaining('trims') });
    expect(thinking.metadata).toMatchObject({ model: 'claude-sonnet-4-5', provider: 'anthropic' });

    const calls = msgs.filter((m) => m.source_type === 'tool_call');
    const results = new Map(msgs.filter((m) => m.source_type === 'tool_result').map((m) => [m.id, m]));
    expect(calls.map((c) => [c.tool_call!.call_id, c.tool_call!.status])).toEqual([
      ['toolu_01', 'completed'],
      ['toolu_02', 'completed'],
      ['toolu_03', 'error'], // isError: true in a successful call
      ['toolu_04', 'completed'],
      ['toolu_05', 'error'], // status: error
    ]);
    for (const call of calls) {
      const result = results.get(call.tool_call!.result_id!)!;
      expect(result.tool_call).toMatchObject({ call_id: call.tool_call!.call_id, name: call.tool_call!.name });
    }
    const view = results.get(calls[0]!.tool_call!.result_id!)!;
    // What the model saw, not the user-facing copy beside it.
    expect(view.tool_call!.output).toBe(
      "export function validEmail(email: string) {\n  return email.includes('@') || email.trim() === '';\n}",
    );
    expect(results.get(calls[4]!.tool_call!.result_id!)!.tool_call!.output).toContain('Tool not found');

    // Tokens sit on one message only: the last response.
    const counted = msgs.filter((m) => m.metadata?.usage);
    expect(counted).toHaveLength(1);
    expect(counted[0]).toBe(msgs.at(-1));
    expect(counted[0]!.metadata).toMatchObject({ usage: { input: 18400, output: 1250 }, costUsd: 0.0741 });
  });

  it('names an unnamed session after its first prompt, and never stores redacted thinking', async () => {
    const { dir } = await dataFolder();
    const { byId, body, data } = await run(dir);
    expect(byId.get(UNTITLED)).toMatchObject({
      title: 'What does the retry middleware do on a 429?',
      cwd: '/home/alice/work/api',
      models: ['gpt-5'],
    });
    expect(byId.get(UNTITLED)!.stats.tokens).toMatchObject({ input: 0, output: 0 });
    const msgs = (await body(UNTITLED)).messages;
    expect(msgs[1]!.segments[0]).toMatchObject({ format: 'redacted_thinking', text: '' });
    const bodies = await fs.readdir(path.join(data, 'sessions', 'goose'));
    for (const f of bodies)
      expect(await fs.readFile(path.join(data, 'sessions', 'goose', f), 'utf8')).not.toContain('ENCRYPTED-STATE');
  });

  it('a bad row costs that row only, with a warning naming the database and the row; unknown content is kept', async () => {
    const { dir, db } = await dataFolder();
    const w = new Database(db);
    const insert = w.prepare(
      'INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)',
    );
    const bad = insert.run(MAIN, 'user', '[{"type": "text", "text": ', 1773237900, '{}').lastInsertRowid;
    const future = { type: 'futureWidget', payload: { a: 1 } };
    insert.run(MAIN, 'assistant', JSON.stringify([{ type: 'text', text: 'Still here.' }, future]), 1773237960, '{}');
    const odd = insert.run(MAIN, 'system', '[]', 1773237970, '{}').lastInsertRowid;
    w.close();
    const { warnings, byId, body } = await run(dir);
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`^${db}:${bad}: message row ${bad}: content is not valid JSON`)),
      `${db}:${odd}: message row ${odd}: unknown role "system"; kept as meta`,
    ]);
    const main = byId.get(MAIN)!;
    expect(main.stats.toolUses).toBe(5);
    expect(main.stats.prompts).toBe(1);
    const msgs = (await body(MAIN)).messages;
    expect(msgs.some((m) => text(m) === 'Still here.')).toBe(true);
    const unknown = msgs.filter((m) => m.metadata?.kind === 'unknown');
    expect(unknown.map((m) => m.raw.record)).toEqual([future, { role: 'system', content: [], metadata: {} }]);
  });

  it('an unchanged database is not reopened; a changed one re-reads only the session that changed', async () => {
    const { dir, db } = await dataFolder();
    const open = vi.spyOn(GooseDb, 'open');
    const first = await run(dir);
    expect(open).toHaveBeenCalledTimes(1);
    const again = await run(dir, first.data);
    expect(again.report).toMatchObject({ sessions: 0, unchanged: 2 });
    expect(open).toHaveBeenCalledTimes(1);

    const w = new Database(db);
    w.prepare(
      'INSERT INTO messages (session_id, role, content_json, created_timestamp, metadata_json) VALUES (?, ?, ?, ?, ?)',
    ).run(UNTITLED, 'user', JSON.stringify([{ type: 'text', text: 'And on a 503?' }]), 1773246700, '{}');
    w.prepare("UPDATE sessions SET updated_at = '2026-03-11 16:31:40' WHERE id = ?").run(UNTITLED);
    w.close();
    const changed = await run(dir, first.data);
    expect(open).toHaveBeenCalledTimes(2);
    expect(changed.report).toMatchObject({ sessions: 1, unchanged: 1 });
    expect(changed.byId.get(UNTITLED)!.stats.prompts).toBe(2);
    expect(changed.byId.get(MAIN)!.stats.tokens.input).toBe(18400);
  });

  it('a file that is not a database is one warning and no throw', async () => {
    const dir = path.join(await tempDir('goose-bad'), 'goose', 'sessions');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'sessions.db'), 'hello');
    const { warnings, report } = await run(path.dirname(dir));
    expect(warnings).toEqual([expect.stringMatching(/sessions\.db: not a SQLite database/)]);
    expect(report.sessions).toBe(0);
  });

  it('reads the older sessions/<name>.jsonl files line by line, and skips them beside a database', async () => {
    const dir = path.join(await tempDir('goose-legacy'), 'goose');
    const sessions = path.join(dir, 'sessions');
    await fs.mkdir(sessions, { recursive: true });
    const file = path.join(sessions, `${LEGACY}.jsonl`);
    const lines = (await fs.readFile(path.join(GOOSE_LEGACY_DIR, `${LEGACY}.jsonl`), 'utf8')).trimEnd().split('\n');
    // A torn line in the middle costs that line only; a message without `created` takes the time before it.
    const undated = JSON.stringify({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] });
    await fs.writeFile(
      file,
      [...lines.slice(0, 3), '{"role": "user", "crea', ...lines.slice(3), undated].join('\n') + '\n',
    );
    const { warnings, report, byId, body } = await run(dir);
    expect(report).toMatchObject({ sessions: 1, found: [sessions] });
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^${file}:4: `))]);
    expect(byId.get(LEGACY)).toMatchObject({
      title: 'Add a --verbose flag',
      cwd: '/home/alice/work/cli-tool',
      startedAt: '2025-02-14T09:30:00.000Z',
      endedAt: '2025-02-14T09:30:40.000Z',
    });
    expect(byId.get(LEGACY)!.stats).toMatchObject({
      prompts: 1,
      toolUsesByName: { developer__shell: 1 },
      tokens: { input: 2700, output: 320 },
    });
    const msgs = (await body(LEGACY)).messages;
    const call = msgs.find((m) => m.source_type === 'tool_call')!;
    const result = msgs.find((m) => m.id === call.tool_call!.result_id)!;
    // The older result format: the content list itself as `value`.
    expect(result.tool_call!.output).toBe('src/args.rs:12:    #[arg(long)] quiet: bool,');
    expect(result.raw).toMatchObject({ file_path: file, line_index: 5 });
    expect(msgs.at(-1)).toMatchObject({ timestamp: '2025-02-14T09:30:40.000Z', timestamp_estimated: true });
    expect(msgs.filter((m) => m.timestamp_estimated)).toHaveLength(1);

    writeGooseDb(path.join(sessions, 'sessions.db'));
    const both = await run(dir);
    expect(both.report).toMatchObject({ sessions: 2, found: [path.join(sessions, 'sessions.db')] });
    expect(both.byId.has(LEGACY)).toBe(false);
  });

  it('finds the database under GOOSE_PATH_ROOT, XDG_DATA_HOME, the home and Windows AppData', async () => {
    const home = await tempDir('goose-paths');
    const place = async (dir: string) => {
      await fs.mkdir(path.join(dir, 'sessions'), { recursive: true });
      writeGooseDb(path.join(dir, 'sessions', 'sessions.db'));
      return path.join(dir, 'sessions', 'sessions.db');
    };
    const ctx = (env: NodeJS.ProcessEnv, options: SourceContext['options'] = {}): SourceContext => ({
      home,
      env,
      options,
      warn: () => {},
      archived: new Set(),
    });
    const local = await place(path.join(home, '.local', 'share', 'goose'));
    const windows = await place(path.join(home, 'AppData', 'Roaming', 'Block', 'goose', 'data'));
    const root = await tempDir('goose-root');
    const rooted = await place(path.join(root, 'data'));
    const xdg = await tempDir('goose-xdg');
    const xdgDb = await place(path.join(xdg, 'goose'));
    const located = await locateGoose(ctx({ GOOSE_PATH_ROOT: root, XDG_DATA_HOME: xdg }));
    expect(located.found).toEqual([rooted, xdgDb, local, windows]);
    // A relative GOOSE_PATH_ROOT is ignored, as Goose ignores it; an explicit --home ignores the environment.
    expect((await locateGoose(ctx({ GOOSE_PATH_ROOT: 'rel' }))).found).toEqual([local, windows]);
    expect((await locateGoose(ctx({ XDG_DATA_HOME: xdg }, { explicitHome: 'true' }))).found).toEqual([local, windows]);
    // --goose-dir: a data folder, its sessions folder, or the database itself.
    for (const flag of [path.join(xdg, 'goose'), path.join(xdg, 'goose', 'sessions'), xdgDb])
      expect((await locateGoose(ctx({}, { gooseDir: [flag] }))).found).toEqual([xdgDb]);
  });

  it('collects through the CLI with --goose-dir', async () => {
    const { dir } = await dataFolder();
    const data = path.join(await tempDir('goose-cli'), 'data');
    const home = await tempDir('goose-cli-home');
    const cli = await runCli(['collect', '--home', home, '--data', data, '--goose-dir', dir, '--assistants', 'goose']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).toMatch(/^Goose: .*sessions\.db: 2 sessions/m);
  });

  it("shows Goose's tools for what they are and counts the files they edit", () => {
    const call = (name: string, args: Record<string, unknown>) => ({
      call_id: 'c',
      name,
      status: 'completed' as const,
      arguments: JSON.stringify(args),
      arguments_json: args,
    });
    const path = '/w/a.ts';
    expect(toolInputView(call('developer__shell', { command: 'ls' }))).toMatchObject({ kind: 'shell', command: 'ls' });
    expect(toolInputView(call('developer__text_editor', { command: 'view', path }))).toEqual({ kind: 'read', path });
    const replace = call('developer__text_editor', { command: 'str_replace', path, old_str: 'a', new_str: 'b' });
    expect(toolInputView(replace)).toMatchObject({ kind: 'diff', files: [{ path, action: 'update' }] });
    const write = call('developer__text_editor', { command: 'write', path, file_text: 'x' });
    expect(toolInputView(write)).toMatchObject({ kind: 'code', path, code: 'x', caption: 'Writes' });
    expect(toolInputView(call('developer__edit', { path, before: 'a', after: 'b' }))).toMatchObject({ kind: 'diff' });
    expect(toolInputView(call('developer__write', { path, content: 'y' }))).toMatchObject({ kind: 'code', code: 'y' });
    expect(toolInputView(call('todo__todo_write', { content: '- [x] one\n- [ ] two' }))).toEqual({
      kind: 'todo',
      items: [
        { text: 'one', status: 'completed' },
        { text: 'two', status: 'pending' },
      ],
      explanation: undefined,
    });
    expect(toolInputView(call('github__create_issue', { title: 't' }))).toMatchObject({ kind: 'json' });
    expect(editedFiles(replace)).toEqual([path]);
    expect(editedFiles(write)).toEqual([path]);
    expect(editedFiles(call('developer__text_editor', { command: 'view', path }))).toEqual([]);
    expect(editedFiles(call('developer__edit', { path, before: 'a', after: 'b' }))).toEqual([path]);
  });
});
