import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { HistoryPrompt, Session } from '../../src/model/session.ts';
import { INLINE_IMAGE_MAX_BYTES } from '../../src/transcript/session-view.ts';
import { codex, readCodexHistory, readRolloutFile } from '../../src/sources/codex/index.ts';
import { listRolloutFiles } from '../../src/sources/codex/paths.ts';
import { readRolloutLines } from '../../src/sources/codex/read.ts';
import type { SourceContext } from '../../src/sources/source.ts';
import { sessionStats } from '../../src/stats/session-stats.ts';
import type { CollectWarning } from '../../src/util/warnings.ts';
import { FIXTURE_HOME, tempDir } from '../helpers/paths.ts';

// Expected numbers: fixtures/CODEX.md, each counted by hand there.
const CODEX = path.join(FIXTURE_HOME, '.codex');
const ID = {
  K1: '019cb1a0-0001-7000-8000-000000000001',
  K2: '019cb1a0-0002-7000-8000-000000000002',
  K3: '019cb1a0-0003-7000-8000-000000000003',
  K4: '019cb1a0-0004-7000-8000-000000000004',
  K5: '019cb1a0-0005-7000-8000-000000000005',
  K6: '019cb1a0-0006-7000-8000-000000000006',
  K7: '019cb1a0-0007-7000-8000-000000000007',
  L1: '5c0d1e9a-0001-4000-8000-00000000000a',
  T1: '5c0d1e9a-0002-4000-8000-00000000000b',
} as const;
const FILE = {
  K1: path.join(CODEX, 'sessions/2026/03/04', `rollout-2026-03-04T19-00-00-${ID.K1}.jsonl`),
  K2: path.join(CODEX, 'sessions/2026/03/05', `rollout-2026-03-05T08-30-00-${ID.K2}.jsonl`),
  K3: path.join(CODEX, 'sessions/2026/03/05', `rollout-2026-03-05T20-00-00-${ID.K3}.jsonl`),
  K4: path.join(CODEX, 'sessions/2026/03/06', `rollout-2026-03-06T18-00-05-${ID.K4}.jsonl`),
  K5: path.join(CODEX, 'archived_sessions', `rollout-2026-03-06T18-00-00-${ID.K5}.jsonl`),
  K6: path.join(CODEX, 'sessions/2026/03/06', `rollout-2026-03-06T21-00-00-${ID.K6}.jsonl.zst`),
  L1: path.join(CODEX, 'sessions', `rollout-2026-03-03T10-00-00-${ID.L1}.jsonl`),
  T1: path.join(CODEX, 'sessions', `rollout-2026-03-03-${ID.T1}.json`),
} as const;

const warnings: CollectWarning[] = [];
const sessions = new Map<string, Session>();
const prompts: HistoryPrompt[] = [];

function context(overrides: Partial<SourceContext> = {}): SourceContext {
  return {
    home: FIXTURE_HOME,
    env: {},
    options: { explicitHome: 'true' },
    warn: (w) => warnings.push(w),
    archived: new Set(),
    ...overrides,
  };
}

async function readAll(ctx: SourceContext): Promise<{ sessions: Map<string, Session>; prompts: HistoryPrompt[] }> {
  const found = new Map<string, Session>();
  const history: HistoryPrompt[] = [];
  for await (const item of codex.read(await codex.locate(ctx), ctx)) {
    if (item.kind === 'session') found.set(item.session.sessionId, item.session);
    else if (item.kind === 'prompt') history.push(item.prompt);
  }
  return { sessions: found, prompts: history };
}

beforeAll(async () => {
  const all = await readAll(context());
  for (const [id, s] of all.sessions) sessions.set(id, s);
  prompts.push(...all.prompts);
});

const session = (id: string) => {
  const s = sessions.get(id);
  if (!s) throw new Error(`session ${id} not read`);
  return s;
};
const at = (messages: NormalizedMessage[], line: number, part?: number) =>
  messages.filter((m) => m.raw.line_index === line && (part === undefined || m.id.endsWith(`#${line}.${part}`)));
