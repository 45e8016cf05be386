import { createHash } from 'node:crypto';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { Session } from '../../src/model/session.ts';
import { amazonQ, createAmazonQSource } from '../../src/sources/amazon-q/index.ts';
import type { Source, SourceContext } from '../../src/sources/source.ts';
import { sessionStats } from '../../src/stats/session-stats.ts';
import type { CollectWarning } from '../../src/util/warnings.ts';
import {
  AMAZONQ_FIXTURES,
  FIXTURE_DB_MTIME,
  Q_FILES,
  Q_IDS,
  Q_SECRET,
  createQDatabase,
  loadQFixture,
  putConversation,
  writeDemoDatabases,
} from '../helpers/amazonq-db.ts';
import { noteSamples, SAMPLES, tempDir } from '../helpers/paths.ts';

const SAMPLE = path.join(SAMPLES, 'amazonq', 'snapcastclient-q-save.json');
/** A conversation as `/save` writes it, from our own fixtures (the real export is a sample, not always there). */
const SAVED = path.join(AMAZONQ_FIXTURES, Q_FILES.D);
const WEBAPP = '/home/alice/work/webapp';
const API = '/home/alice/work/api';
const NOTES = '/home/alice/notes/日本語';
const MTIME = FIXTURE_DB_MTIME.toISOString();

function context(home: string, overrides: Partial<SourceContext> = {}): SourceContext & { warnings: CollectWarning[] } {
  const warnings: CollectWarning[] = [];
  return {
    home,
    env: {},
    options: { explicitHome: 'true' },
    warn: (w) => warnings.push(w),
    archived: new Set(),
    warnings,
    ...overrides,
  };
}

async function readAll(
  ctx: SourceContext,
  source: Source = amazonQ,
): Promise<{ sessions: Map<string, Session>; order: string[] }> {
  const sessions = new Map<string, Session>();
  const order: string[] = [];
  const location = await source.locate(ctx);
  for await (const item of source.read(location, ctx)) {
    if (item.kind !== 'session') continue;
    sessions.set(item.session.sessionId, item.session);
    order.push(item.session.sessionId);
  }
  return { sessions, order };
}

/** Reads the given databases / exports only. */
async function readFiles(
  files: { db?: string[]; json?: string[] },
  extra: Partial<SourceContext> = {},
  source: Source = amazonQ,
) {
  const ctx = context('/nonexistent-home', {
    options: { explicitHome: 'true', amazonqDb: files.db ?? [], amazonqJson: files.json },
    ...extra,
  });
  const result = await readAll(ctx, source);
  return { ...result, warnings: ctx.warnings };
}

const text = (m: NormalizedMessage) =>
  m.segments
    .filter((s) => s.type === 'text')
    .map((s) => s.text)
    .join('\n');
const kinds = (messages: NormalizedMessage[]) => messages.map((m) => m.metadata?.kind ?? m.source_type);

async function snapshot(dir: string): Promise<Record<string, { sha: string; mtimeMs: number }>> {
  const out: Record<string, { sha: string; mtimeMs: number }> = {};
  for (const name of (await fs.readdir(dir)).sort()) {
    const file = path.join(dir, name);
    const [bytes, stat] = await Promise.all([fs.readFile(file), fs.stat(file)]);
    out[name] = { sha: createHash('sha256').update(bytes).digest('hex'), mtimeMs: stat.mtimeMs };
  }
  return out;
}

describe('Amazon Q source: locating', () => {
  it('looks in the Linux and macOS data dirs of amazon-q and kiro-cli under --home, ignoring the environment', async () => {
    const home = '/home/alice';
    const location = await amazonQ.locate(context(home, { env: { XDG_DATA_HOME: '/xdg' } }));
    expect(location.looked).toEqual([
      '/home/alice/.local/share/amazon-q/data.sqlite3',
      '/home/alice/Library/Application Support/amazon-q/data.sqlite3',
      '/home/alice/.local/share/kiro-cli/data.sqlite3',
      '/home/alice/Library/Application Support/kiro-cli/data.sqlite3',
    ]);
    expect(location.found).toEqual([]);
  });

  it('adds $XDG_DATA_HOME for the real home; --amazonq-db replaces the defaults, --amazonq-json adds files', async () => {
    const home = await tempDir('q-locate');
    const [qDb] = await writeDemoDatabases(home);
    const xdg = await amazonQ.locate(context(home, { options: {}, env: { XDG_DATA_HOME: '/xdg' } }));
    expect(xdg.looked.slice(4)).toEqual(['/xdg/amazon-q/data.sqlite3', '/xdg/kiro-cli/data.sqlite3']);
    expect(xdg.found).toEqual([
      path.join(home, '.local/share/amazon-q/data.sqlite3'),
      path.join(home, '.local/share/kiro-cli/data.sqlite3'),
    ]);
    const flagged = await amazonQ.locate(
      context(home, { options: { amazonqDb: [qDb!, '/nowhere/data.sqlite3'], amazonqJson: [SAVED] } }),
    );
    expect(flagged).toEqual({ looked: [qDb!, '/nowhere/data.sqlite3', SAVED], found: [qDb!, SAVED] });
  });
});

