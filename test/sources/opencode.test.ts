import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { openCode } from '../../src/sources/opencode/index.ts';
import { locateOpenCode } from '../../src/sources/opencode/paths.ts';
import type { SourceContext } from '../../src/sources/source.ts';
import { OPENCODE_SECRET, writeDemoOpenCodeDb, writeOpenCodeDb, writeOpenCodeStorage } from '../helpers/opencode-db.ts';
import { tempDir } from '../helpers/paths.ts';

const MAIN = 'ses_3a0f00000001AbcDefGhiJkl';
const CHILD = 'ses_3a0f00000100ChildChildCh';
const OLD = 'ses_3a0f00000200OldOldOldOld';

async function run(dir: string, dataDir?: string) {
  const data = dataDir ?? path.join(await tempDir('opencode-data'), 'd');
  const warnings: string[] = [];
  const report = await collect({
    home: await tempDir('opencode-home'),
    env: {},
    dataDir: data,
    sourceOptions: { explicitHome: 'true', opencodeDir: [dir] },
    sources: [openCode],
    onWarning: (w) => warnings.push(`${w.file}${w.line === undefined ? '' : `:${w.line}`}: ${w.message}`),
  });
  const index = await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8').catch(() => '[]');
  const summaries = JSON.parse(index) as SessionSummary[];
  const byId = new Map(summaries.map((s) => [s.sessionId, s]));
  const body = async (id: string) => (await readBodyFile(data, byId.get(id)!.body))!.session;
  return { data, warnings, report: report.sources.find((s) => s.id === 'opencode')!, byId, body };
}

