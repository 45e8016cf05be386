import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { Session } from '../../src/model/session.ts';
import { claudeCode, readHistory } from '../../src/sources/claude-code/index.ts';
import type { SourceContext } from '../../src/sources/source.ts';
import { sessionStats } from '../../src/stats/session-stats.ts';
import type { CollectWarning } from '../../src/util/warnings.ts';
import { API, FIXTURE_CLAUDE, FIXTURE_HOME, NOTES, SESSION, WEBAPP } from '../helpers/paths.ts';

const warnings: CollectWarning[] = [];
const sessions = new Map<string, Session>();

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

beforeAll(async () => {
  const ctx = context();
  const location = await claudeCode.locate(ctx);
  for await (const item of claudeCode.read(location, ctx)) {
    if (item.kind === 'session') sessions.set(item.session.sessionId, item.session);
  }
});

const session = (id: string) => {
  const s = sessions.get(id);
  if (!s) throw new Error(`session ${id} not read`);
  return s;
};
const byLine = (messages: NormalizedMessage[], file: string, line: number) =>
  messages.filter((m) => m.raw.file_path === file && m.raw.line_index === line);

describe('Claude Code source: locating', () => {
  it('looks in <home>/.claude and <home>/.config/claude, and finds the first', async () => {
    const location = await claudeCode.locate(context());
    expect(location.looked).toEqual([FIXTURE_CLAUDE, path.join(FIXTURE_HOME, '.config', 'claude')]);
    expect(location.found).toEqual([FIXTURE_CLAUDE]);
  });

  it('prefers --claude-dir, then $CLAUDE_CONFIG_DIR for the real home', async () => {
    const flagged = await claudeCode.locate(context({ options: { claudeDir: ['/nowhere/claude'] } }));
    expect(flagged).toEqual({ looked: ['/nowhere/claude'], found: [] });
    const fromEnv = await claudeCode.locate(context({ options: {}, env: { CLAUDE_CONFIG_DIR: FIXTURE_CLAUDE } }));
    expect(fromEnv.found).toEqual([FIXTURE_CLAUDE]);
  });
});

