import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { Session } from '../../src/model/session.ts';
import { codex, readRolloutFile } from '../../src/sources/codex/index.ts';
import { sessionStats } from '../../src/stats/session-stats.ts';
import type { CollectWarning } from '../../src/util/warnings.ts';
import { noteSamples, SAMPLES, tempDir } from '../helpers/paths.ts';

// Real (sanitized) and fingerprint Codex logs: ../shared/samples/codex, provenance in SOURCES.txt.
// Every number below was checked by hand against the files (grep / reading the lines).
const DIR = path.join(SAMPLES, 'codex');
const present = noteSamples('the Codex reader over the real samples');
const YOAVF = path.join(DIR, 'yoavf', 'codex-pomodor-timer.jsonl');
const MADSHN = (name: string) => path.join(DIR, 'madshn', name);
const SHORT = MADSHN('rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl');
const MCP = MADSHN('rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl');
const LONG = MADSHN('rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl');
const STAGE0 = path.join(DIR, 'agent-sessions-stage0', 'small.jsonl');

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listFiles(full)));
    else out.push(full);
  }
  return out.sort();
}

const sessions = new Map<string, Session>();
const warnings: CollectWarning[] = [];

beforeAll(async () => {
  if (!present) return;
  for (const file of await listFiles(DIR)) {
    const session = await readRolloutFile(file, { warn: (w) => warnings.push(w) });
    if (session) sessions.set(file, session);
  }
});

const of = (file: string) => sessions.get(file)!;
const byLine = (messages: NormalizedMessage[], line: number) => messages.filter((m) => m.raw.line_index === line);
const calls = (s: Session) => s.messages.filter((m) => m.source_type === 'tool_call');

describe.skipIf(!present)('Codex samples: every file reads without a crash or a warning', () => {
  it('makes one session of each of the five sample files', async () => {
    expect((await listFiles(DIR)).length).toBe(5);
    expect([...sessions.keys()]).toEqual([STAGE0, LONG, SHORT, MCP, YOAVF]);
    expect(warnings).toEqual([]);
  });

  it('reads them through the source too, from a Codex home, with the same results', async () => {
    const home = await tempDir('codex-samples');
    const day = path.join(home, 'sessions', '2026', '02', '23');
    await fs.mkdir(day, { recursive: true });
    for (const file of sessions.keys()) {
      const name = path.basename(file).startsWith('rollout-') ? path.basename(file) : `rollout-${path.basename(file)}`;
      await fs.copyFile(file, path.join(day, name));
    }
    const seen: CollectWarning[] = [];
    const ctx = {
      home,
      env: {},
      options: { explicitHome: 'true', codexDir: [home] },
      warn: (w: CollectWarning) => seen.push(w),
      archived: new Set<string>(),
    };
    const read: Session[] = [];
    for await (const item of codex.read(await codex.locate(ctx), ctx))
      if (item.kind === 'session') read.push(item.session);
    expect(read.map((s) => s.sessionId).sort()).toEqual([...sessions.values()].map((s) => s.sessionId).sort());
    for (const s of read) {
      const original = [...sessions.values()].find((o) => o.sessionId === s.sessionId)!;
      expect(sessionStats(s).tokens).toEqual(sessionStats(original).tokens);
    }
    expect(seen).toEqual([]);
  });
});

describe.skipIf(!present)('Codex 0.47.0 sample (yoavf, real)', () => {
  it('has the session identity, three prompts and the hand-counted tools', () => {
    const s = of(YOAVF);
    expect(s).toMatchObject({
      sessionId: '019a085e-04c1-7f81-a09e-9555f6a1fb40',
      cwd: '/Users/yoavfarhi/dev/pomodoro/codex',
      cliVersion: '0.47.0',
      models: ['gpt-5-codex'],
      startedAt: '2025-10-21T20:02:50.705Z',
    });
    expect(s.title).toMatch(/^Build a simple Pomodoro timer web app using HTML, CSS, and JavaScript\./);
    const stats = sessionStats(s);
    expect(stats.prompts).toBe(3);
    // 21 distinct totals among the 42 token_count events = 21 requests = 21 responses.
    expect(stats.entries).toBe(21);
    expect(stats.toolUsesByName).toEqual({ shell: 3, update_plan: 4, apply_patch: 11 });
    expect(calls(s).every((c) => c.tool_call!.status === 'completed' && c.tool_call!.result_id)).toBe(true);
  });

  it("counts the last token_count's last_token_usage once, on the response after it (line 151 → 152)", () => {
    const s = of(YOAVF);
    // line 151: last_token_usage {input 18733, cached 18432, output 1123, reasoning 1024, total 19856}
    expect(byLine(s.messages, 152)[0]!.metadata?.usage).toEqual({
      input: 18733 - 18432,
      output: 1123,
      cacheRead: 18432,
      cacheCreation: 0,
    });
    expect(byLine(s.messages, 151)[0]!.metadata?.usage).toBeUndefined();
    // The sum over the session equals the last total_token_usage {input 215755, cached 181760, output 14976}.
    expect(sessionStats(s).tokens).toEqual({
      input: 215755 - 181760,
      output: 14976,
      cacheRead: 181760,
      cacheCreation: 0,
    });
  });

  it('unwraps the JSON-string outputs of 0.4x and keeps the environment context out of the prompts', () => {
    const s = of(YOAVF);
    const result = byLine(s.messages, 11)[0]!;
    expect(result.tool_call).toMatchObject({ name: 'shell', status: 'completed', output: '' });
    expect(result.metadata).toMatchObject({ exit_code: 0, duration_ms: 0 });
    expect(byLine(s.messages, 2)[0]!.metadata?.kind).toBe('injected');
    expect(byLine(s.messages, 68)[0]!.segments[0]!.text).toBe('add smooth transitions between states');
    expect(byLine(s.messages, 9)[0]!.metadata).toMatchObject({ encrypted_length: expect.any(Number) });
    expect(JSON.stringify(s)).not.toContain('gAAAAA');
  });
});

