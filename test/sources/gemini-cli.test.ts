import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { HistoryPrompt, SessionSummary } from '../../src/model/session.ts';
import { geminiCli } from '../../src/sources/gemini-cli/index.ts';
import { locateGemini } from '../../src/sources/gemini-cli/paths.ts';
import type { SourceContext } from '../../src/sources/source.ts';
import { REPO, tempDir } from '../helpers/paths.ts';

// Hand-made fixture built from google-gemini/gemini-cli packages/core/src/services/chatRecordingService.ts and
// chatRecordingTypes.ts (records, `$set`, `$rewindTo`, subagents in chats/<parent id>/) and
// packages/core/src/config/projectRegistry.ts (projects.json, .project_root); numbers below counted by hand.
const FIXTURE = path.join(REPO, 'fixtures/gemini-cli/gemini');
const REAL = path.join(REPO, 'fixtures/gemini-cli/real');
const MAIN = '0c6f0d2e-5a41-4b7e-9a57-3f1f1e0b2c11';
const MAIN_FILE = `tmp/shop-api/chats/session-2026-03-04T09-00-0c6f0d2e.jsonl`;

async function copy(): Promise<string> {
  const to = path.join(await tempDir('gemini'), '.gemini');
  await fs.cp(FIXTURE, to, { recursive: true });
  return to;
}