describe('Amazon Q source: the demo databases (Q v1 rows in both history forms, Kiro v2 rows)', () => {
  let home: string;
  let qDb: string;
  let kiroDb: string;
  let sessions: Map<string, Session>;
  let order: string[];
  let warnings: CollectWarning[];
  let before: Record<string, Record<string, { sha: string; mtimeMs: number }>>;
  const sql: string[] = [];

  beforeAll(async () => {
    home = await tempDir('q-demo');
    [qDb, kiroDb] = (await writeDemoDatabases(home)) as [string, string];
    before = { q: await snapshot(path.dirname(qDb)), kiro: await snapshot(path.dirname(kiroDb)) };
    const ctx = context(home);
    ({ sessions, order } = await readAll(ctx, createAmazonQSource({ onSql: (s) => sql.push(s) })));
    warnings = ctx.warnings;
  });
  const session = (id: string) => {
    const s = sessions.get(id);
    if (!s) throw new Error(`session ${id} not read`);
    return s;
  };

  it('reads the four conversations, rows in key order, with no warnings', () => {
    expect(order).toEqual([Q_IDS.B, Q_IDS.A, Q_IDS.C, Q_IDS.D]);
    expect(warnings).toEqual([]);
  });

  // Expected numbers: fixtures/AMAZONQ.md, "Expected values", each counted by hand there.
  it.each([
    [
      Q_IDS.A,
      { prompts: 3, entries: 5, toolRounds: 3, toolUses: 4, toolErrors: 1, messages: 15, pattern: 'multi_tool' },
    ],
    [Q_IDS.B, { prompts: 2, entries: 2, toolRounds: 0, toolUses: 0, toolErrors: 0, messages: 4, pattern: 'simple' }],
    [
      Q_IDS.C,
      { prompts: 1, entries: 2, toolRounds: 2, toolUses: 3, toolErrors: 0, messages: 8, pattern: 'incomplete' },
    ],
    [
      Q_IDS.D,
      { prompts: 3, entries: 6, toolRounds: 3, toolUses: 4, toolErrors: 0, messages: 17, pattern: 'multi_tool' },
    ],
  ])('conversation %s has the hand-counted statistics', (id, expected) => {
    const stats = sessionStats(session(id));
    expect({
      prompts: stats.prompts,
      entries: stats.entries,
      toolRounds: stats.toolRounds,
      toolUses: stats.toolUses,
      toolErrors: stats.toolErrors,
      messages: stats.messages,
      pattern: stats.pattern,
    }).toEqual(expected);
    expect(stats.tokens).toEqual({ input: 0, output: 0, cacheRead: 0, cacheCreation: 0 });
    expect(session(id).messages.some((m) => m.metadata?.usage !== undefined)).toBe(false);
  });

  it('counts tool uses by name', () => {
    expect(sessionStats(session(Q_IDS.A)).toolUsesByName).toEqual({ fs_read: 2, execute_bash: 1, fs_write: 1 });
    expect(sessionStats(session(Q_IDS.C)).toolUsesByName).toEqual({ execute_bash: 1, fs_read: 1, search_issues: 1 });
    expect(sessionStats(session(Q_IDS.D)).toolUsesByName).toEqual({ fs_read: 1, fs_write: 2, execute_bash: 1 });
  });

  it('takes session id, project, title, models and product from the row', () => {
    const a = session(Q_IDS.A);
    expect(a).toMatchObject({
      source: 'amazon-q',
      sessionId: Q_IDS.A,
      cwd: WEBAPP,
      title: 'Why does the login page redirect twice after sign-in?',
      models: ['CLAUDE_SONNET_4_20250514_V1_0'],
      files: [qDb],
      subagents: [],
    });
    expect(a.cliVersion).toBeUndefined();
    expect(session(Q_IDS.B)).toMatchObject({ cwd: NOTES, title: 'このスクリーンショットのエラーを説明してください。' });
    expect(session(Q_IDS.C)).toMatchObject({ cwd: API, cliVersion: 'Kiro CLI', files: [kiroDb] });
    expect(session(Q_IDS.D)).toMatchObject({ cwd: API, title: 'Add cursor pagination to GET /orders' });
  });

  it('tuple form: one history element is one entry; its messages share the response id', () => {
    const a = session(Q_IDS.A);
    expect(a.messages.map((m) => m.id.split('#')[1])).toEqual([
      'h0.0', 'h0.1', 'h0.2', // Prompt, ToolUse prose, fs_read
      'h1.0', 'h1.1', 'h1.2', // ToolUseResults, execute_bash, fs_read (no prose: content '')
      'h2.0', 'h2.1', 'h2.2', // 2 results, Response
      'h3.0', 'h3.1', 'h3.2', // Prompt, prose, fs_write
      'h4.0', 'h4.1', 'h4.2', // cancelled result, the cancelling prompt, Response
    ]); // prettier-ignore
    expect(a.messages.map((m) => m.raw.event_type)).toEqual([
      'Prompt', 'ToolUse', 'ToolUse', 'ToolUseResults', 'ToolUse', 'ToolUse', 'ToolUseResults', 'ToolUseResults',
      'Response', 'Prompt', 'ToolUse', 'ToolUse', 'CancelledToolUses', 'CancelledToolUses', 'Response',
    ]); // prettier-ignore
    expect(a.messages.map((m) => m.raw.line_index)).toEqual([1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 5, 5, 5]);
    expect(a.messages.every((m) => m.raw.file_path === qDb && m.raw.payload_type?.startsWith('tuple'))).toBe(true);
    const h1 = a.messages.filter((m) => m.raw.line_index === 2 && m.source_type === 'tool_call');
    expect(new Set(h1.map((m) => m.metadata?.response_id))).toEqual(
      new Set(['h:a0000000-0000-4000-8000-000000000002']),
    );
    expect(a.messages[0]).toMatchObject({ role: 'user', source_type: 'message', metadata: { kind: 'prompt' } });
    expect(a.messages[1]).toMatchObject({ role: 'assistant', source_type: 'message', metadata: { kind: 'response' } });
    expect(a.messages[13]).toMatchObject({ role: 'user', metadata: { kind: 'prompt' } });
    expect(text(a.messages[13]!)).toBe("Don't write yet, show me the diff first");
  });

  it('links tool uses to results by tool_use_id: error, parallel calls, cancelled = rejected', () => {
    const a = session(Q_IDS.A);
    const calls = a.messages.filter((m) => m.source_type === 'tool_call');
    const byId = new Map(a.messages.map((m) => [m.id, m]));
    expect(calls.map((m) => [m.tool_call!.call_id, m.tool_call!.name, m.tool_call!.status])).toEqual([
      ['tooluse_A1readRouter', 'fs_read', 'completed'],
      ['tooluse_A2grep', 'execute_bash', 'error'],
      ['tooluse_A3readGuard', 'fs_read', 'completed'],
      ['tooluse_A4write', 'fs_write', 'rejected'],
    ]);
    for (const call of calls) {
      const result = byId.get(call.tool_call!.result_id!)!;
      expect(result).toMatchObject({ role: 'tool', source_type: 'tool_result' });
      expect(result.tool_call).toMatchObject({ call_id: call.tool_call!.call_id, name: call.tool_call!.name });
      expect(result.tool_call!.status).toBe(call.tool_call!.status);
    }
    expect(calls[1]!.tool_call!.arguments_json).toEqual({
      command: 'grep -rn navigate src/',
      summary: 'Find the redirects',
    });
    expect(JSON.parse(calls[1]!.tool_call!.arguments!)).toEqual(calls[1]!.tool_call!.arguments_json);
    const grepResult = byId.get(calls[1]!.tool_call!.result_id!)!;
    expect(grepResult.tool_call!.output_json).toEqual({
      exit_status: '2',
      stdout: '',
      stderr: 'grep: src/: No such file or directory',
    });
    expect(byId.get(calls[3]!.tool_call!.result_id!)!.tool_call!.output).toBe('Tool use was cancelled by the user');
  });

  it('estimates times from the database mtime when the rows have none (tuple-form builds)', () => {
    const a = session(Q_IDS.A);
    expect(a.messages.every((m) => m.timestamp === MTIME && m.timestamp_estimated === true)).toBe(true);
    expect(a.messages[0]!.id).toBe(`${MTIME}#h0.0`);
    expect([a.startedAt, a.endedAt]).toEqual([MTIME, MTIME]);
  });

  it('object form: user timestamps (any offset) and request_metadata epoch ms, not estimated', () => {
    const b = session(Q_IDS.B);
    expect(b.messages.map((m) => [m.timestamp, m.timestamp_estimated ?? false, m.metadata?.kind])).toEqual([
      ['2026-03-10T00:00:00.123Z', false, 'prompt'], // "2026-03-10T09:00:00.123456+09:00"
      ['2026-03-10T00:00:06.000Z', false, 'response'], // stream_end_timestamp_ms 1773100806000
      ['2026-03-10T00:05:00.000Z', false, 'prompt'],
      ['2026-03-10T00:05:04.000Z', false, 'response'],
    ]);
    expect(b.messages[1]!.metadata).toMatchObject({ model: 'claude-sonnet-4.5' });
    expect(b.messages.every((m) => m.raw.payload_type === 'object')).toBe(true);
    expect(JSON.stringify(b)).not.toContain('time_between_chunks');
  });

  it('keeps a prompt image (a JSON byte array) as an image segment with its size and a data URI', () => {
    const prompt = session(Q_IDS.B).messages[0]!;
    const image = prompt.segments.find((s) => s.type === 'image')!;
    expect(image.media).toMatchObject({ media_type: 'image/png', size_bytes: 69 });
    expect(image.media!.data_uri).toBe(
      'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
    );
  });

  it('Kiro v2: a conversation whose last response is ToolUse ends with tool calls; next_message holds their results', () => {
    const c = session(Q_IDS.C);
    const last = c.messages.filter((m) => m.metadata?.response_id).pop()!;
    expect(last.source_type).toBe('tool_call');
    const pending = c.messages.filter((m) => m.id.split('#')[1]!.startsWith('n'));
    expect(pending.map((m) => [m.tool_call!.name, m.tool_call!.status, m.timestamp_estimated])).toEqual([
      ['fs_read', 'completed', true],
      ['search_issues', 'completed', true],
    ]);
    expect(pending.every((m) => m.raw.payload_type === 'next_message' && m.raw.line_index === 3)).toBe(true);
    const issues = pending[1]!;
    expect(issues.tool_call!.output).toBe('#42 orders.test.ts is flaky on CI');
    expect(issues.tool_call!.output_json).toMatchObject({ isError: false });
    const call = c.messages.find((m) => m.tool_call?.call_id === 'tooluse_C3issues' && m.source_type === 'tool_call')!;
    expect(call.tool_call!.result_id).toBe(issues.id);
    // The prompt's "+01:00" time, request_metadata for the rest; the pending results follow the last data time.
    expect(c.messages.map((m) => m.timestamp)).toEqual([
      '2026-03-12T13:00:00.000Z',
      '2026-03-12T13:00:03.000Z',
      '2026-03-12T13:00:03.000Z',
      '2026-03-12T13:00:10.000Z',
      '2026-03-12T13:00:12.000Z',
      '2026-03-12T13:00:12.000Z',
      '2026-03-12T13:00:12.000Z',
      '2026-03-12T13:00:12.000Z',
    ]);
  });

  it('after /compact: the transcript is rendered as the fallback, then the summary', () => {
    const d = session(Q_IDS.D);
    expect(kinds(d.messages)).toEqual([
      'system_event', // the notice
      'prompt',
      'response', 'response', // entry 1: prose + fs_read
      'response', 'response', 'response', // entry 2: prose + fs_write + execute_bash
      'command', // "> y" answering a tool permission question
      'response',
      'prompt', // multi-line prompt
      'response', 'response',
      'interrupt', // Q's own "Tool uses were interrupted" message (still an entry)
      'prompt', // "> y" after an answer without tools: a real prompt
      'response',
      'command', // /compact
      'compact_summary',
    ]); // prettier-ignore
    const fallback = d.messages.slice(0, -1);
    expect(fallback.every((m) => m.metadata?.transcript_fallback === true && m.raw.event_type === 'transcript')).toBe(
      true,
    );
    expect(d.messages[0]).toMatchObject({ role: 'system', metadata: { subtype: 'Transcript fallback' } });
    expect(text(d.messages[9]!)).toBe('Use this response shape:\n\n{ items, next_cursor }');
    expect(d.messages[7]!.metadata).toMatchObject({ kind: 'command', subtype: 'tool_approval' });
    const summary = d.messages[d.messages.length - 1]!;
    expect(summary).toMatchObject({
      role: 'system',
      timestamp: '2026-03-14T10:20:08.000Z',
      metadata: { kind: 'compact_summary', model: 'claude-sonnet-4.5' },
    });
    expect(summary.timestamp_estimated).toBeUndefined();
    expect(text(summary)).toMatch(/^## CONVERSATION SUMMARY\n\* Added cursor pagination/);
    // created_at for the first entry, the summary's time for the rest; all marked estimated.
    expect(d.messages[1]).toMatchObject({ timestamp: '2026-03-14T10:00:00.000Z', timestamp_estimated: true });
    expect(d.messages[2]).toMatchObject({ timestamp: '2026-03-14T10:20:08.000Z', timestamp_estimated: true });
  });

  it('runs only queries on sqlite_master, conversations and conversations_v2, and never sees a secret', () => {
    expect(sql.length).toBeGreaterThanOrEqual(4);
    for (const statement of sql) {
      const tables = [...statement.matchAll(/\bFROM\s+(\w+)/gi)].map((m) => m[1]);
      expect(tables.length).toBeGreaterThan(0);
      for (const table of tables) expect(['sqlite_master', 'conversations', 'conversations_v2']).toContain(table);
      expect(statement).not.toMatch(/auth_kv|\bstate\b/);
    }
    expect(JSON.stringify([...sessions.values()])).not.toContain(Q_SECRET);
  });

  it('leaves the databases untouched: same bytes, same mtime, no new files beside them', async () => {
    expect(await snapshot(path.dirname(qDb))).toEqual(before.q);
    expect(await snapshot(path.dirname(kiroDb))).toEqual(before.kiro);
  });

  it('gives every message the normalized shape with a unique, stable id', () => {
    for (const s of sessions.values()) {
      for (const m of s.messages) {
        expect(m.id).toBe(`${m.timestamp}#${m.id.split('#')[1]}`);
        expect(m.id).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[\w.-]+$/);
        expect(m.raw.line_index).toBeGreaterThan(0);
        expect(m.raw.file_path).toMatch(/data\.sqlite3$/);
        if (m.source_type === 'tool_call' || m.metadata?.kind === 'response')
          expect(m.metadata?.response_id).toBeTruthy();
      }
      expect(new Set(s.messages.map((m) => m.id)).size).toBe(s.messages.length);
    }
  });
});