async function dbDir(): Promise<{ dir: string; db: string }> {
  const dir = path.join(await tempDir('opencode-src'), 'opencode');
  await fs.mkdir(dir, { recursive: true });
  const db = path.join(dir, 'opencode.db');
  writeOpenCodeDb(db);
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

function expectMainSession(s: SessionSummary) {
  expect(s).toMatchObject({
    source: 'opencode',
    title: 'Fix the login redirect',
    cwd: '/home/alice/work/webapp',
    startedAt: '2026-03-10T09:00:00.000Z',
    endedAt: '2026-03-10T09:02:50.000Z',
    models: ['claude-haiku-4-5', 'claude-sonnet-4-5'],
    cliVersion: '1.2.10',
    subagents: 1,
  });
  expect(s.stats).toMatchObject({
    prompts: 2,
    toolUses: 5,
    toolUsesByName: { read: 1, edit: 1, bash: 1, task: 1, write: 1 },
    toolErrors: 1,
    toolErrorsByName: { bash: 1 },
    // step 1 + step 2 + the task turn + the subagent's step, by hand (reasoning counted as output):
    tokens: {
      input: 1200 + 300 + 50 + 700,
      output: 100 + 150 + 40 + 200,
      cacheRead: 3000 + 4200 + 5000,
      cacheCreation: 500 + 1000,
    },
  });
}

describe('OpenCode', () => {
  it('reads opencode.db: prompts, steps with their tokens and cost, tools joined, subagents, unknown parts kept', async () => {
    const { dir, db } = await dbDir();
    const before = await digest(dir);
    const { warnings, report, byId, body } = await run(dir);
    expect(warnings).toEqual([]);
    expect(report).toMatchObject({ sessions: 2, found: [db] });
    expect([...byId.keys()].sort()).toEqual([MAIN, OLD]); // the child session is a thread of its parent
    expectMainSession(byId.get(MAIN)!);
    expect(await digest(dir)).toEqual(before); // never written, nothing created beside it

    const session = await body(MAIN);
    const msgs = session.messages;
    const prompt = msgs[0]!;
    expect(prompt).toMatchObject({ role: 'user', timestamp: '2026-03-10T09:00:00.000Z', metadata: { kind: 'prompt' } });
    expect(prompt.id).toBe('2026-03-10T09:00:00.000Z#1');
    expect(text(prompt)).toContain('ログイン後のリダイレクトを直して');
    expect(prompt.segments[1]).toMatchObject({
      type: 'image',
      media: { media_type: 'image/png', data_uri: 'data:image/png;base64,iVBORw0KGgo=' },
    });
    expect(msgs[1]).toMatchObject({ role: 'system', metadata: { kind: 'injected', subtype: 'synthetic' } });

    const thinking = msgs.find((m) => m.segments[0]?.format === 'thinking')!;
    expect(thinking.metadata).toMatchObject({
      kind: 'thinking',
      model: 'claude-sonnet-4-5',
      provider: 'anthropic',
      usage: { input: 1200, output: 100, cacheRead: 3000, cacheCreation: 500 },
      reasoningTokens: 20,
      costUsd: 0.01,
    });
    const calls = msgs.filter((m) => m.source_type === 'tool_call');
    const read = calls.find((c) => c.tool_call!.name === 'read')!;
    expect(read.tool_call).toMatchObject({ call_id: 'toolu_01Read', status: 'completed' });
    expect(read.tool_call!.arguments_json).toEqual({ filePath: '/home/alice/work/webapp/src/router.ts' });
    const readResult = msgs.find((m) => m.id === read.tool_call!.result_id)!;
    expect(readResult).toMatchObject({ source_type: 'tool_result', timestamp: '2026-03-10T09:00:06.000Z' });
    expect(readResult.tool_call!.output).toContain("export const after = '/home'");
    const edit = calls.find((c) => c.tool_call!.name === 'edit')!;
    // The second step's usage sits on its first message (the edit call), counted once.
    expect(edit.metadata).toMatchObject({ usage: { input: 300, output: 150, cacheRead: 4200 }, costUsd: 0.0023 });
    expect(edit.metadata!.response_id).not.toBe(thinking.metadata!.response_id);
    const bash = calls.find((c) => c.tool_call!.name === 'bash')!;
    expect(bash.tool_call).toMatchObject({
      status: 'error',
      arguments_json: { command: 'npm test', description: 'Run the tests' },
    });
    expect(msgs.find((m) => m.id === bash.tool_call!.result_id)!.tool_call!.output).toBe(
      'Error: command exited with code 1',
    );
    expect(msgs.filter((m) => m.metadata?.usage).length).toBe(3);
    expect(msgs.find((m) => m.metadata?.subtype === 'patch')).toMatchObject({
      metadata: { kind: 'system_event', files: ['/home/alice/work/webapp/src/router.ts'] },
    });
    const unknown = msgs.find((m) => m.metadata?.kind === 'unknown')!;
    expect(unknown.raw).toMatchObject({
      event_type: 'hologram',
      file_path: db,
      uuid: 'prt_3a0f00000043',
      record: { type: 'hologram' },
    });

    const task = calls.find((c) => c.tool_call!.name === 'task')!;
    expect(session.subagents).toHaveLength(1);
    const thread = session.subagents[0]!;
    expect(thread).toMatchObject({
      agentId: CHILD,
      description: 'Write router tests',
      parentCallId: task.tool_call!.call_id,
    });
    expect(thread.messages[0]!.id.startsWith(`${CHILD}:`)).toBe(true);
    expect(thread.messages.find((m) => m.tool_call?.name === 'write')!.metadata).toMatchObject({
      model: 'claude-haiku-4-5',
      usage: { input: 700, output: 200, cacheRead: 0, cacheCreation: 1000 },
      costUsd: 0.002,
    });

    // No step-finish (an older version, an aborted turn): the message's own tokens; a placeholder title.
    const old = byId.get(OLD)!;
    expect(old).toMatchObject({
      title: 'What does `git rebase -i` do?',
      cwd: '/home/alice/notes',
      models: ['gpt-5'],
      cliVersion: '0.15.3',
    });
    expect(old.stats.tokens).toMatchObject({ input: 10, output: 5, cacheRead: 0, cacheCreation: 0 });
    expect((await body(OLD)).messages.at(-1)).toMatchObject({
      metadata: { kind: 'interrupt', subtype: 'MessageAbortedError' },
    });
  });

  it('reads only session, message and part: never the account table', async () => {
    const { dir } = await dbDir();
    const { data } = await run(dir);
    const all = await digest(data);
    for (const file of Object.keys(all))
      expect(await fs.readFile(path.join(data, file), 'utf8')).not.toContain(OPENCODE_SECRET);
  });

  it('an unchanged database is not reopened; a changed one re-reads only the sessions that changed', async () => {
    const { dir, db } = await dbDir();
    const first = await run(dir);
    const again = await run(dir, first.data);
    expect(again.report).toMatchObject({ sessions: 0, unchanged: 2 });

    const w = new Database(db);
    const now = Date.parse('2026-03-11T11:00:00Z');
    w.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)').run(
      'msg_3a0f00000230IIIIIIIIIIII',
      OLD,
      now,
      now,
      JSON.stringify({ role: 'user', time: { created: now } }),
    );
    w.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)').run(
      'prt_3a0f00000231',
      'msg_3a0f00000230IIIIIIIIIIII',
      OLD,
      now,
      now,
      JSON.stringify({ type: 'text', text: 'and `git rebase --onto`?' }),
    );
    w.close();
    const changed = await run(dir, first.data);
    expect(changed.report).toMatchObject({ sessions: 1, unchanged: 1 });
    expect(changed.byId.get(OLD)!.stats.prompts).toBe(2);
    expectMainSession(changed.byId.get(MAIN)!);
  });

  it('a bad record costs that record only, with a warning naming the database and the row', async () => {
    const { dir, db } = await dbDir();
    const w = new Database(db);
    w.prepare('UPDATE part SET data = \'{"type": "text", "text": \' WHERE id = \'prt_3a0f00000031\'').run();
    w.prepare("UPDATE message SET data = 'not json' WHERE id = 'msg_3a0f00000110EEEEEEEEEEEE'").run();
    w.close();
    const { warnings, byId } = await run(dir);
    expect(warnings).toEqual([
      expect.stringMatching(
        new RegExp(`^${db}: part prt_3a0f00000031 of message msg_3a0f00000030CCCCCCCCCCCC: not valid JSON`),
      ),
      expect.stringMatching(new RegExp(`^${db}: message msg_3a0f00000110EEEEEEEEEEEE: not valid JSON`)),
      `${db}: message msg_3a0f00000110EEEEEEEEEEEE: its 1 parts skipped with it`,
    ]);
    const main = byId.get(MAIN)!;
    expect(main.stats.prompts).toBe(1); // the second prompt's only part was the bad one
    expect(main.stats.toolUsesByName).toMatchObject({ read: 1, edit: 1, bash: 1, task: 1, write: 1 });
  });

  it('a file that is not a database is one warning and no throw', async () => {
    const dir = path.join(await tempDir('opencode-bad'), 'opencode');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'opencode.db'), 'hello');
    const { warnings, report } = await run(dir);
    expect(warnings).toEqual([expect.stringMatching(/opencode\.db: not a SQLite database/)]);
    expect(report.sessions).toBe(0);
  });

  it('reads the older storage/ JSON tree the same way, and skips it beside a database', async () => {
    const dir = path.join(await tempDir('opencode-storage'), 'opencode');
    await writeOpenCodeStorage(dir);
    const before = await digest(dir);
    const { warnings, report, byId, body } = await run(dir);
    expect(warnings).toEqual([]);
    expect(report).toMatchObject({ sessions: 2, found: [path.join(dir, 'storage')] });
    expectMainSession(byId.get(MAIN)!);
    const msgs = (await body(MAIN)).messages;
    expect(msgs[0]!.raw.file_path).toBe(
      path.join(dir, 'storage', 'message', MAIN, 'msg_3a0f00000010AAAAAAAAAAAA.json'),
    );
    expect(await digest(dir)).toEqual(before);
    const again = await run(dir, (await run(dir)).data);
    expect(again.report).toMatchObject({ sessions: 0, unchanged: 2 });

    writeOpenCodeDb(path.join(dir, 'opencode.db'));
    const both = await run(dir);
    expect(both.report).toMatchObject({ sessions: 2, found: [path.join(dir, 'opencode.db')] });
  });

  it('finds the database under XDG_DATA_HOME, the home, OPENCODE_DB and channel databases', async () => {
    const home = await tempDir('opencode-paths');
    const file = await writeDemoOpenCodeDb(home);
    expect(file).toBe(path.join(home, '.local', 'share', 'opencode', 'opencode.db'));
    await fs.copyFile(file, path.join(home, '.local', 'share', 'opencode', 'opencode-dev.db'));
    const ctx = (env: NodeJS.ProcessEnv, options: SourceContext['options'] = {}): SourceContext => ({
      home,
      env,
      options,
      warn: () => {},
      archived: new Set(),
    });
    const xdg = path.join(home, 'xdg');
    await fs.mkdir(path.join(xdg, 'opencode'), { recursive: true });
    await fs.copyFile(file, path.join(xdg, 'opencode', 'opencode.db'));
    const located = await locateOpenCode(ctx({ XDG_DATA_HOME: xdg, OPENCODE_DB: '/elsewhere/my.db' }));
    expect(located.found).toEqual([
      path.join(xdg, 'opencode', 'opencode.db'),
      file,
      path.join(home, '.local', 'share', 'opencode', 'opencode-dev.db'),
    ]);
    expect(located.looked[0]).toBe('/elsewhere/my.db');
    const explicit = await locateOpenCode(ctx({ XDG_DATA_HOME: xdg }, { explicitHome: 'true' }));
    expect(explicit.found).toEqual([file, path.join(home, '.local', 'share', 'opencode', 'opencode-dev.db')]);
  });
});
