import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { HistoryPrompt, SessionSummary } from '../../src/model/session.ts';
import { qwenCode } from '../../src/sources/qwen-code/index.ts';
import { locateQwen } from '../../src/sources/qwen-code/paths.ts';
import type { SourceContext } from '../../src/sources/source.ts';
import { REPO, tempDir } from '../helpers/paths.ts';

// Hand-made fixture built from QwenLM/qwen-code packages/core/src/services/chatRecordingService.ts (ChatRecord:
// user / assistant / tool_result / system records, `message` as a Gemini Content, `usageMetadata`, `toolCallResult`,
// system subtypes) and packages/core/src/config/storage.ts (projects/<sanitized cwd>/chats, tmp/<sha256>/logs.json);
// see docs/formats/qwen-code.md. Numbers below counted by hand.
const FIXTURE = path.join(REPO, 'fixtures/qwen-code/qwen');
const MAIN = '7d1c2e9a-4b6f-4f21-9c3e-2a5b8e0f1d44';
const WIN = '2f0e8b61-93c4-4d5a-8e7f-0b1c2d3e4f50';
const MAIN_FILE = `projects/-home-dev-notes-api/chats/${MAIN}.jsonl`;
/** tmp/<sha256 of /home/dev/notes-api>: where that project's logs.json is. */
const HASH_DIR = createHash('sha256').update('/home/dev/notes-api').digest('hex');

async function copy(): Promise<string> {
  const to = path.join(await tempDir('qwen'), '.qwen');
  await fs.cp(FIXTURE, to, { recursive: true });
  return to;
}