describe.skipIf(!noteSamples('the real Amazon Q /save export'))(
  'Amazon Q source: the real /save export (snapcastclient-q-save.json, post-/compact)',
  () => {
    let s: Session;
    beforeAll(async () => {
      const { sessions, warnings } = await readFiles({ json: [SAMPLE] });
      expect(warnings).toEqual([]);
      s = sessions.get('40559d56-3f0a-45be-b9ce-82a6dcd98448')!;
    });

    // Counted with a separate script over the 250 transcript entries (fixtures/AMAZONQ.md, "The /save sample"):
    // 25 "> " entries = 6 slash commands + 5 "t" tool approvals + 14 prompts; the other 225 all end in
    // "[Tool uses: …]": 14 with "none", 211 with one tool each.
    it('renders the 250-entry transcript with the hand-checked counts', () => {
      const stats = sessionStats(s);
      expect({
        prompts: stats.prompts,
        entries: stats.entries,
        toolRounds: stats.toolRounds,
        toolUses: stats.toolUses,
        pattern: stats.pattern,
      }).toEqual({ prompts: 14, entries: 225, toolRounds: 211, toolUses: 211, pattern: 'multi_tool' });
      expect(stats.toolUsesByName).toEqual({
        execute_bash: 119,
        fs_write: 56,
        fs_read: 31,
        get_file_contents: 2,
        list_notifications: 1,
        search_code: 1,
        search_issues: 1,
      });
      expect(s.messages.filter((m) => m.metadata?.kind === 'command').map(text)).toEqual([
      't', 't', 't', 't', 't', '/comapct', '/compact', '/save', '/save .', '/save . -f', '/save q',
    ]); // prettier-ignore
      expect(s.messages.filter((m) => m.metadata?.kind === 'interrupt')).toHaveLength(4);
      // 1 notice + 25 user entries + 156 prose messages (69 entries have no prose) + 211 tool calls + 1 summary.
      expect(s.messages).toHaveLength(394);
    });

    it('takes the title from the first real prompt and unescapes multi-line prompts', () => {
      expect(s.title).toBe('now check for necessary new tests and create them');
      const prompts = s.messages.filter((m) => m.metadata?.kind === 'prompt');
      expect(text(prompts[1]!)).toMatch(
        /^let's update the methods names to make them more standard\n\n• Test_createCommand/,
      );
      expect(text(prompts[1]!)).not.toContain('> \n');
    });

    it('shows latest_summary (a [text, request_metadata] tuple) with its own time and the legacy model string', () => {
      const summary = s.messages[s.messages.length - 1]!;
      expect(summary.metadata?.kind).toBe('compact_summary');
      expect(text(summary)).toHaveLength(2263);
      expect(summary.timestamp).toBe('2025-08-02T12:48:42.692Z'); // stream_end_timestamp_ms 1754138922692
      expect(summary.timestamp_estimated).toBeUndefined();
      expect(s.models).toEqual(['CLAUDE_SONNET_4_20250514_V1_0']);
      // The transcript has no times: every entry is placed at the summary's time, marked estimated.
      expect(s.messages.slice(0, -1).every((m) => m.timestamp === summary.timestamp && m.timestamp_estimated)).toBe(
        true,
      );
      expect(s.cwd).toBe(path.dirname(SAMPLE));
      expect(s.files).toEqual([SAMPLE]);
    });
  },
);