describe.skipIf(!present)('Codex Desktop 0.104.0-alpha.1 samples (madshn, real-sanitized)', () => {
  it('13-19-38 ends with an unanswered function_call', () => {
    const s = of(SHORT);
    const last = calls(s).pop()!;
    // Line 18 is the call; line 19, the last, is only its token_count.
    expect(last.raw.line_index).toBe(18);
    expect(s.messages[s.messages.length - 1]!.raw).toMatchObject({ line_index: 19, payload_type: 'token_count' });
    expect(last.tool_call).toMatchObject({
      call_id: 'call_UtYwHmwWekzvq83m8Rb9K8jJ',
      name: 'exec_command',
      status: 'unanswered',
    });
    expect(last.tool_call!.result_id).toBeUndefined();
    const stats = sessionStats(s);
    expect(stats.pattern).toBe('incomplete');
    expect(stats.prompts).toBe(1);
    // One counted request: total {input 34469, cached 3456, output 431}; the first token_count has info null.
    expect(stats.tokens).toEqual({ input: 34469 - 3456, output: 431, cacheRead: 3456, cacheCreation: 0 });
    // 4 developer + 4 non-prompt user items are injected context; the prompt is the user_message event.
    expect(s.messages.filter((m) => m.metadata?.kind === 'injected')).toHaveLength(8);
  });

  it('20-34-25 links its five MCP calls and sums to the last total', () => {
    const s = of(MCP);
    expect(calls(s).map((c) => [c.tool_call!.name, c.tool_call!.status, Boolean(c.tool_call!.result_id)])).toEqual([
      ['mcp__cloud-associates__search_workflows', 'completed', true],
      ['[REDACTED_NAME len=43 sha=c186413b]', 'completed', true],
      ['mcp__cloud-associates__execute_workflow', 'completed', true],
      ['mcp__cloud-associates__execute_workflow', 'completed', true],
      ['mcp__cloud-associates__execute_workflow', 'completed', true],
    ]);
    const stats = sessionStats(s);
    expect([stats.prompts, stats.entries, stats.toolRounds, stats.pattern]).toEqual([1, 6, 5, 'multi_tool']);
    // Last total_token_usage: {input 298373, cached 238848, output 1123}; 12 token_count lines, 6 distinct totals.
    expect(stats.tokens).toEqual({ input: 298373 - 238848, output: 1123, cacheRead: 238848, cacheCreation: 0 });
    expect(s.messages.filter((m) => m.metadata?.usage)).toHaveLength(6);
  });

  it('12-41-04 links all 118 calls and flags the redacted, non-JSON arguments', () => {
    const s = of(LONG);
    const all = calls(s);
    expect(all).toHaveLength(118);
    expect(all.every((c) => c.tool_call!.result_id && c.tool_call!.status === 'completed')).toBe(true);
    expect(
      all.every((c) => c.metadata?.arguments_invalid_json === true && c.tool_call!.arguments_json === undefined),
    ).toBe(true);
    expect(sessionStats(s).toolUsesByName).toEqual({ exec_command: 116, write_stdin: 2 });
    // Last total_token_usage: {input 1751428, cached 1651968, output 14600}.
    expect(sessionStats(s).tokens).toEqual({
      input: 1751428 - 1651968,
      output: 14600,
      cacheRead: 1651968,
      cacheCreation: 0,
    });
  });
});

describe.skipIf(!present)('Codex 0.146.0 fingerprint sample (agent-sessions stage0)', () => {
  it('takes its identity from the first session_meta and keeps the other six as notes', () => {
    const s = of(STAGE0);
    expect(s.sessionId).toBe('019fc8be-3658-7ca3-9e29-000000000000');
    expect(s.cwd).toBe('/tmp/repo');
    const metas = s.messages.filter((m) => m.source_type === 'session');
    expect(metas.map((m) => m.metadata?.subtype)).toEqual([
      'session_meta',
      ...Array(6).fill('session_meta (another session)'),
    ]);
  });

  it('shows its six compactions as boundaries and keeps world_state and newer events as meta', () => {
    const s = of(STAGE0);
    expect(s.messages.filter((m) => m.metadata?.kind === 'compact_boundary')).toHaveLength(6);
    expect(byLine(s.messages, 3)[0]).toMatchObject({ role: 'meta', metadata: { subtype: 'world_state' } });
    expect(byLine(s.messages, 20)[0]).toMatchObject({ metadata: { kind: 'interrupt', reason: 'interrupted' } });
    // "[trimmed for fixture]" timestamps are inferred from the last real one.
    expect(byLine(s.messages, 27)[0]).toMatchObject({
      timestamp: '2026-08-03T10:48:56.000Z',
      timestamp_estimated: true,
    });
    // The one request with real numbers: line 22, input 16341, cached 3584, output 81.
    expect(byLine(s.messages, 23)[0]!.metadata?.usage).toEqual({
      input: 16341 - 3584,
      output: 81,
      cacheRead: 3584,
      cacheCreation: 0,
    });
  });

  it('links the custom_tool_call to its output that comes after other events', () => {
    const s = of(STAGE0);
    const call = byLine(s.messages, 9)[0]!;
    expect(call.tool_call).toMatchObject({ call_id: 'call-1', name: 'shell', status: 'completed' });
    const result = s.messages.find((m) => m.id === call.tool_call!.result_id)!;
    expect(result.raw.line_index).toBe(21);
    expect(result.tool_call!.output).toBe('a.txt\nb.txt\n');
  });
});