async function run(dir: string, dataDir?: string) {
  const data = dataDir ?? path.join(await tempDir('gemini-data'), 'd');
  const warnings: string[] = [];
  const report = await collect({
    home: await tempDir('gemini-home'),
    env: {},
    dataDir: data,
    sourceOptions: { explicitHome: 'true', geminiDir: [dir] },
    sources: [geminiCli],
    onWarning: (w) => warnings.push(`${path.relative(dir, w.file)}:${w.line ?? ''}: ${w.message}`),
  });
  const summaries = JSON.parse(
    await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  const byId = new Map(summaries.map((s) => [s.sessionId, s]));
  const body = async (id: string) => (await readBodyFile(data, byId.get(id)!.body))!.session;
  return { data, report, warnings, byId, body };
}

async function digest(dir: string): Promise<Record<string, string>> {
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

const text = (m: NormalizedMessage) => m.segments.map((s) => s.text).join('|');

describe('Gemini CLI chats (JSONL with $set / $rewindTo, subagents, logs.json)', () => {
  it('replays the JSONL session: title, cwd, times, models, tokens once per request, tools joined', async () => {
    const dir = await copy();
    const before = await digest(dir);
    const { warnings, byId, body, data } = await run(dir);
    expect(warnings[0]).toMatch(/session-2026-03-04T09-00-0c6f0d2e\.jsonl:10: .*JSON/);
    expect(warnings[1]).toBe('tmp/shop-api/logs.json:4: log entry 3 without message or timestamp; skipped');
    expect(warnings).toHaveLength(2);
    expect([...byId.keys()]).toEqual([MAIN]);
    const s = byId.get(MAIN)!;
    expect(s).toMatchObject({
      source: 'gemini-cli',
      title: 'Fix cart total off-by-one', // $set.summary
      cwd: '/home/dev/shop-api', // .project_root
      startedAt: '2026-03-04T09:00:00.100Z',
      endedAt: '2026-03-04T09:00:35.000Z',
      models: ['gemini-2.5-flash', 'gemini-2.5-pro'],
      subagents: 1,
    });
    expect(s.stats).toMatchObject({
      prompts: 3, // u1, the rewound u2, u3
      toolUsesByName: { read_file: 1, replace: 1, run_shell_command: 1, glob: 1 },
      toolErrors: 0,
      toolRefusalsByName: { run_shell_command: 1 },
      // g1: 1200−200+10 / 80+40 / 200; g2: 500/30/1000; g3: 500/55/1200; subagent s2: 300/20/0
      tokens: { input: 2310, output: 225, cacheRead: 2400, cacheCreation: 0 },
    });
    const session = await body(MAIN);
    const m = session.messages;
    expect(m.map((x) => [x.raw.line_index, x.source_type, x.metadata?.kind ?? ''])).toEqual([
      [2, 'message', 'injected'],
      [3, 'message', 'prompt'],
      [6, 'message', 'response'],
      [6, 'tool_call', 'response'],
      [6, 'tool_result', ''],
      [7, 'meta', 'system_event'],
      [8, 'message', 'response'],
      [9, 'message', 'prompt'],
      [12, 'message', 'prompt'],
      [13, 'message', 'response'],
      [13, 'tool_call', 'response'],
      [13, 'tool_result', ''],
      [13, 'tool_call', 'response'],
      [13, 'tool_result', ''],
      [14, 'meta', 'api_error'],
      [15, 'meta', 'unknown'],
    ]);
    expect(m[2]!.segments[0]).toMatchObject({
      format: 'thinking',
      text: 'Reading the test\n\nI should look at cart.test.ts first.',
    });
    expect(m[2]!.metadata).toMatchObject({ response_id: 'g1', model: 'gemini-2.5-pro' });
    expect(m[2]!.metadata!.usage).toEqual({ input: 1010, output: 120, cacheRead: 200, cacheCreation: 0 });
    expect(m[3]!.metadata!.usage).toBeUndefined();
    expect(m[3]!.tool_call).toMatchObject({
      call_id: 'read_file-1',
      name: 'read_file',
      status: 'completed',
      result_id: m[4]!.id,
      arguments_json: { absolute_path: '/home/dev/shop-api/test/cart.test.ts' },
    });
    expect(m[4]).toMatchObject({ timestamp: '2026-03-04T09:00:10.000Z', id: '2026-03-04T09:00:10.000Z#6.2' });
    expect(m[4]!.tool_call).toMatchObject({ name: 'read_file', output: 'expect(total([2, 3])).toBe(6);' });
    expect(m[7]!.metadata!.rewound).toBe(true);
    expect(text(m[7]!)).toBe('Change the test');
    expect(m[10]!.tool_call).toMatchObject({ name: 'replace', status: 'completed', result_id: m[11]!.id });
    expect(m[11]!.tool_call!.output).toBe(
      'Successfully modified file: /home/dev/shop-api/src/cart.ts (1 replacements).',
    );
    expect(m[12]!.tool_call).toMatchObject({ name: 'run_shell_command', status: 'rejected' });
    expect(m[13]!.tool_call).toMatchObject({ status: 'rejected', output: 'Cancelled by user' });
    expect(text(m[14]!)).toBe('[API Error: quota exceeded]');
    expect(m[15]).toMatchObject({
      timestamp_estimated: true,
      raw: { record: { $future: { shape: 'not known yet' } } },
    });
    expect(session.subagents[0]).toMatchObject({ agentId: 'codebase-investigator-7', agentType: 'subagent' });
    expect(session.subagents[0]!.messages.map((x) => x.id)).toEqual([
      '2026-03-04T09:00:13.000Z#codebase-investigator-7:2',
      '2026-03-04T09:00:15.000Z#codebase-investigator-7:3.0',
      '2026-03-04T09:00:15.000Z#codebase-investigator-7:3.1',
      '2026-03-04T09:00:14.000Z#codebase-investigator-7:3.2',
    ]);

    const prompts = JSON.parse(
      await fs.readFile(path.join(data, 'prompts', 'gemini-cli.json'), 'utf8'),
    ) as HistoryPrompt[];
    expect(prompts.map((p) => [p.text, p.project, p.sessionId])).toEqual([
      ['Fix the failing test in cart.test.ts', '/home/dev/shop-api', MAIN],
      ['Change the test', '/home/dev/shop-api', MAIN],
      ['Fix total() instead', '/home/dev/shop-api', MAIN],
    ]);
    expect(await digest(dir)).toEqual(before); // never written
  });

  it('a second collect finds the session unchanged; an appended line reads it again', async () => {
    const dir = await copy();
    const first = await run(dir);
    const again = await run(dir, first.data);
    expect(again.report.sources.find((r) => r.id === 'gemini-cli')).toMatchObject({ sessions: 0, unchanged: 1 });
    await fs.appendFile(
      path.join(dir, MAIN_FILE),
      '{"id":"u4","timestamp":"2026-03-04T09:01:00.000Z","type":"user","content":[{"text":"thanks"}]}\n',
    );
    const third = await run(dir, first.data);
    expect(third.report.sources.find((r) => r.id === 'gemini-cli')).toMatchObject({ sessions: 1 });
    expect(third.byId.get(MAIN)!.stats.prompts).toBe(4);
  });

  it('reads the real git-ai JSON session in a hash-named folder: cwd from the SHA-256 of a tool path', async () => {
    const dir = path.join(await tempDir('gemini-real'), '.gemini');
    const hash = '28be4f5feb651b48879e1281570b925ec19d4e00cd5aa13d3b3f17fe9efd858d';
    const chats = path.join(dir, 'tmp', hash, 'chats');
    await fs.mkdir(chats, { recursive: true });
    await fs.copyFile(
      path.join(REAL, 'git-ai-session-simple.json'),
      path.join(chats, 'session-2025-12-06T18-25-18f475c0.json'),
    );
    await fs.copyFile(
      path.join(REAL, 'git-ai-session-simple.jsonl'),
      path.join(chats, 'session-2025-12-06T18-27-aaaaaaaa.jsonl'),
    );
    const { warnings, byId, body } = await run(dir);
    expect(warnings).toEqual([]);
    const s = byId.get('18f475c0-690f-4bc9-b84e-88a0a1e9518f')!;
    expect(s).toMatchObject({
      title: 'add another hello bob console log to @index.ts',
      cwd: '/Users/svarlamov/projects/testing-git',
      startedAt: '2025-12-06T18:25:18.042Z',
      endedAt: '2025-12-06T18:27:49.718Z',
      models: ['gemini-2.5-flash'],
    });
    expect(s.stats).toMatchObject({
      prompts: 1,
      entries: 6,
      toolUsesByName: { replace: 2, read_file: 2, write_todos: 1 },
      toolErrorsByName: { replace: 1 },
      // Σ(input − cached) = 50933 − 34456; Σ(output + thoughts) = 428 + 389; Σ cached; they add up to Σ total 51750.
      tokens: { input: 16477, output: 817, cacheRead: 34456, cacheCreation: 0 },
    });
    const m = (await body(s.sessionId)).messages;
    const failed = m.find((x) => x.source_type === 'tool_result')!;
    expect(failed.tool_call).toMatchObject({ name: 'replace', status: 'error' });
    expect(failed.tool_call!.output).toMatch(/^Failed to edit, Expected 1 occurrence but found 4/);
    expect(m.filter((x) => x.segments.some((g) => g.format === 'thinking'))).toHaveLength(5);

    // The JSONL fixture (no header line, no results): the session is named after its file, calls unanswered.
    const j = byId.get('session-2025-12-06T18-27-aaaaaaaa')!;
    expect(j).toMatchObject({
      title: 'add another hello bob console log to @index.ts',
      cwd: '/Users/svarlamov/projects/testing-git',
    });
    expect(j.stats).toMatchObject({ entries: 5, toolUsesByName: { replace: 2, read_file: 2 } });
    expect(j.stats.tokens).toEqual({ input: 0, output: 0, cacheRead: 0, cacheCreation: 0 });
  });

  it('locates <home>/.gemini, $GEMINI_CLI_HOME/.gemini unless --home was given, and --gemini-dir', async () => {
    const home = await tempDir('gemini-loc');
    const other = await tempDir('gemini-env');
    await fs.mkdir(path.join(home, '.gemini', 'tmp'), { recursive: true });
    await fs.mkdir(path.join(other, '.gemini', 'tmp'), { recursive: true });
    const ctx = (options: SourceContext['options'], env = {}) =>
      ({ home, env, options, warn: () => {}, archived: new Set() }) as SourceContext;
    expect((await locateGemini(ctx({}))).found).toEqual([path.join(home, '.gemini')]);
    expect((await locateGemini(ctx({}, { GEMINI_CLI_HOME: other }))).found).toEqual([path.join(other, '.gemini')]);
    expect((await locateGemini(ctx({ explicitHome: 'true' }, { GEMINI_CLI_HOME: other }))).found).toEqual([
      path.join(home, '.gemini'),
    ]);
    expect((await locateGemini(ctx({ geminiDir: [other] }))).found).toEqual([path.join(other, '.gemini')]);
  });
});