const one = (messages: NormalizedMessage[], line: number, part?: number) => {
  const found = at(messages, line, part);
  if (found.length !== 1) throw new Error(`expected one message at line ${line}, found ${found.length}`);
  return found[0]!;
};
const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

describe('Codex source: locating', () => {
  it('looks in <home>/.codex and finds it', async () => {
    expect(await codex.locate(context())).toEqual({ looked: [CODEX], found: [CODEX] });
  });

  it('prefers --codex-dir, then $CODEX_HOME, which an explicit --home ignores', async () => {
    const flagged = await codex.locate(context({ options: { codexDir: ['/nowhere/codex', CODEX] } }));
    expect(flagged).toEqual({ looked: ['/nowhere/codex', CODEX], found: [CODEX] });
    const fromEnv = await codex.locate(context({ options: {}, home: '/nowhere', env: { CODEX_HOME: CODEX } }));
    expect(fromEnv).toEqual({ looked: [CODEX], found: [CODEX] });
    const explicit = await codex.locate(context({ env: { CODEX_HOME: '/elsewhere/codex' } }));
    expect(explicit).toEqual({ looked: [CODEX], found: [CODEX] });
  });

  it('lists dated, flat and archived rollouts of all three formats, and prefers .jsonl over .jsonl.zst', async () => {
    const files = (await listRolloutFiles(CODEX)).map((f) => [path.relative(CODEX, f.file), f.kind, f.archived]);
    expect(files).toEqual([
      [path.relative(CODEX, FILE.K1), 'jsonl', false],
      [path.relative(CODEX, FILE.K2), 'jsonl', false],
      [path.relative(CODEX, FILE.K3), 'jsonl', false],
      [path.relative(CODEX, FILE.K4), 'jsonl', false],
      [path.relative(CODEX, FILE.K6), 'zst', false],
      [`sessions/2026/03/06/rollout-2026-03-06T22-00-00-${ID.K7}.jsonl`, 'jsonl', false],
      [path.relative(CODEX, FILE.T1), 'json', false],
      [path.relative(CODEX, FILE.L1), 'jsonl', false],
      [path.relative(CODEX, FILE.K5), 'jsonl', true],
    ]);
    const dir = await tempDir('codex-zst');
    await fs.mkdir(path.join(dir, 'sessions'));
    await fs.copyFile(FILE.K6, path.join(dir, 'sessions', path.basename(FILE.K6)));
    await fs.writeFile(path.join(dir, 'sessions', path.basename(FILE.K6, '.zst')), '');
    expect((await listRolloutFiles(dir)).map((f) => f.kind)).toEqual(['jsonl']);
  });
});