async function run(dir: string, dataDir?: string) {
  const data = dataDir ?? path.join(await tempDir('qwen-data'), 'd');
  const warnings: string[] = [];
  const report = await collect({
    home: await tempDir('qwen-home'),
    env: {},
    dataDir: data,
    sourceOptions: { explicitHome: 'true', qwenDir: [dir] },
    sources: [qwenCode],
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

describe('Qwen Code chats (projects/<cwd>/chats/<id>.jsonl, tmp/<hash>/logs.json)', () => {
  it('reads the session: title, cwd, branch, version, models, tokens once per request, tools joined', async () => {
    const dir = await copy();
    const before = await digest(dir);
    const { warnings, byId, body, data } = await run(dir);
    expect(warnings).toEqual([
      `${MAIN_FILE}:7: invalid JSON (Unexpected end of JSON input); line skipped`,
      'tmp/5dad63c89d16c904bb146c33cb562d9b826f0db0d6e7ab159b01e2ac912e584a/logs.json:3: log entry 2 without message or timestamp; skipped',
    ]);
    // The empty file (created at start-up, never written to) is no session.
    expect([...byId.keys()].sort()).toEqual([WIN, MAIN].sort());
    const s = byId.get(MAIN)!;
    expect(s).toMatchObject({
      source: 'qwen-code',
      title: 'Hide deleted notes from search', // the last custom_title record
      cwd: '/home/dev/notes-api',
      gitBranch: 'fix/search',
      cliVersion: '0.25.0', // the last version written
      startedAt: '2026-03-06T09:00:00.000Z',
      endedAt: '2026-03-06T09:01:04.000Z',
      models: ['qwen3-coder-flash', 'qwen3-coder-plus'],
    });
    expect(s.stats).toMatchObject({
      prompts: 3, // lines 1, 10 and 15 (after the rewind); /stats is a command
      toolUsesByName: { read_file: 1, edit: 1, run_shell_command: 2 },
      toolErrorsByName: { run_shell_command: 1 },
      toolRefusalsByName: { run_shell_command: 1 },
      // line 3: 12000−8000 / 180 (thoughts inside the candidates: 12000+180 = total) / 8000
      // line 5: 12500−12000 / 60+30 (thoughts apart: 12500+60+30 = total) / 12000
      // line 8 (summary form): 13000−12500 / 20 / 12500; line 11: 200 / 25 / 13000; line 16: 2400 / 15 / 0
      tokens: { input: 7600, output: 330, cacheRead: 45500, cacheCreation: 0 },
    });
    const m = (await body(MAIN)).messages;
    expect(m.map((x) => [x.raw.line_index, x.source_type, x.metadata?.kind ?? ''])).toEqual([
      [1, 'message', 'prompt'],
      [2, 'meta', 'system_event'],
      [3, 'message', 'response'],
      [3, 'tool_call', 'response'],
      [4, 'tool_result', ''],
      [5, 'tool_call', 'response'],
      [6, 'tool_result', ''],
      // line 7 is not JSON: that line only is lost
      [8, 'tool_call', 'response'],
      [9, 'tool_result', ''],
      [10, 'message', 'prompt'],
      [11, 'tool_call', 'response'],
      [12, 'tool_result', ''],
      [13, 'meta', 'compact_boundary'],
      [14, 'meta', 'system_event'],
      [15, 'message', 'prompt'],
      [16, 'message', 'response'],
      [17, 'message', 'command'],
      [18, 'meta', 'command_output'],
      [19, 'meta', 'title'],
      [20, 'meta', 'unknown'],
      [21, 'meta', 'system_event'],
    ]);
    expect(m[2]!.segments.map((g) => [g.format, g.text])).toEqual([
      ['thinking', 'The search query probably ignores deletedAt.'],
      ['text', "I'll read the search module."],
    ]);
    expect(m[2]!.metadata).toMatchObject({
      model: 'qwen3-coder-plus',
      response_id: 'a0000000-0000-4000-8000-000000000003',
    });
    expect(m[2]!.metadata!.usage).toEqual({ input: 4000, output: 180, cacheRead: 8000, cacheCreation: 0 });
    expect(m[3]!.metadata!.usage).toBeUndefined();
    expect(m[3]!.tool_call).toMatchObject({
      call_id: 'call_read_1',
      name: 'read_file',
      status: 'completed',
      result_id: m[4]!.id,
      arguments_json: { absolute_path: '/home/dev/notes-api/src/search.ts' },
    });
    expect(m[4]).toMatchObject({ timestamp: '2026-03-06T09:00:04.200Z', id: '2026-03-06T09:00:04.200Z#4' });
    expect(m[4]!.tool_call!.output).toMatch(/^export function search\(q: string\)/);
    // A call made alone carries its request's usage itself.
    expect(m[5]!.metadata!.usage).toEqual({ input: 500, output: 90, cacheRead: 12000, cacheCreation: 0 });
    expect(m[6]!.tool_call).toMatchObject({ name: 'edit', status: 'completed' });
    expect(m[7]!.tool_call).toMatchObject({ name: 'run_shell_command', status: 'rejected', result_id: m[8]!.id });
    expect(m[8]!.tool_call!.output).toBe('[Operation Cancelled] Reason: User cancelled the operation.');
    expect(m[10]!.tool_call).toMatchObject({ status: 'error', result_id: m[11]!.id });
    expect(m[11]!.tool_call).toMatchObject({ status: 'error', output: 'Command exited with code: 1' });
    expect(m[12]!.metadata).toMatchObject({ compact: { pre_tokens: 13250 }, post_tokens: 2100 });
    expect(m[13]!.metadata!.subtype).toBe('rewind');
    expect(m[15]!.metadata).toMatchObject({ model: 'qwen3-coder-flash' });
    expect(text(m[16]!)).toBe('/stats');
    expect(text(m[17]!)).toBe('Session stats: 5 requests');
    expect(m[18]!.metadata).toMatchObject({ title: 'Hide deleted notes from search', title_source: 'auto' });
    expect(m[19]).toMatchObject({
      metadata: { kind: 'unknown', subtype: 'checkpoint_marker' },
      raw: { event_type: 'checkpoint_marker', record: { note: 'a record type this reader does not know' } },
    });

    const prompts = JSON.parse(
      await fs.readFile(path.join(data, 'prompts', 'qwen-code.json'), 'utf8'),
    ) as HistoryPrompt[];
    // tmp/<sha256 of the folder>/logs.json: filed under the folder whose hash names it.
    expect(prompts.map((p) => [p.text, p.project, p.sessionId])).toEqual([
      ['Search returns deleted notes; fix it', '/home/dev/notes-api', MAIN],
      ['Run only the search tests', '/home/dev/notes-api', MAIN],
    ]);
    expect(await digest(dir)).toEqual(before); // never written
  });

  it('reads a session from Windows: the folder as recorded, a notification as injected', async () => {
    const { byId, body } = await run(await copy());
    expect(byId.get(WIN)).toMatchObject({
      title: 'What does build.ps1 do?',
      cwd: 'C:\\Users\\dev\\site',
      models: ['qwen3-coder-plus'],
      cliVersion: '0.24.4',
    });
    expect(byId.get(WIN)!.gitBranch).toBeUndefined();
    expect(byId.get(WIN)!.stats.prompts).toBe(1);
    const m = (await body(WIN)).messages;
    expect(m[2]).toMatchObject({ role: 'system', metadata: { kind: 'injected', subtype: 'notification' } });
    // The text shown to the user, the text sent to the model kept beside it.
    expect(text(m[2]!)).toBe('Background shell finished');
    expect(m[2]!.metadata!.sent_text).toBe('<task-notification>Background shell finished</task-notification>');
  });

  it('a second collect does not reopen an unchanged file; an appended line reads it again', async () => {
    const dir = await copy();
    const file = path.join(dir, MAIN_FILE);
    const at = new Date('2026-03-06T09:01:05.000Z');
    await fs.utimes(file, at, at);
    const first = await run(dir);
    // Same size, same mtime, other bytes: were the file opened again, its records would be gone (and warned).
    const original = await fs.readFile(file);
    await fs.writeFile(file, Buffer.alloc(original.length, 0x7b));
    await fs.utimes(file, at, at);
    const again = await run(dir, first.data);
    expect(again.report.sources.find((r) => r.id === 'qwen-code')).toMatchObject({ sessions: 0, unchanged: 2 });
    expect(again.warnings.filter((w) => w.startsWith('projects/'))).toEqual([]);
    expect(again.byId.get(MAIN)!.stats.prompts).toBe(3);
    await fs.writeFile(file, original);
    await fs.appendFile(
      file,
      `{"uuid":"z1","parentUuid":null,"sessionId":"${MAIN}","timestamp":"2026-03-06T09:02:00.000Z","type":"user","cwd":"/home/dev/notes-api","version":"0.25.0","message":{"role":"user","parts":[{"text":"thanks"}]}}\n`,
    );
    const third = await run(dir, first.data);
    expect(third.report.sources.find((r) => r.id === 'qwen-code')).toMatchObject({ sessions: 1, unchanged: 1 });
    expect(third.byId.get(MAIN)!.stats.prompts).toBe(4);
    expect(third.byId.get(MAIN)!.endedAt).toBe('2026-03-06T09:02:00.000Z');
  });

  it("prompts filed under a folder's hash while its project's first record was half written are filed again later", async () => {
    const dir = await copy();
    const file = path.join(dir, MAIN_FILE);
    const whole = await fs.readFile(file, 'utf8');
    // Caught while Qwen Code writes the session's first line: no record yet names the folder.
    await fs.writeFile(file, whole.slice(0, 40));
    const first = await run(dir);
    const prompts = async () =>
      (
        JSON.parse(await fs.readFile(path.join(first.data, 'prompts', 'qwen-code.json'), 'utf8')) as HistoryPrompt[]
      ).map((p) => p.project);
    expect(await prompts()).toEqual([HASH_DIR, HASH_DIR]);
    await fs.writeFile(file, whole);
    await run(dir, first.data);
    expect(await prompts()).toEqual(['/home/dev/notes-api', '/home/dev/notes-api']);
  });

  it('reads a session in the older layout (tmp/<hash>/chats/session-*.json): a real Gemini CLI recording', async () => {
    // Qwen Code wrote Gemini CLI's JSON sessions before its own recorder (QwenLM/qwen-code#1100). No such file from
    // Qwen Code is public; git-ai's real Gemini CLI session is the same layout (fixtures/gemini-cli/real/SOURCES.md).
    const dir = await copy();
    const hash = '28be4f5feb651b48879e1281570b925ec19d4e00cd5aa13d3b3f17fe9efd858d';
    const chats = path.join(dir, 'tmp', hash, 'chats');
    await fs.mkdir(chats, { recursive: true });
    await fs.copyFile(
      path.join(REPO, 'fixtures/gemini-cli/real/git-ai-session-simple.json'),
      path.join(chats, 'session-2025-12-06T18-25-18f475c0.json'),
    );
    await fs.writeFile(path.join(chats, 'session-2025-12-07T10-00-0badf00d.json'), '{"sessionId": "half-writ');
    const first = await run(dir);
    const broken = first.warnings.filter((w) => w.startsWith(`tmp/${hash}`));
    expect(broken).toHaveLength(1);
    expect(broken[0]).toMatch(
      /chats\/session-2025-12-07T10-00-0badf00d\.json:: not valid JSON \(.+\); the CLI rewrote this file whole; skipped$/,
    );
    const s = first.byId.get('18f475c0-690f-4bc9-b84e-88a0a1e9518f')!;
    expect(s).toMatchObject({
      source: 'qwen-code',
      title: 'add another hello bob console log to @index.ts',
      // No project folder is known: the parent of a tool path whose SHA-256 is the folder's name.
      cwd: '/Users/svarlamov/projects/testing-git',
      startedAt: '2025-12-06T18:25:18.042Z',
      endedAt: '2025-12-06T18:27:49.718Z',
      models: ['gemini-2.5-flash'],
    });
    expect(s.stats).toMatchObject({
      prompts: 1,
      toolUsesByName: { replace: 2, read_file: 2, write_todos: 1 },
      toolErrorsByName: { replace: 1 },
      // Gemini counts thoughts apart (input + output + thoughts = total): Σ(input − cached) = 50933 − 34456,
      // Σ(output + thoughts) = 428 + 389, Σ cached; they add up to Σ total 51750.
      tokens: { input: 16477, output: 817, cacheRead: 34456, cacheCreation: 0 },
    });
    const m = (await first.body(s.sessionId)).messages;
    expect(m.find((x) => x.source_type === 'tool_result')!.tool_call).toMatchObject({
      name: 'replace',
      status: 'error',
    });
    expect(m.filter((x) => x.segments.some((g) => g.format === 'thinking'))).toHaveLength(5);
    const again = await run(dir, first.data);
    expect(again.report.sources.find((r) => r.id === 'qwen-code')).toMatchObject({ sessions: 0, unchanged: 3 });
  });

  it('locates <home>/.qwen, $QWEN_RUNTIME_DIR and $QWEN_HOME unless --home was given, and --qwen-dir', async () => {
    const home = await tempDir('qwen-loc');
    const qwenHome = await tempDir('qwen-env-home');
    const runtime = await tempDir('qwen-env-runtime');
    await fs.mkdir(path.join(home, '.qwen', 'projects'), { recursive: true });
    await fs.mkdir(path.join(qwenHome, 'tmp'), { recursive: true });
    await fs.mkdir(path.join(runtime, 'projects'), { recursive: true });
    const ctx = (options: SourceContext['options'], env = {}) =>
      ({ home, env, options, warn: () => {}, archived: new Set() }) as SourceContext;
    expect((await locateQwen(ctx({}))).found).toEqual([path.join(home, '.qwen')]);
    expect((await locateQwen(ctx({}, { QWEN_HOME: qwenHome }))).found).toEqual([qwenHome]);
    // The sessions go to the runtime folder; the home folder keeps logs.json (tmp/) in older versions.
    expect((await locateQwen(ctx({}, { QWEN_RUNTIME_DIR: runtime, QWEN_HOME: qwenHome }))).found).toEqual([
      runtime,
      qwenHome,
    ]);
    expect((await locateQwen(ctx({}, { QWEN_RUNTIME_DIR: runtime }))).found).toEqual([
      runtime,
      path.join(home, '.qwen'),
    ]);
    expect((await locateQwen(ctx({ explicitHome: 'true' }, { QWEN_HOME: qwenHome }))).found).toEqual([
      path.join(home, '.qwen'),
    ]);
    // --qwen-dir: the folder itself, or one holding .qwen.
    expect((await locateQwen(ctx({ qwenDir: [runtime] }))).found).toEqual([runtime]);
    expect((await locateQwen(ctx({ qwenDir: [home] }))).found).toEqual([path.join(home, '.qwen')]);
  });
});
