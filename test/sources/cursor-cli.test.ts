import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import { collect } from '../../src/collect/collect.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { createCursorSource, cursor } from '../../src/sources/cursor/index.ts';
import { childIds } from '../../src/sources/cursor/store-tree.ts';
import {
  chatDirFor,
  CLI_IDS,
  DEMO_CHAT_CREATED,
  DEMO_CHAT_MTIME,
  demoChatMessages,
  STORE_SECRET,
  writeChatStore,
  writeDemoChatStore,
} from '../helpers/cursor-store.ts';
import { writeCursorDb } from '../helpers/cursor-db.ts';
import { FIXTURE_HOME, tempDir } from '../helpers/paths.ts';

const { F } = CLI_IDS;
const WEBAPP = '/home/alice/work/webapp';

async function run(home: string, dirs: string[], data?: string, source = cursor) {
  const dataDir = data ?? path.join(await tempDir('cursor-cli-data'), 'd');
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

async function home(): Promise<{ home: string; dotCursor: string }> {
  const h = await tempDir('cursor-cli-home');
  return { home: h, dotCursor: path.join(h, '.cursor') };
}

describe('cursor CLI chat stores (store.db)', () => {
  it('reads the demo chat: prompts, thinking, calls joined to results, metadata; nothing written, no key kept', async () => {
    const { home: h, dotCursor } = await home();
    const file = await writeDemoChatStore(h);
    const before = await snapshot(h);
    const { byId, body, warnings, dataDir } = await run(h, [dotCursor]);
    expect(warnings).toEqual([]);
    expect([...byId.keys()]).toEqual([F]);
    expect(await snapshot(h)).toEqual(before); // read-only: no -wal, -shm or journal made beside it
    const f = byId.get(F)!;
    expect(f).toMatchObject({
      source: 'cursor',
      title: 'Dev server warning on start',
      cwd: WEBAPP, // the folder's MD5, matched by a path the chat names
      startedAt: new Date(DEMO_CHAT_CREATED).toISOString(),
      endedAt: new Date(DEMO_CHAT_MTIME).toISOString(), // the store's mtime, within half a day of its creation
      models: ['gpt-5'],
    });
    expect(f.stats.tokens).toEqual({ input: 0, output: 0, cacheRead: 0, cacheCreation: 0 }); // not recorded
    const s = await body(F);
    expect(s.files).toEqual([file]);
    expect(kinds(s.messages)).toEqual([
      'injected', // the system message
      'injected', // <user_info>
      'prompt',
      'response',
      'response', // the Read call
      'tool_result',
      'response', // the Shell call
      'tool_result',
      'response',
    ]);
    expect(s.messages.every((m) => m.timestamp_estimated)).toBe(true); // messages carry no times
    const prompt = s.messages[2]!;
    expect(prompt.segments[0]!.text).toBe('Why does the dev server print a warning on start?');
    // The first message is dated by the chat's creation, the last by the store's mtime, the others as Cursor's
    // other undated records are: by the dated one before them. All are estimates.
    expect(s.messages[0]!.timestamp).toBe(new Date(DEMO_CHAT_CREATED).toISOString());
    expect(prompt.timestamp).toBe(new Date(DEMO_CHAT_CREATED).toISOString());
    expect(s.messages.at(-2)!.timestamp).toBe(new Date(DEMO_CHAT_CREATED).toISOString());
    const answer = s.messages[3]!;
    expect(answer.segments.map((g) => [g.format, g.text])).toEqual([
      ['thinking', 'Check the dev script first.'],
      ['text', 'Let me look at the dev script.'],
    ]);
    expect(answer.metadata).toMatchObject({ model: 'gpt-5' });
    expect(answer.metadata?.usage).toBeUndefined();
    const read = s.messages[4]!.tool_call!;
    expect(read).toMatchObject({
      call_id: 'call_f1',
      name: 'Read',
      status: 'completed',
      arguments_json: { path: `${WEBAPP}/package.json` },
      result_id: s.messages[5]!.id,
    });
    expect(s.messages[5]!.tool_call).toMatchObject({ output: '{ "scripts": { "dev": "node --watch server.js" } }' });
    expect(s.messages[7]!.tool_call).toMatchObject({ name: 'Shell', output: 'v18.19.0', status: 'completed' });
    expect(s.messages.at(-1)!.timestamp).toBe(new Date(DEMO_CHAT_MTIME).toISOString());
    expect(s.messages[4]!.raw?.file_path).toBe(file);
    const archive = await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8');
    const bodyText = await fs.readFile(path.join(dataDir, byId.get(F)!.body), 'utf8').catch(() => '');
    expect(archive + bodyText + JSON.stringify(s)).not.toContain(STORE_SECRET);
  });

  it('the demo home holds the CLI chat (made at test setup)', async () => {
    const { byId } = await run(FIXTURE_HOME, [path.join(FIXTURE_HOME, '.cursor')]);
    expect(byId.get(F)).toMatchObject({ title: 'Dev server warning on start', cwd: WEBAPP });
  });

  it('reads a store in WAL mode in place while the CLI has it open, uncheckpointed rows included', async () => {
    const { home: h, dotCursor } = await home();
    const dir = chatDirFor(h, WEBAPP, F);
    await fs.mkdir(dir, { recursive: true });
    const messages = demoChatMessages();
    const { file, db } = writeChatStore(
      dir,
      { agentId: F, createdAt: Date.parse(DEMO_CHAT_CREATED), messages, nested: true },
      { keepOpen: true },
    );
    try {
      await expect(fs.stat(`${file}-wal`)).resolves.toBeDefined();
      const before = await snapshot(h);
      const { byId, body, warnings } = await run(h, [dotCursor]);
      expect(warnings).toEqual([]);
      const s = await body(F);
      expect(s.messages.filter((m) => m.metadata?.kind === 'prompt')).toHaveLength(1);
      expect(s.messages.at(-1)!.segments[0]!.text).toMatch(/^Node 18 marks/); // a nested tree, in order
      expect(s.files).toEqual([file, `${file}-wal`]);
      expect(byId.get(F)!.title).toBe('Why does the dev server print a warning on start?'); // no name: the prompt
      const after = await snapshot(h);
      expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
      expect(after.get(file)).toBe(before.get(file));
    } finally {
      db!.close();
    }
  });

  it('a chat in a transcript and a store is one session: the richer copy gives the messages', async () => {
    const { home: h, dotCursor } = await home();
    const transcripts = path.join(dotCursor, 'projects', 'home-alice-work-webapp', 'agent-transcripts', F);
    await fs.mkdir(transcripts, { recursive: true });
    const line = (role: string, content: unknown[]) => JSON.stringify({ role, message: { content } });
    const transcript = path.join(transcripts, `${F}.jsonl`);
    await fs.writeFile(
      transcript,
      [
        line('user', [
          { type: 'text', text: '<user_query>\nWhy does the dev server print a warning on start?\n</user_query>' },
        ]),
        line('assistant', [{ type: 'tool_use', name: 'Read', input: { path: `${WEBAPP}/package.json` } }]),
        line('assistant', [{ type: 'text', text: 'Node 18 marks `--watch` as experimental.' }]),
      ].join('\n') + '\n',
    );
    const dir = chatDirFor(h, WEBAPP, F);
    await fs.mkdir(dir, { recursive: true });
    const { file } = writeChatStore(dir, { agentId: F, name: 'From the store', messages: demoChatMessages() });
    const { byId, body, report } = await run(h, [dotCursor]);
    expect(report.sources[0]).toMatchObject({ sessions: 1 });
    const s = await body(F);
    expect(s.files.sort()).toEqual([file, transcript].sort());
    expect(byId.get(F)!.title).toBe('From the store');
    expect(s.messages.filter((m) => m.source_type === 'tool_result')).toHaveLength(2); // the store's results

    // A store holding fewer prompts than the transcript: the transcript is the richer copy.
    await fs.appendFile(
      transcript,
      line('user', [{ type: 'text', text: '<user_query>\nAnd in CI?\n</user_query>' }]) + '\n',
    );
    const again = await run(h, [dotCursor]);
    const t = await again.body(F);
    expect(t.messages.filter((m) => m.metadata?.kind === 'prompt').map((m) => m.segments[0]!.text)).toEqual([
      'Why does the dev server print a warning on start?',
      'And in CI?',
    ]);
    expect(t.messages.filter((m) => m.source_type === 'tool_result')).toHaveLength(0);
    expect(again.byId.get(F)!.models).toEqual(['gpt-5']); // named by the store's reasoning block all the same
  });

  it('a chat also in the editor database: its bubbles give the messages, the store adds its model', async () => {
    const { home: h, dotCursor } = await home();
    const dir = chatDirFor(h, WEBAPP, F);
    await fs.mkdir(dir, { recursive: true });
    const { file } = writeChatStore(dir, { agentId: F, name: 'From the store', messages: demoChatMessages() });
    const db = path.join(h, 'state.vscdb');
    const bubble = (fields: Record<string, unknown>) => JSON.stringify({ _v: 3, ...fields });
    writeCursorDb(db, [
      [
        `composerData:${F}`,
        JSON.stringify({
          _v: 10,
          composerId: F,
          name: 'From the editor',
          createdAt: Date.parse('2026-03-12T14:00:00Z'),
          lastUpdatedAt: Date.parse('2026-03-12T14:00:09Z'),
          fullConversationHeadersOnly: [
            { bubbleId: 'b1', type: 1 },
            { bubbleId: 'b2', type: 2 },
          ],
        }),
      ],
      [`bubbleId:${F}:b1`, bubble({ type: 1, text: 'Why the warning?', createdAt: '2026-03-12T14:00:00Z' })],
      [
        `bubbleId:${F}:b2`,
        bubble({
          type: 2,
          text: 'Node 18.',
          createdAt: '2026-03-12T14:00:09Z',
          tokenCount: { inputTokens: 900, outputTokens: 12 },
        }),
      ],
    ]);
    const { byId, body } = await run(h, [dotCursor, db]);
    expect(byId.get(F)).toMatchObject({
      title: 'From the editor',
      models: ['gpt-5'],
      startedAt: '2026-03-12T14:00:00.000Z',
    });
    expect(byId.get(F)!.stats.tokens).toMatchObject({ input: 900, output: 12 });
    const s = await body(F);
    expect(s.files.sort()).toEqual([db, file].sort());
    expect(s.messages.map((m) => m.segments[0]?.text)).toEqual(['Why the warning?', 'Node 18.']);
  });

  it('an unchanged store is not opened again; a changed one is read again', async () => {
    const { home: h, dotCursor } = await home();
    const dir = chatDirFor(h, WEBAPP, F);
    await fs.mkdir(dir, { recursive: true });
    const messages = demoChatMessages();
    writeChatStore(dir, { agentId: F, messages: messages.slice(0, 4) });
    const sql: string[] = [];
    const source = createCursorSource({ onSql: (s) => sql.push(s) });
    const first = await run(h, [dotCursor], undefined, source);
    expect(first.report.sources[0]).toMatchObject({ sessions: 1 });
    expect(sql.some((s) => /FROM blobs/.test(s))).toBe(true);
    sql.length = 0;
    const second = await run(h, [dotCursor], first.dataDir, source);
    expect(second.report.sources[0]).toMatchObject({ sessions: 0, unchanged: 1 });
    expect(sql).toEqual([]);

    await fs.rm(path.join(dir, 'store.db'));
    writeChatStore(dir, { agentId: F, messages });
    const third = await run(h, [dotCursor], first.dataDir, source);
    expect(third.report.sources[0]).toMatchObject({ sessions: 1, unchanged: 0 });
    expect((await third.body(F)).messages.at(-1)!.segments[0]!.text).toMatch(/^Node 18 marks/);
  });

  it('meta.json beside the store gives the cwd and the last update, a day later too', async () => {
    const { home: h, dotCursor } = await home();
    const dir = path.join(dotCursor, 'chats', 'not-a-hash', F);
    await fs.mkdir(dir, { recursive: true });
    writeChatStore(dir, {
      agentId: F,
      createdAt: Date.parse('2026-03-01T10:00:00Z'),
      messages: demoChatMessages('/srv/x'),
    });
    await fs.writeFile(
      path.join(dir, 'meta.json'),
      JSON.stringify({
        schemaVersion: 1,
        createdAtMs: 1,
        updatedAtMs: Date.parse('2026-03-02T10:30:00Z'),
        cwd: '/srv/api',
        title: 'T',
      }),
    );
    const { byId, body } = await run(h, [dotCursor]);
    expect(byId.get(F)).toMatchObject({
      cwd: '/srv/api',
      endedAt: '2026-03-02T10:30:00.000Z',
      startedAt: '2026-03-01T10:00:00.000Z',
    });
    expect((await body(F)).files).toEqual([path.join(dir, 'store.db'), path.join(dir, 'meta.json')]);
  });

  it('a user message of context tags only is injected context; other roles are kept as unknown', async () => {
    const { home: h, dotCursor } = await home();
    const dir = chatDirFor(h, WEBAPP, F);
    await fs.mkdir(dir, { recursive: true });
    const context = '<user_info>\nOS: linux\n</user_info>\n<rules>\n<rule>be brief</rule>\n</rules>';
    const messages = [
      { role: 'user', content: [{ type: 'text', text: context }] },
      { role: 'user', content: 'plain words, <b>typed</b>' },
      { role: 'critic', content: 'a role never seen' },
    ];
    writeChatStore(dir, { agentId: F, messages });
    const { body, warnings } = await run(h, [dotCursor]);
    expect(warnings).toEqual([]);
    const s = await body(F);
    expect(kinds(s.messages)).toEqual(['injected', 'prompt', 'unknown']);
    expect(s.messages[0]!.segments[0]!.text).toBe(context);
    expect(s.messages[1]!.segments[0]!.text).toBe('plain words, <b>typed</b>');
    expect(s.messages[2]!.raw).toMatchObject({ record: { role: 'critic' } });
  });

  it('a store touched months later does not end on that day', async () => {
    const { home: h, dotCursor } = await home();
    const dir = chatDirFor(h, WEBAPP, F);
    await fs.mkdir(dir, { recursive: true });
    const { file } = writeChatStore(dir, {
      agentId: F,
      createdAt: Date.parse(DEMO_CHAT_CREATED),
      messages: demoChatMessages(),
    });
    const later = new Date('2026-09-01T00:00:00Z');
    await fs.utimes(file, later, later);
    const { byId } = await run(h, [dotCursor]);
    expect(byId.get(F)).toMatchObject({ startedAt: '2026-03-12T15:00:00.000Z', endedAt: '2026-03-12T15:00:00.000Z' });
  });

  it('a corrupt or foreign store costs one warning naming it; a missing blob costs that message only', async () => {
    const { home: h, dotCursor } = await home();
    const good = chatDirFor(h, WEBAPP, F);
    await fs.mkdir(good, { recursive: true });
    writeChatStore(good, { agentId: F, messages: demoChatMessages(), missing: [4] });
    const corrupt = path.join(dotCursor, 'chats', 'aa', 'c0c0c0c0-0000-4000-8000-000000000001', 'store.db');
    await fs.mkdir(path.dirname(corrupt), { recursive: true });
    await fs.writeFile(corrupt, 'this is not a database');
    const foreign = path.join(dotCursor, 'chats', 'aa', 'c0c0c0c0-0000-4000-8000-000000000002', 'store.db');
    await fs.mkdir(path.dirname(foreign), { recursive: true });
    const other = new (await import('better-sqlite3')).default(foreign);
    other.exec('CREATE TABLE notes (x TEXT)');
    other.close();
    const empty = path.join(dotCursor, 'chats', 'aa', 'c0c0c0c0-0000-4000-8000-000000000003');
    await fs.mkdir(empty, { recursive: true });
    writeChatStore(empty, { agentId: 'c0c0c0c0-0000-4000-8000-000000000003', messages: [], noRoot: true });

    const { byId, body, warnings } = await run(h, [dotCursor]);
    expect([...byId.keys()]).toEqual([F]); // the empty chat (no root yet) is no session, and no warning
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(new RegExp(`^${corrupt}:: not a SQLite database`));
    expect(warnings[1]).toMatch(new RegExp(`^${foreign}:: not a Cursor CLI chat store`));
    expect(warnings[2]).toMatch(
      new RegExp(`^${path.join(good, 'store.db')}:5: blob [0-9a-f]{64}: not stored; skipped$`),
    );
    const s = await body(F);
    expect(s.messages.filter((m) => m.source_type === 'tool_call').map((m) => m.tool_call!.name)).toEqual(['Read']);
  });

  it('a store that turns unreadable keeps the chat collected from it', async () => {
    const { home: h, dotCursor } = await home();
    const file = await writeDemoChatStore(h);
    const first = await run(h, [dotCursor]);
    const before = await first.body(F);
    await fs.writeFile(file, 'garbage now');
    const second = await run(h, [dotCursor], first.dataDir);
    expect(second.warnings).toEqual([
      `${file}:: not a SQLite database (no "SQLite format 3" header); skipped this run, a chat collected earlier stays in the archive`,
    ]);
    expect(second.byId.get(F)).toMatchObject({ title: 'Dev server warning on start', sourcePresent: true });
    expect((await second.body(F)).messages).toEqual(before.messages);
  });

  it('--cursor-dir may name a chats folder or one store.db', async () => {
    const { home: h, dotCursor } = await home();
    const file = await writeDemoChatStore(h);
    expect([...(await run(h, [path.join(dotCursor, 'chats')])).byId.keys()]).toEqual([F]);
    expect([...(await run(h, [file])).byId.keys()]).toEqual([F]);
  });
});

describe('store tree nodes', () => {
  it('takes field 1 ids only, walking keys; refuses a field 1 that is not 32-byte ids', () => {
    const id = (n: number) => Buffer.alloc(32, n);
    const f = (n: number, b: Buffer) => Buffer.concat([Buffer.from([(n << 3) | 2, b.length]), b]);
    const node = Buffer.concat([f(1, id(1)), f(3, Buffer.from([0x0a, 0x20])), f(8, id(8)), f(1, id(2))]);
    expect(childIds(node)).toEqual([id(1).toString('hex'), id(2).toString('hex')]);
    expect(childIds(Buffer.concat([f(1, id(1)), f(1, Buffer.from('short'))]))).toBeUndefined();
    expect(childIds(Buffer.from([0x08, 0x01]))).toBeUndefined(); // field 1 as a varint
    expect(childIds(Buffer.from([0x0a, 0x20, 0x01]))).toBeUndefined(); // cut short
    expect(childIds(Buffer.alloc(0))).toEqual([]);
  });
});
