import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { candidateHomes, copilotCli, parseWorkspaceYaml } from '../../src/sources/copilot-cli/index.ts';
import type { SourceContext } from '../../src/sources/source.ts';
import { REPO, tempDir } from '../helpers/paths.ts';

const FIXTURE = path.join(REPO, 'fixtures', 'copilot-cli');
const MAIN_ID = 'c0ffee00-1111-4222-8333-444455556666';
const OLD_ID = '0ld5e551-0000-4000-8000-000000000001';

async function copy(from = FIXTURE): Promise<string> {
  const dir = path.join(await tempDir('copilot'), 'copilot-home');
  await fs.cp(from, dir, { recursive: true });
  return dir;
}

async function hashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    out[file] = createHash('sha1')
      .update(await fs.readFile(file))
      .digest('hex');
  }
  return out;
}

async function run(dir: string, dataDir?: string) {
  const data = dataDir ?? path.join(await tempDir('copilot-data'), 'd');
  const warnings: string[] = [];
  const report = await collect({
    home: await tempDir('copilot-home'),
    env: {},
    dataDir: data,
    sourceOptions: { explicitHome: 'true', copilotDir: [dir] },
    sources: [copilotCli],
    onWarning: (w) => warnings.push(`${w.file}:${w.line ?? ''}: ${w.message}`),
  });
  const summaries = JSON.parse(
    await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  return { data, report, warnings, byId: new Map(summaries.map((s) => [s.sessionId, s])) };
}

describe('Copilot CLI sessions', () => {
  it('reads a session with tools, a subagent, a resume and two shutdowns; tokens counted once', async () => {
    const dir = await copy();
    const before = await hashes(dir);
    const { data, byId, warnings, report } = await run(dir);
    const events = path.join(dir, 'session-state', MAIN_ID, 'events.jsonl');
    // The torn line costs that line only.
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`^${events.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:10: .*JSON`)),
    ]);
    expect(report.sources.find((s) => s.id === 'copilot-cli')).toMatchObject({ sessions: 2 });

    const s = byId.get(MAIN_ID)!;
    expect(s).toMatchObject({
      source: 'copilot-cli',
      title: 'Fix the add() test: it subtracted', // workspace.yaml summary
      cwd: '/home/alice/work/webapp',
      gitBranch: 'main',
      cliVersion: '0.0.400',
      startedAt: '2026-03-05T10:00:00.000Z',
      endedAt: '2026-03-05T11:00:10.000Z',
      models: ['claude-haiku-4.5', 'claude-sonnet-4.5'],
      subagents: 1,
    });
    expect(s.files.sort()).toEqual([events, path.join(dir, 'session-state', MAIN_ID, 'workspace.yaml')].sort());
    // Shutdown 1: sonnet 12000 in (8000 cache read, 3000 cache write → 1000), haiku 5000 (4000, 500 → 500).
    // Shutdown 2 is a running total (its output 550 = every message's 120+180+60+40+150): sonnet adds
    // 20000-14000-4000 = 2000 - 1000 = 1000 input, 150 output, 6000 read, 1000 write; haiku adds nothing.
    expect(s.stats.tokens).toEqual({ input: 2500, output: 550, cacheRead: 18000, cacheCreation: 4500 });
    expect(s.stats.tokensByModel).toMatchObject({
      'claude-sonnet-4.5': { input: 2000, output: 450, cacheRead: 14000, cacheCreation: 4000 },
      'claude-haiku-4.5': { input: 500, output: 100, cacheRead: 4000, cacheCreation: 500 },
    });
    expect(s.stats).toMatchObject({
      prompts: 2,
      entries: 5, // m1, m2, m3 and the subagent's s1, s2
      subagentEntries: 2,
      toolUses: 4,
      toolUsesByName: { bash: 1, view: 1, task: 1, grep: 1 },
      toolErrors: 1,
      toolErrorsByName: { view: 1 },
    });

    const body = (await readBodyFile(data, s.body))!.session;
    const msgs = body.messages;
    const call = (id: string) => msgs.find((m) => m.source_type === 'tool_call' && m.tool_call?.call_id === id)!;
    const result = (id: string) => msgs.find((m) => m.source_type === 'tool_result' && m.tool_call?.call_id === id)!;
    expect(call('call_bash_1').tool_call).toMatchObject({
      name: 'bash',
      status: 'completed',
      result_id: result('call_bash_1').id,
    });
    expect(call('call_bash_1').tool_call!.arguments_json).toEqual({ command: 'npm test', description: 'Run tests' });
    expect(result('call_bash_1').tool_call).toMatchObject({
      name: 'bash',
      output: expect.stringContaining('exit code 1'),
    });
    expect(result('call_bash_1').id).toBe('2026-03-05T10:00:08.000Z#11');
    expect(call('call_view_1').tool_call).toMatchObject({ status: 'error' });
    expect(result('call_view_1').tool_call!.output).toBe('Path does not exist');
    const response = msgs.find((m) => m.id === '2026-03-05T10:00:05.000Z#6.0')!;
    expect(response.segments.map((g) => [g.format, g.text])).toEqual([
      ['thinking', 'I should read the test file and run it.'],
      ['text', 'Let me look at the test first.'],
    ]);
    expect(response.metadata).toMatchObject({ kind: 'response', model: 'claude-sonnet-4.5', output_tokens: 120 });
    expect(msgs.find((m) => m.raw.event_type === 'system.message')).toMatchObject({
      role: 'system',
      metadata: { kind: 'injected' },
    });
    const unknown = msgs.find((m) => m.raw.event_type === 'session.future_thing')!;
    expect(unknown.metadata?.kind).toBe('unknown');
    expect(unknown.raw.record).toMatchObject({ data: { whatever: 42 } });
    // Premium requests: 2 (sonnet) + 0 (haiku) at the first shutdown, 1 more at the second.
    const premium = msgs.reduce((sum, m) => sum + (Number(m.metadata?.premiumRequests) || 0), 0);
    expect(premium).toBe(3);
    // The subagent is a thread under its task call.
    expect(body.subagents).toHaveLength(1);
    expect(body.subagents[0]).toMatchObject({
      agentId: 'toolu_task_01',
      agentType: 'explore',
      parentCallId: 'toolu_task_01',
    });
    const sub = body.subagents[0]!.messages;
    expect(
      sub.find((m) => m.tool_call?.call_id === 'call_grep_1' && m.source_type === 'tool_call')!.tool_call,
    ).toMatchObject({
      name: 'grep',
      status: 'completed',
    });
    expect(sub.every((m) => m.id.startsWith('toolu_task_01:2026-03-05T'))).toBe(true);

    // The older flat layout, without a shutdown: only the output tokens are known.
    const old = byId.get(OLD_ID)!;
    expect(old).toMatchObject({
      title: 'What does git rebase -i do?',
      cwd: '/home/alice/notes',
      cliVersion: '0.0.330',
      models: ['gpt-5'],
    });
    expect(old.stats.tokens).toEqual({ input: 0, output: 42, cacheRead: 0, cacheCreation: 0 });

    expect(await hashes(dir)).toEqual(before); // never written
    const again = await run(dir, data);
    expect(again.report.sources.find((x) => x.id === 'copilot-cli')).toMatchObject({ sessions: 0, unchanged: 2 });
  });

  it('a bad record costs that record only; a session with no conversation is not archived', async () => {
    const dir = await copy();
    const file = path.join(dir, 'session-state', OLD_ID + '.jsonl');
    await fs.appendFile(
      file,
      '["not an event"]\n{"type":"user.message","data":{"content":7},"timestamp":"2025-11-02T09:01:00.000Z"}\n',
    );
    const empty = path.join(dir, 'session-state', 'e0000000-0000-4000-8000-000000000000');
    await fs.mkdir(empty);
    await fs.writeFile(
      path.join(empty, 'events.jsonl'),
      '{"type":"session.start","data":{"sessionId":"e0000000"},"timestamp":"2026-01-01T00:00:00.000Z"}\n',
    );
    const { warnings, byId } = await run(dir);
    expect(warnings.filter((w) => w.startsWith(file))).toEqual([
      `${file}:4: not an event (an object with a "type"); skipped`,
      `${file}:5: user.message not understood ("content" is not text); kept as unknown`,
    ]);
    expect(byId.get(OLD_ID)!.stats.prompts).toBe(1);
    expect(byId.has('e0000000')).toBe(false);
  });

  it('finds $COPILOT_HOME and $XDG_CONFIG_HOME/.copilot unless --home was given; parses workspace.yaml', () => {
    const ctx = (options: SourceContext['options'], env: NodeJS.ProcessEnv) =>
      ({ home: '/h', env, options, warn: () => {}, archived: new Set() }) as SourceContext;
    const env = { COPILOT_HOME: '/c', XDG_CONFIG_HOME: '/x' };
    expect(candidateHomes(ctx({}, env))).toEqual(['/c', '/x/.copilot', '/h/.copilot']);
    expect(candidateHomes(ctx({ explicitHome: 'true' }, env))).toEqual(['/h/.copilot']);
    expect(candidateHomes(ctx({ copilotDir: ['~/cp'] }, env))).toEqual(['/h/cp']);
    expect(
      parseWorkspaceYaml("id: x\nsummary: |-\n  Two\n  lines\nname: 'it''s'\nbranch: \"a: b\"\nnested:\n  k: v\n"),
    ).toEqual({ id: 'x', summary: 'Two\nlines', name: "it's", branch: 'a: b' });
  });
});

describe('Copilot CLI real files (fixtures/copilot-cli/real, see SOURCES.md)', () => {
  it('reads the workspace.yaml the CLI wrote', async () => {
    const real = path.join(FIXTURE, 'real');
    const a = parseWorkspaceYaml(await fs.readFile(path.join(real, 'custom-dir-workspace.yaml'), 'utf8'));
    expect(a).toEqual({
      id: 'b7c5d3e2-4a1f-4b8c-9d2e-1234567890ab',
      cwd: '/Users/testuser/workspace/demo-project',
      git_root: '/Users/testuser/workspace/demo-project',
      repository: 'test-org/demo-project',
      branch: 'main',
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: '2026-01-15T10:00:30.000Z',
      name: 'E2E custom-dir test fixture (copilot CLI generated, sanitized)',
    });
    const b = parseWorkspaceYaml(await fs.readFile(path.join(real, 'session-medium-workspace.yaml'), 'utf8'));
    expect(b).toMatchObject({
      id: '66957610-db49-4dea-972d-c079e1898044',
      cwd: '/Users/testuser',
      name: 'list available models',
    });
  });
});
