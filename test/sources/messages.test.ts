import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { sessionsCost } from '../../src/insights/cost.ts';
import { runCli } from '../helpers/cli.ts';
import { REPO, tempDir } from '../helpers/paths.ts';

const FIXTURE = path.join(REPO, 'fixtures', 'messages');
const MTIME = new Date('2026-03-06T08:30:00Z');

/** A copy of fixtures/messages with the undated file's mtime set (a checkout gives it any time). */
async function fixtureCopy(): Promise<string> {
  const dir = path.join(await tempDir('messages'), 'agent');
  await fs.cp(FIXTURE, dir, { recursive: true });
  await fs.utimes(path.join(dir, 'openai-chat.json'), MTIME, MTIME);
  return dir;
}

async function collectDir(dir: string, dataDir?: string) {
  const data = dataDir ?? path.join(await tempDir('messages-data'), 'd');
  const warnings: string[] = [];
  const home = await tempDir('messages-home');
  const report = await collect({
    home,
    env: {},
    dataDir: data,
    sourceOptions: { explicitHome: 'true', messagesDir: [dir] },
    onWarning: (w) => warnings.push(`${w.file}:${w.line ?? ''}: ${w.message}`),
  });
  const summaries = JSON.parse(
    await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  return { data, report, warnings, byId: new Map(summaries.map((s) => [s.sessionId, s])) };
}

describe('custom agent message lists (seed 002)', () => {
  it('reads Anthropic-style JSONL and OpenAI-style JSON as sessions like any other', async () => {
    const dir = await fixtureCopy();
    const { data, byId, warnings, report } = await collectDir(dir);
    expect(warnings).toEqual([]);
    expect(report.sources.find((s) => s.id === 'messages')).toMatchObject({ sessions: 3, found: [dir] });
    expect([...byId.keys()].sort()).toEqual(['ask-user', 'openai-chat', 'read-hello']);

    const hello = byId.get('read-hello')!;
    expect(hello).toMatchObject({
      source: 'messages',
      title: 'hello.py を読んで',
      cwd: path.join(dir, 'mini-agent'), // relative to the messages directory
      startedAt: '2026-03-05T01:00:00.000Z',
      endedAt: '2026-03-05T01:00:05.000Z',
      models: ['claude-sonnet-4-5-20250929'],
    });
    expect(hello.stats).toMatchObject({
      prompts: 1,
      entries: 2,
      toolRounds: 1,
      toolUses: 1,
      toolUsesByName: { read_file: 1 },
      pattern: 'single_tool',
      tokens: { input: 2600, output: 140, cacheRead: 0, cacheCreation: 0 },
    });
    // 2600 × $3/M + 140 × $15/M
    expect(sessionsCost([hello]).usd).toBeCloseTo(0.0099, 10);

    const ask = byId.get('ask-user')!;
    expect(ask.startedAt).toBe('2026-03-05T01:00:00.000Z');
    expect(ask.stats).toMatchObject({
      prompts: 1,
      entries: 3,
      toolRounds: 2,
      toolUsesByName: { ask_user: 1, delete_file: 1 },
      pattern: 'multi_tool',
    });
    expect(ask.cwd).toBe(dir);

    const openai = byId.get('openai-chat')!;
    expect(openai.startedAt).toBe(MTIME.toISOString()); // no timestamps: the file's mtime
    expect(openai.stats).toMatchObject({
      prompts: 1,
      entries: 2,
      toolUsesByName: { read_file: 1 },
      pattern: 'single_tool',
    });

    // The call shows its result; the result carries the call's tool name (OpenAI results name none).
    const body = await readBodyFile(data, openai.body);
    const messages = body!.session.messages;
    const call = messages.find((m) => m.source_type === 'tool_call')!;
    const result = messages.find((m) => m.source_type === 'tool_result')!;
    expect(call.tool_call).toMatchObject({ name: 'read_file', status: 'completed', result_id: result.id });
    expect(call.tool_call!.arguments_json).toEqual({ path: 'hello.py' });
    expect(result.tool_call).toMatchObject({ name: 'read_file', output: "def greet():\n    return 'Hello'" });
    expect(result.timestamp_estimated).toBe(true);
    expect(messages[0]).toMatchObject({ role: 'system', metadata: { kind: 'injected' } });
  });

  it('a bad line costs that line only, with a warning naming file and line; unchanged files are not read again', async () => {
    const dir = await fixtureCopy();
    await fs.appendFile(
      path.join(dir, 'ask-user.jsonl'),
      '{"role": "user", "content": "broken\n{"content": "no role"}\n',
    );
    const first = await collectDir(dir);
    expect(first.warnings).toEqual([
      expect.stringMatching(/ask-user\.jsonl:7: .*JSON/),
      `${path.join(dir, 'ask-user.jsonl')}:8: not a message (an object with a "role"); skipped`,
    ]);
    expect(first.byId.get('ask-user')!.stats.entries).toBe(3);
    const again = await collectDir(dir, first.data);
    expect(again.report.sources.find((s) => s.id === 'messages')).toMatchObject({ sessions: 0, unchanged: 3 });
  });

  it('the CLI takes --messages-dir and reports the sessions', async () => {
    const dir = await fixtureCopy();
    const home = await tempDir('messages-cli');
    const data = path.join(home, 'data');
    const run = await runCli([
      'report',
      '--day',
      '2026-03-05',
      '--home',
      home,
      '--data',
      data,
      '--tz',
      'UTC',
      '--messages-dir',
      dir,
      '-v', // report prints where it looked only when asked
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^Custom agent messages: .*: 3 sessions$/m);
    expect(run.stdout).toContain('hello.py を読んで');
    expect(run.stdout).toMatch(/ファイルを削除して .*Custom agent\b[\s\S]*1 prompt · 3 entries · 2 tool uses/);
  });
});