describe('Claude Code source: sessions from the fixture home', () => {
  it('reads the six sessions, and no session for summary-only or empty files or subagent files', () => {
    expect([...sessions.keys()].sort()).toEqual(Object.values(SESSION).sort());
  });

  // Expected numbers: fixtures/README.md, "Expected values per session", each counted by hand there.
  it.each([
    [SESSION.A, { prompts: 2, entries: 7, toolRounds: 4, pattern: 'multi_tool', tokens: [520, 380, 6100, 1100] }],
    [SESSION.B, { prompts: 3, entries: 8, toolRounds: 5, pattern: 'incomplete', tokens: [720, 475, 7000, 1700] }],
    [SESSION.C, { prompts: 2, entries: 2, toolRounds: 0, pattern: 'simple', tokens: [200, 110, 2000, 400] }],
    [SESSION.D, { prompts: 1, entries: 2, toolRounds: 1, pattern: 'single_tool', tokens: [200, 100, 2000, 400] }],
    [SESSION.E, { prompts: 1, entries: 1, toolRounds: 0, pattern: 'simple', tokens: [100, 50, 1000, 200] }],
    [SESSION.F, { prompts: 2, entries: 4, toolRounds: 2, pattern: 'multi_tool', tokens: [310, 240, 3200, 700] }],
  ])('session %s has the hand-counted statistics', (id, expected) => {
    const stats = sessionStats(session(id));
    expect({
      prompts: stats.prompts,
      entries: stats.entries,
      toolRounds: stats.toolRounds,
      pattern: stats.pattern,
      tokens: [stats.tokens.input, stats.tokens.output, stats.tokens.cacheRead, stats.tokens.cacheCreation],
    }).toEqual(expected);
  });

  it('counts tool uses by name, subagent work included', () => {
    expect(sessionStats(session(SESSION.A)).toolUsesByName).toEqual({ Read: 1, Bash: 1, Grep: 1, Task: 1, Glob: 1 });
    expect(sessionStats(session(SESSION.B)).toolUsesByName).toEqual({ Task: 1, Edit: 2, Write: 1, Bash: 1 });
    expect(sessionStats(session(SESSION.A)).toolErrors).toBe(1);
  });

  it('takes the title from the last title record, else the first real prompt', () => {
    expect(session(SESSION.A).title).toBe('Fix login redirect');
    expect(session(SESSION.B).title).toBe('Add rate limiting to login endpoint');
    expect(session(SESSION.C).title).toBe('明日の定例会議のアジェンダを箇条書きで3つ作ってください。');
    expect(session(SESSION.F).title).toMatch(/^List the API endpoints that lack input validation\./);
  });

  it('takes the project from cwd, never from the escaped directory name', () => {
    expect(session(SESSION.C).cwd).toBe('/home/alice/notes/日本語');
    expect(session(SESSION.F).cwd).toBe('/home/alice/work/api');
  });

  it('groups a streamed response into one entry with usage counted once (largest output)', () => {
    const file = path.join(WEBAPP, `${SESSION.A}.jsonl`);
    const lines = [7, 8, 9].map((n) => byLine(session(SESSION.A).messages, file, n)[0]!);
    const responseIds = new Set(lines.map((m) => m.metadata?.response_id));
    expect(responseIds.size).toBe(1);
    expect(lines.map((m) => m.metadata?.usage?.output)).toEqual([120, undefined, undefined]);
    expect(lines[0]!.segments[0]).toMatchObject({ format: 'thinking', channel: 'output' });
    expect(lines[2]!.tool_call).toMatchObject({ name: 'Read', status: 'completed' });
  });

  it('links parallel tool calls to their results, also the one on a side branch', () => {
    const a = session(SESSION.A);
    const file = path.join(WEBAPP, `${SESSION.A}.jsonl`);
    const bash = byLine(a.messages, file, 11)[0]!;
    const grep = byLine(a.messages, file, 12)[0]!;
    const bashResult = a.messages.find((m) => m.id === bash.tool_call!.result_id)!;
    const grepResult = a.messages.find((m) => m.id === grep.tool_call!.result_id)!;
    expect(bash.tool_call).toMatchObject({ name: 'Bash', status: 'error' });
    expect(bashResult.raw.line_index).toBe(13);
    expect(bashResult.tool_call).toMatchObject({ call_id: bash.tool_call!.call_id, name: 'Bash', status: 'error' });
    expect(grep.tool_call!.status).toBe('completed');
    expect(grepResult.raw.line_index).toBe(14);
  });

  it('leaves a call without result visible as unanswered', () => {
    const b = session(SESSION.B);
    const last = b.messages.filter((m) => m.source_type === 'tool_call').pop()!;
    expect(last.tool_call).toMatchObject({ name: 'Bash', status: 'unanswered' });
    expect(last.tool_call!.result_id).toBeUndefined();
  });

  it('nests subagents under the call that spawned them: meta.json, legacy agent files and inline sidechains', () => {
    const a = session(SESSION.A);
    expect(a.subagents).toHaveLength(1);
    expect(a.subagents[0]).toMatchObject({
      agentId: 'a1b2c3d4e5f6a7b8c',
      agentType: 'Explore',
      parentCallId: 'toolu_01OQg1LbvTmsuAXU1U81Ow3G',
    });
    const task = a.messages.find((m) => m.tool_call?.name === 'Task')!;
    expect(task.tool_call!.call_id).toBe('toolu_01OQg1LbvTmsuAXU1U81Ow3G');

    const b = session(SESSION.B);
    const bTask = b.messages.find((m) => m.tool_call?.name === 'Task')!;
    expect(b.subagents.map((s) => [s.agentId, s.parentCallId])).toEqual([['a7e57c1', bTask.tool_call!.call_id]]);

    const f = session(SESSION.F);
    const fTask = f.messages.find((m) => m.tool_call?.name === 'Task')!;
    expect(f.subagents).toHaveLength(1);
    expect(f.subagents[0]!.parentCallId).toBe(fTask.tool_call!.call_id);
    // The sidechain's messages are not in the main thread.
    expect(f.messages.some((m) => m.raw.line_index === 3 || m.raw.line_index === 4)).toBe(false);
  });

  it('shows compaction as a boundary and keeps the earlier history', () => {
    const b = session(SESSION.B);
    const boundary = b.messages.findIndex((m) => m.metadata?.kind === 'compact_boundary');
    expect(boundary).toBeGreaterThan(0);
    expect(b.messages[boundary]!.metadata?.compact).toEqual({ trigger: 'auto', pre_tokens: 150000 });
    expect(b.messages[boundary + 1]!.metadata?.kind).toBe('compact_summary');
    expect(b.messages.slice(0, boundary).filter((m) => m.metadata?.kind === 'prompt')).toHaveLength(2);
  });

  it('keeps meta and injected records, marked, and not as prompts', () => {
    const a = session(SESSION.A);
    const file = path.join(WEBAPP, `${SESSION.A}.jsonl`);
    expect(byLine(a.messages, file, 2)[0]!.metadata).toMatchObject({ kind: 'injected', is_meta: true });
    expect(byLine(a.messages, file, 3)[0]!.metadata?.kind).toBe('command');
    expect(byLine(a.messages, file, 3)[0]!.segments[0]!.text).toBe('/model opus');
    expect(byLine(a.messages, file, 4)[0]!.metadata?.kind).toBe('command_output');
    expect(byLine(a.messages, file, 4)[0]!.segments[0]!.text).not.toMatch(/\u001b/);
    const b = session(SESSION.B);
    expect(b.messages.find((m) => m.metadata?.kind === 'interrupt')).toBeDefined();
  });

  it('keeps unknown record types as meta with the whole record', () => {
    const unknown = session(SESSION.B).messages.find((m) => m.raw.event_type === 'hologram-sync')!;
    expect(unknown).toMatchObject({ role: 'meta', source_type: 'meta', metadata: { kind: 'unknown' } });
    expect(unknown.raw.record).toMatchObject({ type: 'hologram-sync' });
  });

  it('counts records copied into a resumed session once, in the session they came from', () => {
    const d = session(SESSION.D);
    expect(d.resumedFrom).toEqual([SESSION.E]);
    expect(d.startedAt).toBe('2026-03-05T10:00:00.000Z');
    expect(d.messages.some((m) => m.raw.line_index === 1 || m.raw.line_index === 2)).toBe(false);
  });

  it('excludes synthetic API errors from entries and models', () => {
    const f = session(SESSION.F);
    const error = f.messages.find((m) => m.metadata?.kind === 'api_error')!;
    expect(error.raw.line_index).toBe(8);
    expect(f.models).not.toContain('<synthetic>');
  });

  it('gives every message the seed-004 shape with a stable id', () => {
    for (const s of sessions.values()) {
      for (const m of [...s.messages, ...s.subagents.flatMap((a) => a.messages)]) {
        expect(m.id).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z#[\w:.-]+$/);
        expect(['user', 'assistant', 'tool', 'system', 'meta']).toContain(m.role);
        expect(['message', 'tool_call', 'tool_result', 'meta', 'session', 'legacy']).toContain(m.source_type);
        expect(m.raw.file_path).toMatch(/\.jsonl$/);
        expect(m.raw.line_index).toBeGreaterThan(0);
        for (const seg of m.segments) expect(['input', 'output', 'system']).toContain(seg.channel);
      }
      const ids = [...s.messages, ...s.subagents.flatMap((a) => a.messages)].map((m) => m.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('warns with file and line for bad input and unknown record types, and nothing else', () => {
    const shown = warnings.map((w) => `${path.relative(FIXTURE_CLAUDE, w.file)}:${w.line}`);
    expect(shown.sort()).toEqual(
      [
        `projects/-home-alice-notes----/${SESSION.C}.jsonl:3`,
        `projects/-home-alice-notes----/${SESSION.C}.jsonl:5`,
        `projects/-home-alice-notes----/${SESSION.C}.jsonl:6`,
        `projects/-home-alice-work-webapp/${SESSION.B}.jsonl:16`,
        `projects/-home-alice-work-api/${SESSION.F}.jsonl:7`,
      ].sort(),
    );
    const c = session(SESSION.C);
    const surrogate = byLine(c.messages, path.join(NOTES, `${SESSION.C}.jsonl`), 5)[0]!;
    expect(surrogate.segments[0]!.text!.isWellFormed()).toBe(true);
    const f = session(SESSION.F);
    const bashResult = byLine(f.messages, path.join(API, `${SESSION.F}.jsonl`), 7)[0]!;
    expect(bashResult.tool_call!.output).toContain('\uFFFD');
  });
});

describe('Claude Code prompt history', () => {
  it('reads history.jsonl prompts with epoch-ms times, also of sessions without a transcript', async () => {
    const prompts = [];
    for await (const p of readHistory(path.join(FIXTURE_CLAUDE, 'history.jsonl'), () => {})) prompts.push(p);
    expect(prompts).toHaveLength(11);
    expect(prompts[0]).toMatchObject({ timestamp: '2025-05-20T10:00:00.000Z', project: '/home/alice/work/api' });
    expect(prompts[0]!.sessionId).toBeUndefined();
    expect(prompts.filter((p) => p.sessionId === '99999999-9999-4999-8999-999999999999')).toHaveLength(2);
  });
});
