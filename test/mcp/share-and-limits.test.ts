import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMcp, type McpRun } from '../helpers/mcp.ts';
import { FIXTURE_HOME, REPO, tempDir } from '../helpers/paths.ts';

const SHARED = 'c0ffee00-0000-4000-8000-0000000000c0';
const BIG = 'b1900000-0000-4000-8000-0000000000b1';
// Assembled at run time so that no secret-shaped string sits in the repository.
const SECRETS = {
  aws: ['AKIA', 'Z7QW3ERT5YU2IOPA'].join(''),
  github: ['ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join(''),
  anthropic: ['sk-ant-api03-', 'Xy9'.repeat(30), 'AA'].join(''),
  slack: ['xoxb-', '123456789012-1234567890123-', 'AbCdEfGhIjKlMnOpQrStUvWx'].join(''),
};
const HOME = '/home/carol';
const EMAIL = ['carol.smith', '@example.org'].join('');
/** A prompt far over any max_chars: Japanese, so a cut must not split it into garbage. */
const LONG_PROMPT = `長い説明です。${'ログの要約を作ってください。'.repeat(4000)}`;
const HUGE_OUTPUT = Array.from({ length: 6000 }, (_, i) => `line ${i}: ${'x'.repeat(40)}`).join('\n');

function session(id: string, records: Record<string, unknown>[]): string {
  const common = { cwd: `${HOME}/work/shop`, sessionId: id, isSidechain: false, version: '2.1.38' };
  return `${records.map((r) => JSON.stringify({ ...common, ...r })).join('\n')}\n`;
}

const usage = { input_tokens: 10, output_tokens: 5 };
const assistant = (uuid: string, at: string, id: string, content: unknown[]) => ({
  type: 'assistant',
  uuid,
  timestamp: at,
  message: { id, role: 'assistant', model: 'm', usage, content },
});

async function writeHome(home: string): Promise<void> {
  const dir = path.join(home, '.claude', 'projects', '-home-carol-work-shop');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, `${SHARED}.jsonl`),
    session(SHARED, [
      { type: 'custom-title', customTitle: `Rotate ${SECRETS.aws}` },
      {
        type: 'user',
        uuid: 'u1',
        timestamp: '2026-06-01T10:00:00.000Z',
        message: { role: 'user', content: `My key is ${SECRETS.aws}, mail ${EMAIL}, repo in ${HOME}/work/shop` },
      },
      assistant('a1', '2026-06-01T10:00:05.000Z', 'msg1', [
        { type: 'thinking', thinking: `The token ${SECRETS.github} must not leak`, signature: 's' },
        { type: 'text', text: `Set \`ANTHROPIC_API_KEY=${SECRETS.anthropic}\` in \`${HOME}/.env\`.` },
        { type: 'tool_use', id: 'call1', name: 'Bash', input: { command: `cat ${HOME}/.env` } },
      ]),
      {
        type: 'user',
        uuid: 'r1',
        timestamp: '2026-06-01T10:00:06.000Z',
        toolUseResult: { stdout: `SLACK_TOKEN=${SECRETS.slack}`, stderr: '' },
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: 'call1', content: `SLACK_TOKEN=${SECRETS.slack}` }],
        },
      },
      assistant('a2', '2026-06-01T10:00:09.000Z', 'msg2', [{ type: 'text', text: 'Rotated. Done.' }]),
    ]),
  );
  await fs.writeFile(
    path.join(dir, `${BIG}.jsonl`),
    session(BIG, [
      {
        type: 'user',
        uuid: 'b1',
        timestamp: '2026-06-02T10:00:00.000Z',
        message: { role: 'user', content: LONG_PROMPT },
      },
      assistant('b2', '2026-06-02T10:00:05.000Z', 'big1', [
        { type: 'text', text: 'Reading the log.' },
        { type: 'tool_use', id: 'call2', name: 'Bash', input: { command: 'cat build.log' } },
      ]),
      {
        type: 'user',
        uuid: 'b3',
        timestamp: '2026-06-02T10:00:06.000Z',
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call2', content: HUGE_OUTPUT }] },
      },
      assistant('b4', '2026-06-02T10:00:09.000Z', 'big2', [{ type: 'text', text: 'The build log ends at line 5999.' }]),
    ]),
  );
}

let home: string;
let shared: McpRun;

beforeAll(async () => {
  const root = await tempDir('mcp-share');
  home = path.join(root, 'home');
  await writeHome(home);
  shared = await startMcp(['--home', home, '--data', path.join(root, 'data'), '--tz', 'UTC', '--share']);
});

afterAll(async () => {
  await shared?.close();
});

function expectClean(text: string): void {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  expect(text).not.toContain(EMAIL);
  expect(text).not.toContain(HOME);
}