describe('Amazon Q source: unreadable databases', () => {
  it('warns about a database locked by another connection, within a bound, and reads the others', async () => {
    const dir = await tempDir('q-locked');
    const locked = await createQDatabase(path.join(dir, 'locked.sqlite3'), {
      conversations: [{ key: WEBAPP, state: loadQFixture(Q_FILES.A) }],
    });
    const good = await createQDatabase(path.join(dir, 'good.sqlite3'), {
      conversations: [{ key: NOTES, state: loadQFixture(Q_FILES.B) }],
    });
    const holder = new Database(locked);
    holder.exec('BEGIN EXCLUSIVE');
    try {
      const started = Date.now();
      const { sessions, warnings } = await readFiles({ db: [locked, good] });
      const elapsed = Date.now() - started;
      expect([...sessions.keys()]).toEqual([Q_IDS.B]);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.file).toBe(locked);
      expect(warnings[0]!.message).toMatch(/^database is locked .*gave up after 3 attempts.*; skipped this run/);
      expect(elapsed).toBeGreaterThanOrEqual(3000); // 3 attempts × 1 s busy timeout
      expect(elapsed).toBeLessThan(15_000);
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
    // Once the lock is gone the same database reads normally.
    const { sessions } = await readFiles({ db: [locked] });
    expect([...sessions.keys()]).toEqual([Q_IDS.A]);
  });

  it('warns about a file of random bytes and about a damaged database, and goes on', async () => {
    const dir = await tempDir('q-corrupt');
    const random = path.join(dir, 'random.sqlite3');
    await fs.writeFile(random, randomBytes(8192));
    const damaged = await createQDatabase(path.join(dir, 'damaged.sqlite3'), {
      conversations: [{ key: WEBAPP, state: loadQFixture(Q_FILES.A) }],
    });
    const bytes = await fs.readFile(damaged);
    randomBytes(bytes.length - 100).copy(bytes, 100); // keep the 100-byte header, ruin every page
    await fs.writeFile(damaged, bytes);
    const good = await createQDatabase(path.join(dir, 'good.sqlite3'), {
      conversations: [{ key: NOTES, state: loadQFixture(Q_FILES.B) }],
    });
    const before = await snapshot(dir);
    const { sessions, warnings } = await readFiles({ db: [random, damaged, good] });
    expect([...sessions.keys()]).toEqual([Q_IDS.B]);
    expect(warnings.map((w) => path.basename(w.file))).toEqual(['random.sqlite3', 'damaged.sqlite3']);
    expect(warnings[0]!.message).toMatch(/^not a SQLite database/);
    expect(warnings[1]!.message).toMatch(/^corrupt database \(SQLITE_CORRUPT/);
    expect(await snapshot(dir)).toEqual(before);
  });

  it('says so when a database predates the conversations table, and skips rows that are not JSON', async () => {
    const dir = await tempDir('q-old');
    const old = await createQDatabase(path.join(dir, 'old.sqlite3'), {});
    const mixed = await createQDatabase(path.join(dir, 'mixed.sqlite3'), {
      conversations: [{ key: NOTES, state: loadQFixture(Q_FILES.B) }],
    });
    const db = new Database(mixed);
    db.prepare('INSERT INTO conversations(key, value) VALUES (?, ?)').run('/home/alice/broken', '{"conversation_id": ');
    db.close();
    const { sessions, warnings } = await readFiles({ db: [old, mixed] });
    expect([...sessions.keys()]).toEqual([Q_IDS.B]);
    expect(warnings.map((w) => [path.basename(w.file), w.message.split(' (')[0]])).toEqual([
      ['old.sqlite3', 'no conversations table'],
      ['mixed.sqlite3', 'conversations row 1'],
    ]);
    expect(warnings[1]!.message).toMatch(/^conversations row 1 \(\/home\/alice\/broken\) is not valid JSON/);
  });
});

describe('Amazon Q source: WAL databases are read from a private copy', () => {
  it('reads committed WAL content while a writer is open, and adds nothing beside the database', async () => {
    const dir = await tempDir('q-wal');
    const file = await createQDatabase(path.join(dir, 'data.sqlite3'), { conversations: [], mtime: null });
    const writer = new Database(file);
    try {
      writer.pragma('journal_mode = WAL');
      writer.pragma('wal_autocheckpoint = 0');
      writer
        .prepare('INSERT INTO conversations(key, value) VALUES (?, ?)')
        .run(API, JSON.stringify(loadQFixture(Q_FILES.C)));
      expect((await fs.readdir(dir)).sort()).toEqual(['data.sqlite3', 'data.sqlite3-shm', 'data.sqlite3-wal']);
      const before = await snapshot(dir);
      const { sessions, warnings } = await readFiles({ db: [file] });
      expect(warnings).toEqual([]);
      expect([...sessions.keys()]).toEqual([Q_IDS.C]);
      expect(sessionStats(sessions.get(Q_IDS.C)!).entries).toBe(2);
      expect(await snapshot(dir)).toEqual(before);
    } finally {
      writer.close();
    }
    // Closed cleanly: no -wal file, but the header still says WAL; opening it read-only in place would create one.
    expect(await fs.readdir(dir)).toEqual(['data.sqlite3']);
    const { sessions } = await readFiles({ db: [file] });
    expect([...sessions.keys()]).toEqual([Q_IDS.C]);
    expect(await fs.readdir(dir)).toEqual(['data.sqlite3']);
  });
});

describe('Amazon Q source: one row per directory, overwritten by a new q chat', () => {
  it('produces the new conversation and no longer the old one (the archive keeps the old one)', async () => {
    const dir = await tempDir('q-overwrite');
    const file = await createQDatabase(path.join(dir, 'data.sqlite3'), {
      conversations: [
        { key: WEBAPP, state: loadQFixture(Q_FILES.A) },
        { key: NOTES, state: loadQFixture(Q_FILES.B) },
      ],
    });
    const first = await readFiles({ db: [file] });
    expect([...first.sessions.keys()].sort()).toEqual([Q_IDS.A, Q_IDS.B]);

    putConversation(file, WEBAPP, loadQFixture(Q_FILES.E), new Date('2026-03-21T08:00:10Z'));
    const second = await readFiles({ db: [file] });
    expect([...second.sessions.keys()].sort()).toEqual([Q_IDS.B, Q_IDS.E]);
    expect(second.sessions.get(Q_IDS.E)).toMatchObject({ cwd: WEBAPP, title: 'Add a dark mode toggle to the header' });
    const e = sessionStats(second.sessions.get(Q_IDS.E)!);
    expect([e.prompts, e.entries, e.messages, e.pattern]).toEqual([1, 1, 2, 'simple']);
  });

  it('reads a conversation stored twice (v1 and v2 rows, a /save file) once, from the freshest copy', async () => {
    const dir = await tempDir('q-dupes');
    const c = loadQFixture(Q_FILES.C);
    const older = { ...c, history: c.history.slice(0, 1), next_message: null };
    const file = await createQDatabase(path.join(dir, 'data.sqlite3'), {
      conversations: [{ key: API, state: older }],
      conversationsV2: [
        {
          key: API,
          state: c,
          createdAt: Date.parse('2026-03-12T13:00:00Z'),
          updatedAt: Date.parse('2026-03-12T13:00:12.500Z'),
        },
      ],
    });
    const saved = path.join(dir, 'saved-c');
    await fs.writeFile(saved, JSON.stringify(older, null, 2));
    const { sessions, order, warnings } = await readFiles({ db: [file], json: [saved] });
    expect(warnings).toEqual([]);
    expect(order).toEqual([Q_IDS.C]);
    const session = sessions.get(Q_IDS.C)!;
    expect(sessionStats(session).entries).toBe(2);
    expect(session.cwd).toBe(API);
    expect(session.messages[0]!.raw.file_path).toBe(file);
    expect(session.warnings).toEqual([
      `also stored in ${file} (conversations), ${saved} (an older or equal copy; not read)`,
    ]);
  });
});

describe('Amazon Q source: what an earlier run archived', () => {
  /** Reads one conversation, giving the source the archived copy from an earlier read. */
  async function readWithArchive(file: string, archived: Session | undefined, id: string): Promise<Session> {
    const { sessions } = await readFiles(
      { db: [file] },
      { loadArchived: async (sessionId) => (sessionId === id ? archived : undefined) },
    );
    return sessions.get(id)!;
  }
  const extraElement = (n: number) => [
    {
      additional_context: '',
      env_context: { env_state: { operating_system: 'linux' } },
      content: { Prompt: { prompt: `Thanks (${n})` } },
      images: null,
    },
    { Response: { message_id: `a0000000-0000-4000-8000-00000000010${n}`, content: 'You are welcome.' } },
  ];

  it('keeps the time an entry was first seen when the data has none', async () => {
    const dir = await tempDir('q-first-seen');
    const file = await createQDatabase(path.join(dir, 'data.sqlite3'), {
      conversations: [{ key: WEBAPP, state: loadQFixture(Q_FILES.A) }],
    });
    const first = await readWithArchive(file, undefined, Q_IDS.A);
    const a = loadQFixture(Q_FILES.A);
    a.history.push(extraElement(1));
    const later = new Date('2026-03-25T09:30:00.000Z');
    putConversation(file, WEBAPP, a, later);
    const second = await readWithArchive(file, first, Q_IDS.A);
    expect(second.messages).toHaveLength(17);
    // The 15 old messages keep their first-seen time (and so their ids); the new element gets the new mtime.
    expect(second.messages.slice(0, 15).map((m) => m.id)).toEqual(first.messages.map((m) => m.id));
    expect(second.messages.slice(15).map((m) => [m.id, m.timestamp_estimated])).toEqual([
      ['2026-03-25T09:30:00.000Z#h5.0', true],
      ['2026-03-25T09:30:00.000Z#h5.1', true],
    ]);
    // Without the archive every message would move to the new mtime.
    const fresh = await readWithArchive(file, undefined, Q_IDS.A);
    expect(new Set(fresh.messages.map((m) => m.timestamp))).toEqual(new Set([later.toISOString()]));
  });

  it('keeps entries Q trimmed from the front of history, with their original positions', async () => {
    const dir = await tempDir('q-trim');
    const file = await createQDatabase(path.join(dir, 'data.sqlite3'), {
      conversations: [{ key: WEBAPP, state: loadQFixture(Q_FILES.A) }],
    });
    const first = await readWithArchive(file, undefined, Q_IDS.A);
    const a = loadQFixture(Q_FILES.A);
    a.history = [...a.history.slice(2), extraElement(2)]; // h0, h1 drained; one new element
    putConversation(file, WEBAPP, a, new Date('2026-03-26T00:00:00.000Z'));
    const second = await readWithArchive(file, first, Q_IDS.A);
    const locals = second.messages.map((m) => m.id.split('#')[1]);
    expect(locals).toEqual([
      'h0.0', 'h0.1', 'h0.2', 'h1.0', 'h1.1', 'h1.2', // from the archive
      'h2.0', 'h2.1', 'h2.2', 'h3.0', 'h3.1', 'h3.2', 'h4.0', 'h4.1', 'h4.2', // still in the database
      'h5.0', 'h5.1', // new
    ]); // prettier-ignore
    expect(second.messages.slice(0, 6).every((m) => m.metadata?.archived_only === true)).toBe(true);
    expect(second.messages.slice(6).some((m) => m.metadata?.archived_only)).toBe(false);
    // Stored positions restart at 1 in the trimmed row; ids keep counting from the first element ever seen.
    expect(second.messages[6]!.raw.line_index).toBe(1);
    expect(second.messages.slice(0, 15).map((m) => m.id)).toEqual(first.messages.map((m) => m.id));
    // A's 3 prompts + "Thanks (2)"; 5 entries + 1; still 3 tool rounds, and the results of h1's calls
    // (now the first stored element) link to the archived calls.
    const stats = sessionStats(second);
    expect([stats.prompts, stats.entries, stats.toolRounds, stats.pattern]).toEqual([4, 6, 3, 'multi_tool']);
    expect(second.messages[4]!.tool_call).toMatchObject({ name: 'execute_bash', status: 'error' });
    expect(second.messages[4]!.tool_call!.result_id).toBe(second.messages[6]!.id);
    expect(second.warnings[0]).toMatch(/^2 earlier entries are no longer in/);
  });

  it('keeps the full history after /compact clears it: archive, then summary, then what came after', async () => {
    const dir = await tempDir('q-compact');
    const file = await createQDatabase(path.join(dir, 'data.sqlite3'), {
      conversations: [{ key: WEBAPP, state: loadQFixture(Q_FILES.A) }],
    });
    const first = await readWithArchive(file, undefined, Q_IDS.A);
    const a = loadQFixture(Q_FILES.A);
    a.history = [];
    a.valid_history_range = [0, 0];
    a.transcript.push('> /compact');
    a.latest_summary = '## CONVERSATION SUMMARY\n* The auth guard navigated twice.'; // the ≤ v1.12 string form
    putConversation(file, WEBAPP, a, new Date('2026-03-27T00:00:00.000Z'));

    const compacted = await readWithArchive(file, first, Q_IDS.A);
    expect(kinds(compacted.messages).slice(15)).toEqual(['compact_summary']);
    expect(compacted.messages.slice(0, 15).map((m) => m.id)).toEqual(first.messages.map((m) => m.id));
    expect(compacted.messages.some((m) => m.metadata?.transcript_fallback)).toBe(false);
    expect(compacted.warnings).toContain('transcript not shown: the archive holds the full history it summarizes');
    let stats = sessionStats(compacted);
    expect([stats.prompts, stats.entries, stats.toolRounds, stats.pattern]).toEqual([3, 5, 3, 'multi_tool']);
    // Without the archive only the transcript is left: 3 prompts, 5 entries, 3 tool rounds from "[Tool uses: …]".
    const alone = await readWithArchive(file, undefined, Q_IDS.A);
    stats = sessionStats(alone);
    expect([stats.prompts, stats.entries, stats.toolRounds, stats.toolUses]).toEqual([3, 5, 3, 4]);
    expect(alone.messages.filter((m) => m.metadata?.kind === 'command').map(text)).toEqual(['/compact']);

    // The conversation goes on after the compaction; the next run keeps archive + summary + the new element.
    a.history = [extraElement(3)];
    putConversation(file, WEBAPP, a, new Date('2026-03-28T00:00:00.000Z'));
    const resumed = await readWithArchive(file, compacted, Q_IDS.A);
    expect(kinds(resumed.messages).slice(15)).toEqual(['compact_summary', 'prompt', 'response']);
    expect(resumed.messages.slice(0, 16).map((m) => m.id)).toEqual(compacted.messages.map((m) => m.id));
    expect(resumed.messages[16]!.id).toBe('2026-03-28T00:00:00.000Z#h5.0');
    stats = sessionStats(resumed);
    expect([stats.prompts, stats.entries, stats.pattern]).toEqual([4, 6, 'multi_tool']);
  });
});

describe('Amazon Q source: edge cases', () => {
  it('handles a large image, injected context, tangent entries, unknown shapes and "dummy" tool names', async () => {
    const b = loadQFixture(Q_FILES.B);
    const big = new Array<number>(1_000_001).fill(7);
    b.history[0].user.images.push({ format: 'Jpeg', source: { Bytes: big } });
    b.history[0].user.additional_context = `--- CONTEXT ENTRY BEGIN ---\n${'x'.repeat(25_000)}`;
    // /tangent: main_history is the main thread; history = main + the side thread.
    b.tangent_state = { main_history: [b.history[0]], main_next_message: null, main_transcript: [] };
    b.history[1].assistant = {
      ToolUse: {
        message_id: 'b0000000-0000-4000-8000-000000000009',
        content: '',
        tool_uses: [{ id: 'tooluse_B9', name: 'dummy', orig_name: 'nonexistent_tool', args: 'not an object' }],
      },
    };
    b.history.push({ weird: true, images: [{ format: 'Png', source: { Bytes: [1, 2, 3] } }] });
    const dir = await tempDir('q-edge');
    const file = await createQDatabase(path.join(dir, 'data.sqlite3'), { conversations: [{ key: NOTES, state: b }] });
    const { sessions, warnings } = await readFiles({ db: [file] });
    expect(warnings).toEqual([]);
    const s = sessions.get(Q_IDS.B)!;
    expect(kinds(s.messages)).toEqual(['injected', 'prompt', 'response', 'prompt', 'response', 'unknown']);

    const injected = s.messages[0]!;
    expect(injected).toMatchObject({ role: 'meta', source_type: 'meta', metadata: { omitted_chars: 5_028 } });
    expect(text(injected)).toHaveLength(20_000); // 28 + 25 000 characters, the first 20 000 kept

    const [small, large] = s.messages[1]!.segments.filter((seg) => seg.type === 'image');
    expect(small!.media!.size_bytes).toBe(69);
    expect(large!.media).toEqual({
      media_type: 'image/jpeg',
      size_bytes: 1_000_001,
      omitted: 'image of 1000001 bytes is larger than 1 MB; not kept',
    });
    expect(JSON.stringify(s).length).toBeLessThan(100_000);

    // Element 1 is not in main_history: the side thread, marked, and counted once.
    expect(s.messages.slice(3, 5).every((m) => m.metadata?.tangent === true)).toBe(true);
    expect(s.messages.slice(0, 3).some((m) => m.metadata?.tangent)).toBe(false);
    expect(s.messages[4]!.tool_call).toMatchObject({ name: 'dummy', status: 'unanswered', arguments: 'not an object' });
    expect(s.messages[4]!.metadata?.orig_name).toBe('nonexistent_tool');
    expect(sessionStats(s)).toMatchObject({ prompts: 2, entries: 2, toolRounds: 1, pattern: 'incomplete' });

    const unknown = s.messages[5]!;
    expect(unknown).toMatchObject({ role: 'meta', source_type: 'meta', raw: { event_type: 'unknown', line_index: 3 } });
    expect(unknown.raw.record).toEqual({
      weird: true,
      images: [{ format: 'Png', source: { Bytes: '[3 bytes omitted]' } }],
    });
  });

  it('shows a prompt left in next_message (never answered) as the last prompt: incomplete', async () => {
    const b = loadQFixture(Q_FILES.B);
    b.next_message = {
      additional_context: '',
      env_context: { env_state: null },
      content: { Prompt: { prompt: 'まだですか？' } },
      timestamp: '2026-03-10T00:09:00Z',
      images: null,
    };
    const dir = await tempDir('q-next');
    const file = await createQDatabase(path.join(dir, 'data.sqlite3'), { conversations: [{ key: NOTES, state: b }] });
    const s = (await readFiles({ db: [file] })).sessions.get(Q_IDS.B)!;
    const last = s.messages[s.messages.length - 1]!;
    expect(last).toMatchObject({
      id: '2026-03-10T00:09:00.000Z#n2.0',
      role: 'user',
      metadata: { kind: 'prompt', pending: true },
      raw: { event_type: 'Prompt', payload_type: 'next_message', line_index: 3 },
    });
    expect(sessionStats(s)).toMatchObject({ prompts: 3, entries: 2, pattern: 'incomplete' });
    expect(s.endedAt).toBe('2026-03-10T00:09:00.000Z');
  });
});