describe('Codex source: sessions from the fixture home', () => {
  it('reads seven sessions: no session for the abandoned file, and the subagent only inside its parent', () => {
    expect([...sessions.keys()].sort()).toEqual([ID.K1, ID.K2, ID.K3, ID.K5, ID.K6, ID.L1, ID.T1].sort());
  });

  it.each([
    [
      'K1',
      {
        prompts: 2,
        entries: 6,
        toolRounds: 4,
        pattern: 'multi_tool',
        tokens: [13000, 1150, 27000, 0],
        byName: { exec_command: 3, shell: 1, apply_patch: 1 },
        errors: 1,
      },
    ],
    [
      'K2',
      {
        prompts: 2,
        entries: 4,
        toolRounds: 3,
        pattern: 'incomplete',
        tokens: [7000, 700, 8000, 0],
        byName: { shell: 2, apply_patch: 1 },
        errors: 0,
      },
    ],
    [
      'K3',
      {
        prompts: 1,
        entries: 2,
        toolRounds: 1,
        pattern: 'single_tool',
        tokens: [4000, 200, 12000, 0],
        byName: { exec_command: 1 },
        errors: 0,
      },
    ],
    [
      'K5',
      {
        prompts: 1,
        entries: 4,
        toolRounds: 2,
        pattern: 'single_tool',
        tokens: [9000, 350, 6500, 0],
        byName: { spawn_agent: 1, exec_command: 1 },
        errors: 0,
      },
    ],
    [
      'K6',
      { prompts: 1, entries: 1, toolRounds: 0, pattern: 'simple', tokens: [1000, 90, 200, 0], byName: {}, errors: 0 },
    ],
    [
      'L1',
      {
        prompts: 2,
        entries: 3,
        toolRounds: 2,
        pattern: 'incomplete',
        tokens: [0, 0, 0, 0],
        byName: { local_shell: 1, shell: 1 },
        errors: 1,
      },
    ],
    [
      'T1',
      {
        prompts: 1,
        entries: 2,
        toolRounds: 1,
        pattern: 'single_tool',
        tokens: [0, 0, 0, 0],
        byName: { shell: 1 },
        errors: 0,
      },
    ],
  ] as const)('session %s has the hand-counted statistics', (key, expected) => {
    const stats = sessionStats(session(ID[key]));
    expect({
      prompts: stats.prompts,
      entries: stats.entries,
      toolRounds: stats.toolRounds,
      pattern: stats.pattern,
      tokens: [stats.tokens.input, stats.tokens.output, stats.tokens.cacheRead, stats.tokens.cacheCreation],
      byName: stats.toolUsesByName,
      errors: stats.toolErrors,
    }).toEqual(expected);
  });

  it('takes the title from the thread name, else the first real prompt; the project from session_meta.cwd', () => {
    expect(session(ID.K1).title).toBe('ログイン後のリダイレクトが壊れています。src/login.ts を直してください。');
    expect(session(ID.K5).title).toBe('API validation review'); // thread_name_updated
    expect(session(ID.K6).title).toBe('議事録の要約'); // session_index.jsonl
    expect(session(ID.L1).title).toBe('Why does npm run build fail?');
    expect(session(ID.K1).cwd).toBe('/home/alice/work/webapp');
    expect(session(ID.K6).cwd).toBe('/home/alice/notes/日本語');
    expect(session(ID.L1).cwd).toBe('/home/alice/work/webapp'); // from the injected <environment_context>
    expect(session(ID.T1).cwd).toBe('');
    expect(session(ID.K1)).toMatchObject({ gitBranch: 'fix/login', cliVersion: '0.98.0', models: ['gpt-5.3-codex'] });
  });

  it('dates sessions by the UTC times inside, not the local-time file name', () => {
    const k2 = session(ID.K2);
    expect(k2.files[0]).toContain('/2026/03/05/rollout-2026-03-05T08-30-00-');
    expect(k2.startedAt).toBe('2026-03-04T23:30:00.100Z');
    expect(k2.endedAt).toBe('2026-03-04T23:41:05.001Z');
  });

  it('puts each counted request on the first message of its response, whichever side token_count is written on', () => {
    const k1 = session(ID.K1).messages;
    expect(k1.filter((m) => m.metadata?.usage).map((m) => m.raw.line_index)).toEqual([11, 18, 27, 34, 41, 48]);
    expect(one(k1, 11).metadata?.usage).toEqual({ input: 3000, output: 200, cacheRead: 1000, cacheCreation: 0 });
    // 0.47 order: token_count before the items; a repeated total (line 13) counts nothing.
    const k2 = session(ID.K2).messages;
    expect(k2.filter((m) => m.metadata?.usage).map((m) => m.raw.line_index)).toEqual([9, 17, 24, 32]);
    expect(one(k2, 17).metadata?.usage).toEqual({ input: 1500, output: 300, cacheRead: 2500, cacheCreation: 0 });
    for (const m of [...k1, ...k2]) {
      if (m.metadata?.usage) expect(m.metadata.response_id).toBeDefined();
    }
  });

  it('groups the items of one response and no others', () => {
    const k1 = session(ID.K1).messages;
    const ids = (lines: number[]) => new Set(lines.map((l) => one(k1, l).metadata?.response_id));
    expect(ids([18, 19, 20]).size).toBe(1);
    expect(ids([11, 18, 27, 34, 41, 48]).size).toBe(6);
    expect(one(k1, 48).metadata?.response_id).toBe(one(k1, 49).metadata?.response_id);
    expect(one(k1, 27)).toMatchObject({ role: 'assistant', source_type: 'message', metadata: { kind: 'response' } });
  });

  it('links calls to outputs and to exec_command_end / patch_apply_end for exit code, duration and diff', () => {
    const k1 = session(ID.K1).messages;
    const byId = new Map(k1.map((m) => [m.id, m]));
    const a = one(k1, 12);
    expect(a.tool_call).toMatchObject({ call_id: 'call_k1_a', name: 'exec_command', status: 'completed' });
    expect(a.tool_call!.arguments_json).toEqual({ cmd: 'rg -n redirect src', yield_time_ms: 1000 });
    const aResult = byId.get(a.tool_call!.result_id!)!;
    expect(aResult.raw.line_index).toBe(15);
    expect(aResult.tool_call).toMatchObject({ call_id: 'call_k1_a', name: 'exec_command', status: 'completed' });
    expect(aResult.metadata).toMatchObject({ exit_code: 0, duration_ms: 250 });

    const c = one(k1, 20);
    const cResult = byId.get(c.tool_call!.result_id!)!;
    expect(c.tool_call!.status).toBe('error');
    expect(cResult.metadata).toMatchObject({ exit_code: 1, duration_ms: 3500, end_event: 'exec_command_end' });

    const patch = one(k1, 28);
    expect(patch.tool_call).toMatchObject({ name: 'apply_patch', status: 'completed' });
    expect(patch.tool_call!.arguments).toContain('*** Update File: src/login.ts');
    const patchResult = byId.get(patch.tool_call!.result_id!)!;
    expect(patchResult.tool_call!.output).toBe('Success. Updated the following files:\nM src/login.ts\n');
    expect(patchResult.tool_call!.output_json).toMatchObject({ metadata: { exit_code: 0 } });
    expect(patchResult.metadata).toMatchObject({
      exit_code: 0,
      files: [{ path: '/home/alice/work/webapp/src/login.ts', type: 'update' }],
    });
    expect(patchResult.metadata!.diff).toContain("+  redirect(next ?? '/home');");
  });

  it('keeps invalid JSON arguments as text, flagged, without arguments_json', () => {
    const call = one(session(ID.K1).messages, 19);
    expect(call.tool_call).toMatchObject({ name: 'shell', arguments: '{"command":["cat","src/login.ts"' });
    expect(call.tool_call!.arguments_json).toBeUndefined();
    expect(call.metadata?.arguments_invalid_json).toBe(true);
    expect(call.tool_call!.status).toBe('completed');
  });

  it('leaves a call without output visible as unanswered', () => {
    const k2 = session(ID.K2).messages;
    const last = k2.filter((m) => m.source_type === 'tool_call').pop()!;
    expect(last.raw.line_index).toBe(33);
    expect(last.tool_call).toMatchObject({ call_id: 'call_k2_c', name: 'shell', status: 'unanswered' });
    expect(last.tool_call!.result_id).toBeUndefined();
  });

  it('shows reasoning summaries as thinking and keeps only the hash and length of encrypted content', () => {
    const k1 = session(ID.K1).messages;
    const blob = 'gAAAAABpK1-encrypted-reasoning-L11-do-not-store';
    expect(one(k1, 11).segments).toEqual([
      { channel: 'output', type: 'text', format: 'thinking', text: '**Looking for the redirect**' },
    ]);
    expect(one(k1, 11).metadata).toMatchObject({ encrypted_sha256: sha256(blob), encrypted_length: blob.length });
    expect(one(k1, 18).segments).toEqual([{ channel: 'output', type: 'text', format: 'redacted_thinking', text: '' }]);
    const everything = JSON.stringify([...sessions.values()]);
    expect(everything).not.toContain('do-not-store');
    const unknown = one(session(ID.K2).messages, 14);
    expect((unknown.raw.record as { payload: { encrypted_content: string } }).payload.encrypted_content).toBe(
      `[encrypted: 45 chars, sha256 ${sha256('gAAAAABpK2-unknown-record-secret-do-not-store')}]`,
    );
  });

  it('counts the typed prompt, keeps injected context as meta/system, and never shows mirrors', () => {
    const k1 = session(ID.K1).messages;
    expect(one(k1, 2)).toMatchObject({ role: 'system', metadata: { kind: 'injected' } });
    expect(one(k1, 3)).toMatchObject({ role: 'meta', metadata: { kind: 'injected' } });
    expect(one(k1, 4)).toMatchObject({ role: 'meta', metadata: { kind: 'injected' } });
    expect(one(k1, 6)).toMatchObject({ role: 'user', source_type: 'message', metadata: { kind: 'prompt' } });
    expect(one(k1, 6).segments[0]).toMatchObject({ channel: 'input', type: 'text', format: 'input_text' });
    for (const [line, kind] of [
      [7, 'user_message'],
      [10, 'agent_reasoning'],
      [26, 'agent_message'],
    ] as const) {
      expect(one(k1, line)).toMatchObject({
        role: 'meta',
        source_type: 'meta',
        raw: { event_type: 'event_msg', payload_type: kind },
        metadata: { kind: 'system_event', event_kind: kind },
      });
    }
    // 20 non-meta messages: 1 developer, 2 prompts, 7 assistant, 5 calls, 5 results.
    expect(sessionStats(session(ID.K1)).messages).toBe(20);
  });

  it('keeps an attached image as data in the message; the page decides what to inline', () => {
    const prompt = one(session(ID.K1).messages, 45);
    const image = prompt.segments.find((s) => s.type === 'image')!;
    const base64 = image.media!.data_uri!.split(',')[1]!;
    expect(image).toMatchObject({ channel: 'input', format: 'input_image', media: { media_type: 'image/png' } });
    expect(image.media!.size_bytes).toBe(Buffer.from(base64, 'base64').length);
  });

  it('shows compaction as a boundary with its summary, and keeps the earlier history', () => {
    const k2 = session(ID.K2).messages;
    const boundary = one(k2, 25, 0);
    expect(boundary).toMatchObject({
      role: 'system',
      metadata: { kind: 'compact_boundary', compact: { trigger: 'local' }, replacement_items: 2 },
    });
    expect(one(k2, 25, 1)).toMatchObject({ role: 'system', metadata: { kind: 'compact_summary' } });
    expect(one(k2, 25, 1).segments[0]!.text).toMatch(/^Summary: the user asked for rate limiting/);
    const index = k2.indexOf(boundary);
    expect(k2.slice(0, index).filter((m) => m.metadata?.kind === 'prompt')).toHaveLength(1);
  });

  it('keeps unknown line types and payload types as meta with the whole record', () => {
    const k2 = session(ID.K2).messages;
    expect(one(k2, 14)).toMatchObject({
      role: 'meta',
      source_type: 'meta',
      raw: { event_type: 'hologram_sync' },
      metadata: { kind: 'unknown' },
    });
    expect(one(k2, 21)).toMatchObject({
      raw: { event_type: 'response_item', payload_type: 'quantum_patch', record: { state: 'entangled' } },
      metadata: { kind: 'unknown' },
    });
  });

  it('leaves out the copy of the parent a fork starts with, and counts only its own requests', () => {
    const k3 = session(ID.K3);
    expect(k3.resumedFrom).toEqual([ID.K1]);
    expect(k3.startedAt).toBe('2026-03-05T11:00:00.000Z');
    const marker = one(k3.messages, 2);
    expect(marker).toMatchObject({
      role: 'system',
      metadata: { kind: 'system_event', copied_from: ID.K1, copied_lines: 43 },
    });
    expect(k3.messages.some((m) => m.raw.line_index > 2 && m.raw.line_index < 45)).toBe(false);
    expect(k3.messages.filter((m) => m.metadata?.usage).map((m) => m.raw.line_index)).toEqual([49, 54]);
  });

  it('keeps and counts a fork copy once when the parent is unknown, and recognises it by time when only archived', async () => {
    const dir = await tempDir('codex-fork');
    await fs.mkdir(path.join(dir, 'sessions'));
    await fs.copyFile(FILE.K3, path.join(dir, 'sessions', path.basename(FILE.K3)));
    const alone = (await readAll(context({ options: { codexDir: [dir] }, warn: () => {} }))).sessions.get(ID.K3)!;
    expect(alone.resumedFrom).toBeUndefined();
    const aloneStats = sessionStats(alone);
    expect([aloneStats.prompts, aloneStats.entries]).toEqual([2, 7]);
    expect(aloneStats.tokens).toEqual({ input: 13000, output: 1200, cacheRead: 33000, cacheCreation: 0 });
    expect(one(alone.messages, 1).metadata).toMatchObject({ forked_from_id: ID.K1, parent_missing: true });

    const archived = (
      await readAll(context({ options: { codexDir: [dir] }, warn: () => {}, archived: new Set([`codex/${ID.K1}`]) }))
    ).sessions.get(ID.K3)!;
    expect(archived.resumedFrom).toEqual([ID.K1]);
    expect(one(archived.messages, 2).metadata?.copied_lines).toBe(43);
    expect(sessionStats(archived).tokens).toEqual({ input: 4000, output: 200, cacheRead: 12000, cacheCreation: 0 });
  });

  it('attaches a thread_spawn subagent to its parent session, under the call that spawned it', () => {
    const k5 = session(ID.K5);
    expect(k5.subagents).toHaveLength(1);
    expect(k5.subagents[0]).toMatchObject({
      agentId: ID.K4,
      agentType: 'explorer',
      description: 'Scout',
      parentCallId: 'call_k5_a',
      file: FILE.K4,
    });
    expect(k5.files).toEqual([FILE.K5, FILE.K4]);
    expect(k5.models).toEqual(['gpt-5.5', 'gpt-5.5-mini']);
    const spawn = k5.messages.find((m) => m.tool_call?.name === 'spawn_agent')!;
    expect(spawn.tool_call).toMatchObject({ call_id: 'call_k5_a', status: 'completed' });
    const sub = k5.subagents[0]!.messages;
    expect(sub.every((m) => m.id.includes(`#${ID.K4}:`))).toBe(true);
    expect(sub.filter((m) => m.metadata?.usage).map((m) => m.raw.line_index)).toEqual([4, 8]);
  });

  it('reads the legacy format: header, bare items, record_type lines, state lines skipped, times by line', () => {
    const l1 = session(ID.L1).messages;
    expect(l1.some((m) => [2, 8, 12].includes(m.raw.line_index))).toBe(false);
    expect(one(l1, 1, 0)).toMatchObject({ timestamp: '2026-03-03T01:00:00.000Z', source_type: 'session' });
    expect(one(l1, 1, 0).timestamp_estimated).toBeUndefined();
    expect(one(l1, 1, 1)).toMatchObject({ role: 'meta', metadata: { kind: 'injected', subtype: 'instructions' } });
    expect(one(l1, 4)).toMatchObject({
      id: '2026-03-03T01:00:03.000Z#4',
      timestamp_estimated: true,
      role: 'user',
      source_type: 'message',
      raw: { event_type: 'legacy_session_entry', payload_type: 'message' },
      metadata: { kind: 'prompt' },
    });
    expect(one(l1, 6).tool_call).toMatchObject({ name: 'local_shell', status: 'error', call_id: 'call_l1_a' });
    expect(one(l1, 6).tool_call!.arguments_json).toMatchObject({ command: ['npm', 'run', 'build'] });
    expect(one(l1, 11)).toMatchObject({ role: 'assistant', raw: { payload_type: 'message' } });
    expect(one(l1, 13)).toMatchObject({ timestamp: '2026-03-03T01:00:12.000Z', metadata: { kind: 'prompt' } });
    expect(l1.some((m) => m.metadata?.usage)).toBe(false);
  });

  it('reads the TS-era single-JSON rollout, items numbered from 2 after the header', () => {
    const t1 = session(ID.T1).messages;
    expect(t1.map((m) => [m.raw.line_index, m.raw.event_type, m.timestamp])).toEqual([
      [1, 'json_session', '2026-03-03T02:00:00.000Z'],
      [2, 'json_item', '2026-03-03T02:00:01.000Z'],
      [3, 'json_item', '2026-03-03T02:00:02.000Z'],
      [4, 'json_item', '2026-03-03T02:00:03.000Z'],
      [5, 'json_item', '2026-03-03T02:00:04.000Z'],
      [6, 'json_item', '2026-03-03T02:00:05.000Z'],
    ]);
    expect(one(t1, 4).tool_call).toMatchObject({ name: 'shell', status: 'completed' });
    expect(one(t1, 5).metadata).toMatchObject({ exit_code: 0, duration_ms: 200 });
  });

  it('decompresses a .jsonl.zst rollout as a stream', async () => {
    const lines = [];
    for await (const r of readRolloutLines(FILE.K6)) lines.push(r);
    expect(lines.map((r) => (r.value as { type: string }).type)).toEqual([
      'session_meta',
      'response_item',
      'event_msg',
      'turn_context',
      'response_item',
      'event_msg',
      'event_msg',
    ]);
    expect(session(ID.K6).files).toEqual([FILE.K6]);
  });

  it('keeps what it could read of a truncated .jsonl.zst and says so', async () => {
    const dir = await tempDir('codex-zst-cut');
    const cut = path.join(dir, `rollout-2026-03-06T21-00-00-${ID.K6}.jsonl.zst`);
    const bytes = await fs.readFile(FILE.K6);
    await fs.writeFile(cut, bytes.subarray(0, bytes.length - 40));
    const seen: CollectWarning[] = [];
    await readRolloutFile(cut, { warn: (w) => seen.push(w) });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ file: cut });
    expect(seen[0]!.message).toMatch(/could not read the whole file/);
  });

  it('falls back to the file mtime for a legacy file without any time', async () => {
    const dir = await tempDir('codex-legacy');
    const file = path.join(dir, 'rollout-2026-03-03T10-00-00-5c0d1e9a-0003-4000-8000-00000000000c.jsonl');
    await fs.writeFile(
      file,
      [
        { id: '5c0d1e9a-0003-4000-8000-00000000000c', instructions: null },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hello' }] },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const mtime = new Date('2026-03-03T05:00:00.000Z');
    await fs.utimes(file, mtime, mtime);
    const s = (await readRolloutFile(file, { warn: () => {} }))!;
    expect(s.messages.map((m) => [m.id, m.timestamp_estimated])).toEqual([
      ['2026-03-03T04:59:58.000Z#1', true],
      ['2026-03-03T04:59:59.000Z#2', true],
      ['2026-03-03T05:00:00.000Z#3', true],
    ]);
  });

  it('keeps a multi-megabyte data: image whole in the data, above the size the page inlines', async () => {
    const dir = await tempDir('codex-image');
    const file = path.join(dir, 'rollout-2026-03-07T10-00-00-019cb1a0-0009-7000-8000-000000000009.jsonl');
    const base64 = Buffer.alloc(1_500_000, 7).toString('base64');
    const url = `data:image/png;base64,${base64}`;
    const line = (type: string, payload: unknown) =>
      JSON.stringify({ timestamp: '2026-03-07T10:00:00.000Z', type, payload });
    await fs.writeFile(
      file,
      [
        line('session_meta', { id: '019cb1a0-0009-7000-8000-000000000009', cwd: '/home/alice/work/webapp' }),
        line('response_item', {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: url },
          ],
        }),
        line('event_msg', { type: 'user_message', message: 'look', images: [url] }),
        line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] }),
      ].join('\n') + '\n',
    );
    const s = (await readRolloutFile(file, { warn: () => {} }))!;
    const image = s.messages.find((m) => m.metadata?.kind === 'prompt')!.segments[1]!;
    expect(image.media).toMatchObject({ media_type: 'image/png', size_bytes: 1_500_000 });
    expect(image.media!.data_uri).toBe(url);
    expect(image.media!.size_bytes).toBeGreaterThan(INLINE_IMAGE_MAX_BYTES);
    // The user_message mirror does not carry a second copy.
    expect(JSON.stringify(s).split(base64).length - 1).toBe(1);
  });

  it('gives every message the seed-004 shape with a stable, unique id', () => {
    for (const s of sessions.values()) {
      const all = [...s.messages, ...s.subagents.flatMap((a) => a.messages)];
      for (const m of all) {
        expect(m.id).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[\w:.-]+$/);
        expect(m.id.startsWith(`${m.timestamp}#`)).toBe(true);
        expect(['user', 'assistant', 'tool', 'system', 'meta']).toContain(m.role);
        expect(['message', 'tool_call', 'tool_result', 'meta', 'session', 'legacy']).toContain(m.source_type);
        expect(m.raw.file_path).toMatch(/\.(jsonl|jsonl\.zst|json)$/);
        expect(m.raw.line_index).toBeGreaterThan(0);
        expect(m.raw.event_type).toBeTruthy();
        for (const seg of m.segments) expect(['input', 'output', 'system']).toContain(seg.channel);
      }
      expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    }
  });

  it('warns with file and line for bad input, and nothing else', () => {
    const shown = warnings.map((w) => `${path.relative(CODEX, w.file)}:${w.line}`);
    expect(shown.sort()).toEqual([`${path.relative(CODEX, FILE.K1)}:52`, 'history.jsonl:4', 'history.jsonl:7'].sort());
    expect(warnings.find((w) => w.line === 52)!.message).toMatch(/truncated last line/);
  });
});

describe('Codex prompt history', () => {
  it('reads history.jsonl with epoch-second times, with the project of known sessions', () => {
    expect(prompts).toHaveLength(5);
    expect(prompts[0]).toEqual({
      source: 'codex',
      timestamp: '2026-03-04T10:00:05.000Z',
      text: 'ログイン後のリダイレクトが壊れています。src/login.ts を直してください。',
      project: '/home/alice/work/webapp',
      sessionId: ID.K1,
    });
    expect(prompts[3]).toEqual({
      source: 'codex',
      timestamp: '2026-03-02T08:00:00.000Z',
      text: 'a prompt whose rollout is gone',
      sessionId: '019c0000-dead-7000-8000-000000000000',
    });
    expect(prompts[4]).toEqual({ source: 'codex', timestamp: '2026-03-06T13:00:30.000Z', text: '/status' });
  });

  it('reads nothing, and warns about nothing, when there is no history file', async () => {
    const seen: CollectWarning[] = [];
    const none = [];
    for await (const p of readCodexHistory('/nowhere/history.jsonl', (w) => seen.push(w))) none.push(p);
    expect([none, seen]).toEqual([[], []]);
  });
});