describe('mcp --share', () => {
  it('every tool answers redacted and anonymized', async () => {
    const answers = [
      await shared.call('list_projects'),
      await shared.call('list_sessions'),
      await shared.call('get_session', { session: SHARED, include_thinking: true }),
      await shared.call('get_session_detail', { session: SHARED, include_thinking: true, include_tool_calls: true }),
      await shared.call('get_history_by_date', {
        since: '2026-06-01',
        until: '2026-06-02',
        include_thinking: true,
        include_tool_calls: true,
        max_chars: 1_000_000,
      }),
      await shared.call('get_history_by_project', {
        project: 'shop',
        include_tool_calls: true,
        include_thinking: true,
      }),
      await shared.call('search', { query: 'SLACK_TOKEN' }),
      await shared.call('day_report', { date: '2026-06-01' }),
      await shared.call('day_report', { date: '2026-06-01', format: 'json' }),
      await shared.call('week_report', { week: '2026-W23' }),
    ];
    for (const answer of answers) {
      expect(answer.isError ?? false, answer.text).toBe(false);
      expectClean(answer.text);
      expectClean(JSON.stringify(answer.structuredContent ?? {}));
    }
    const transcript = answers[2]!.text;
    expect(transcript).toContain('[REDACTED:');
    expect(transcript).toContain('Rotated. Done.');
    expect(transcript).toContain('~/work/shop');
    expect(answers[6]!.text).toMatch(/SLACK_TOKEN»?=\[REDACTED:slack-token\]/);
    const resource = await shared.client.readResource({ uri: `logbook://session/claude-code/${SHARED}` });
    expectClean(JSON.stringify(resource));
  });
});

describe('max_chars', () => {
  it('is never exceeded; a message too long for it is cut with a note and paging moves on', async () => {
    for (const max of [1000, 2500, 8000]) {
      const first = await shared.call('get_session', { session: BIG, max_chars: max });
      expect(first.text.length).toBeLessThanOrEqual(max);
      expect(first.text).toContain('長い説明です。ログの要約');
      expect(first.text).toMatch(/\[… message cut at max_chars: [\d,]+ more characters\]/);
      const next = (first.structuredContent as { next_offset: number }).next_offset;
      expect(next).toBeGreaterThan(0);
      const second = await shared.call('get_session', { session: BIG, max_chars: max, offset: next });
      expect(second.text.length).toBeLessThanOrEqual(max);
      expect(second.text).not.toMatch(/^--- \[0\]/m);
      expect(second.text).toMatch(/^--- \[1\]/m);
      const history = await shared.call('get_history_by_date', {
        since: '2026-06-02',
        include_tool_calls: true,
        max_chars: max,
      });
      expect(history.text.length).toBeLessThanOrEqual(max);
      for (const tool of ['list_sessions', 'day_report', 'week_report', 'stats', 'list_projects'] as const) {
        const r = await shared.call(tool, { max_chars: max, ...(tool === 'week_report' ? { week: '2026-W23' } : {}) });
        expect(r.text.length, tool).toBeLessThanOrEqual(max);
      }
    }
  });

  it('cuts huge tool output to max_output_chars, saying how much is left', async () => {
    const r = await shared.call('get_session', { session: BIG, offset: 1, max_chars: 20_000 });
    expect(r.text).toContain('line 0: xxxx');
    expect(r.text).not.toContain('line 5999:');
    expect(r.text).toMatch(/\[… output cut: [\d,]+ more characters; ask with a larger max_output_chars\]/);
    expect(r.text).toContain('The build log ends at line 5999.');
    const more = await shared.call('get_session', {
      session: BIG,
      offset: 1,
      max_output_chars: 400_000,
      max_chars: 400_000,
    });
    expect(more.text).toContain('line 5999:');
  });
});

describe('stdout', () => {
  it('carries JSON-RPC only, and the server exits when the client closes its stdin', async () => {
    const data = path.join(await tempDir('mcp-raw'), 'data');
    const child = spawn(
      process.execPath,
      [path.join(REPO, 'bin', 'agent-logbook.js'), 'mcp', '--home', FIXTURE_HOME, '--data', data, '--tz', 'UTC'],
      { cwd: REPO, env: { ...process.env, TZ: 'UTC' }, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'day_report', arguments: { date: '2026-03-02' } },
    });
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    const deadline = Date.now() + 100_000;
    while (!stdout.includes('"id":3') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    expect(lines).toHaveLength(3);
    const messages = lines.map((line) => JSON.parse(line) as { jsonrpc: string; id: number; result?: unknown });
    for (const m of messages) expect(m.jsonrpc).toBe('2.0');
    // Answers come as they are ready, each with its request's id.
    expect(messages.map((m) => m.id).sort()).toEqual([1, 2, 3]);
    expect(JSON.stringify(messages.find((m) => m.id === 2)!.result)).toContain('# 2026-03-02 (Mon)');
    expect(JSON.stringify(messages.find((m) => m.id === 3)!.result)).toContain('no_such_tool not found');
    expect(stderr).toContain('agent-logbook mcp: collected:');
  });
});
