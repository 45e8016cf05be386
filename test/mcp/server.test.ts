import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { startMcp, type McpRun } from '../helpers/mcp.ts';
import { FIXTURE_HOME, SESSION, tempDir } from '../helpers/paths.ts';

const A = `claude-code/${SESSION.A}`;
const B = `claude-code/${SESSION.B}`;
const D = `claude-code/${SESSION.D}`;
const E = `claude-code/${SESSION.E}`;
const F = `claude-code/${SESSION.F}`;

const TOOLS = [
  'day_report',
  'get_history_by_date',
  'get_history_by_project',
  'get_session',
  'get_session_detail',
  'list_projects',
  'list_sessions',
  'search',
  'stats',
  'week_report',
];

let mcp: McpRun;
let dataDir: string;

beforeAll(async () => {
  dataDir = path.join(await tempDir('mcp'), 'data');
  mcp = await startMcp(['--home', FIXTURE_HOME, '--data', dataDir, '--tz', 'UTC']);
});

afterAll(async () => {
  await mcp?.close();
});

/** Follows a paged tool to its end, returning every page. */
async function allPages(
  tool: string,
  args: Record<string, unknown>,
  next: (structured: Record<string, unknown>) => Record<string, unknown> | undefined,
) {
  const pages = [];
  let call: Record<string, unknown> | undefined = args;
  while (call && pages.length < 50) {
    const page = await mcp.call(tool, call);
    expect(page.isError ?? false, page.text).toBe(false);
    pages.push(page);
    call = next(page.structuredContent as Record<string, unknown>);
  }
  return pages;
}

describe('agent-logbook mcp over stdio', () => {
  it('lists its tools, each with a description and an input schema', async () => {
    const { tools } = await mcp.client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(TOOLS);
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(60);
      expect(tool.inputSchema.type).toBe('object');
    }
    const history = tools.find((t) => t.name === 'get_history_by_date')!;
    expect(Object.keys(history.inputSchema.properties!)).toEqual(
      expect.arrayContaining(['since', 'until', 'include_thinking', 'include_tool_calls', 'max_chars', 'cursor']),
    );
    expect(mcp.client.getInstructions()).toContain('get_history_by_date');
  });

  it('list_projects: the projects with their session and prompt counts', async () => {
    const r = await mcp.call('list_projects', { source: 'claude-code' });
    const projects = (r.structuredContent as { projects: { name: string; sessions: number; prompts: number }[] })
      .projects;
    const byName = Object.fromEntries(projects.map((p) => [p.name, p]));
    // fixtures/README.md: webapp holds A, B, D, E (2 + 3 + 1 + 1 prompts), api F (2), 日本語 C (2).
    expect(byName.webapp).toMatchObject({ sessions: 4, prompts: 7 });
    expect(byName.api).toMatchObject({ sessions: 1, prompts: 2 });
    expect(byName['日本語']).toMatchObject({ sessions: 1, prompts: 2 });
    expect(r.text).toContain('webapp (/home/alice/work/webapp) · 4 sessions, 7 prompts');
  });

  it('list_sessions: filters, and pages with a cursor', async () => {
    const first = await mcp.call('list_sessions', { project: 'webapp', source: 'claude-code', limit: 3 });
    const s1 = first.structuredContent as { sessions: { session: string }[]; total: number; next_cursor?: string };
    expect(s1.total).toBe(4);
    expect(s1.sessions).toHaveLength(3);
    expect(first.text).toContain(`cursor: "${s1.next_cursor}"`);
    const second = await mcp.call('list_sessions', {
      project: 'webapp',
      source: 'claude-code',
      limit: 3,
      cursor: s1.next_cursor,
    });
    const s2 = second.structuredContent as { sessions: { session: string }[]; next_cursor?: string };
    expect(s2.next_cursor).toBeUndefined();
    expect([...s1.sessions, ...s2.sessions].map((s) => s.session).sort()).toEqual([A, B, D, E].sort());

    const redirect = await mcp.call('list_sessions', { query: 'login redirect' });
    expect(redirect.text).toContain(A);
    expect(redirect.text).toContain('"Fix login redirect"');
    const day = await mcp.call('list_sessions', { since: '2026-03-04', until: '2026-03-04', source: 'claude-code' });
    expect(
      (day.structuredContent as { sessions: { session: string }[] }).sessions.map((s) => s.session).sort(),
    ).toEqual([`claude-code/${SESSION.C}`, F].sort());
  });

  it('get_session: prompts, answers, tool calls with their results; a unique id prefix is enough', async () => {
    const r = await mcp.call('get_session', { session: '11111111' });
    expect(r.isError ?? false).toBe(false);
    expect(r.text).toContain(`# ${A}: Fix login redirect`);
    expect(r.text).toContain('ログイン画面のリダイレクトを直してください。');
    expect(r.text).toMatch(/tool call: Read · \/home\/alice\/work\/webapp\/src\/views\/login\.html/);
    expect(r.text).toMatch(/tool result: Bash \(error\)\nExit code 1/);
    expect(r.text).toContain(
      'Subagents (read one with thread: "<id>"): a1b2c3d4e5f6a7b8c (Explore: Find the redirect handler)',
    );
    expect(r.text).toContain('End of the transcript.');
    expect(r.text).not.toContain('(thinking)');
    expect(r.structuredContent).toMatchObject({ session: A, prompts: 2, next_offset: null });

    const thinking = await mcp.call('get_session', { session: A, include_thinking: true });
    expect(thinking.text).toContain('(thinking)');

    const agent = await mcp.call('get_session', { session: A, thread: 'a1b2c3d4e5f6a7b8c' });
    expect(agent.text).toContain('tool call: Glob');
    expect(agent.text).toContain('claude-haiku-4-5-20251001');
  });

  it('get_session pages through a session: every message once, each page within max_chars', async () => {
    const pages = await allPages('get_session', { session: A, limit: 4, max_chars: 2000 }, (s) =>
      s.next_offset === null ? undefined : { session: A, limit: 4, max_chars: 2000, offset: s.next_offset },
    );
    expect(pages.length).toBeGreaterThan(2);
    const indexes = pages.flatMap((p) => [...p.text.matchAll(/^--- \[(\d+)\]/gm)].map((m) => Number(m[1])));
    expect(new Set(indexes).size).toBe(indexes.length);
    expect(indexes).toEqual([...indexes].sort((a, b) => a - b));
    for (const page of pages.slice(0, -1))
      expect(page.text).toMatch(/Next page: get_session with session .*, offset \d+/);
    for (const page of pages) expect(page.text.length).toBeLessThanOrEqual(2000);
    const all = pages.map((p) => p.text).join('\n');
    expect(all).toContain('ログイン画面のリダイレクトを直してください。');
    expect(all).toContain('what could an attacker inject?');

    const second = await mcp.call('get_session', { session: A, prompt: 2 });
    expect(second.text.split('\n--- ')[1]).toMatch(/^\[\d+\] 2026-03-02 09:19 user\nThe Bash test failed earlier/);
  });

  it('get_session_detail leaves tool calls out unless asked, and says how to get them', async () => {
    const r = await mcp.call('get_session_detail', { session: A });
    expect(r.text).not.toContain('tool call:');
    expect(r.text).toContain('原因が分かりました');
    expect(r.text).toMatch(/Not shown: \d+ tool calls? and \d+ tool results? \(include_tool_calls: true shows them\)/);
    const withTools = await mcp.call('get_session_detail', { session: A, include_tool_calls: true });
    expect(withTools.text).toContain('tool call: Grep');
  });

  it('get_history_by_date: the conversations of those days, for a daily report', async () => {
    const r = await mcp.call('get_history_by_date', { since: '2026-03-02' });
    expect(r.text).toContain(`## ${A}`);
    expect(r.text).toContain(`## ${B}`);
    expect(r.text).toContain('Use a sliding window instead of a fixed window.');
    // B's third prompt is after midnight UTC: the next day's.
    expect(r.text).not.toContain('Now add a test that checks the 429 response.');
    // History prompt #4 has no transcript.
    expect(r.text).toContain('old-project: how do I rotate the signing key?');
    expect(r.text).not.toContain('tool call:');
    const next = await mcp.call('get_history_by_date', { since: '2026-03-03', source: 'claude-code' });
    expect(next.text).toContain('Now add a test that checks the 429 response.');
    expect(next.text).not.toContain('Use a sliding window instead of a fixed window.');
  });

  it('get_history_by_date pages with a cursor, within max_chars, until every session is shown', async () => {
    const args = { since: '2026-03-02', until: '2026-03-05', source: 'claude-code', max_chars: 1500 };
    const pages = await allPages('get_history_by_date', args, (s) =>
      s.next_cursor ? { ...args, cursor: s.next_cursor } : undefined,
    );
    expect(pages.length).toBeGreaterThan(2);
    for (const page of pages) expect(page.text.length).toBeLessThanOrEqual(1500);
    const all = pages.map((p) => p.text).join('\n');
    for (const key of [A, B, `claude-code/${SESSION.C}`, D, E, F]) expect(all).toContain(`## ${key}`);
    expect(all).toContain('明日の定例会議のアジェンダを箇条書きで3つ作ってください。');
  });

  it('get_history_by_project: the project’s conversations', async () => {
    const r = await mcp.call('get_history_by_project', { project: 'webapp', source: 'claude-code', max_chars: 50_000 });
    for (const key of [A, B, D, E]) expect(r.text).toContain(`## ${key}`);
    expect(r.text).not.toContain(F);
    const unknown = await mcp.call('get_history_by_project', { project: 'no-such-project' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain('no project matches "no-such-project"');
  });

  it('day_report and week_report are the CLI’s reports', async () => {
    const day = await mcp.call('day_report', { date: '2026-03-02' });
    const cli = await runCli(['report', '--day', '2026-03-02', '--tz', 'UTC', '--data', dataDir, '--no-collect']);
    expect(cli.code).toBe(0);
    expect(day.text.startsWith(cli.stdout)).toBe(true);
    expect(day.text).toContain(`Session ids (for get_session): ${A}, ${B}`);
    const json = await mcp.call('day_report', { date: '2026-03-02', format: 'json' });
    const cliJson = await runCli([
      'report',
      '--day',
      '2026-03-02',
      '--tz',
      'UTC',
      '--data',
      dataDir,
      '--no-collect',
      '--format',
      'json',
    ]);
    expect(JSON.parse(json.text)).toEqual(JSON.parse(cliJson.stdout));
    expect((json.structuredContent as { report: unknown }).report).toEqual(JSON.parse(cliJson.stdout));

    const week = await mcp.call('week_report', { week: '2026-W10' });
    const cliWeek = await runCli(['report', '--week', '2026-W10', '--tz', 'UTC', '--data', dataDir, '--no-collect']);
    expect(week.text).toBe(cliWeek.stdout);
    expect(week.text).toContain('# Week 2026-W10 (2026-03-02 – 2026-03-08)');
  });

  it('stats: the stats.json figures, for an assistant, a project or some days', async () => {
    const all = await mcp.call('stats', { source: 'claude-code', format: 'json' });
    const stats = (all.structuredContent as { stats: { sessions: { total: number }; tokens: { total: unknown } } })
      .stats;
    // fixtures/README.md, "Totals across all transcripts".
    expect(stats.sessions.total).toBe(6);
    expect(stats.tokens.total).toEqual({ input: 2050, output: 1355, cacheRead: 21300, cacheCreation: 4500 });
    const api = await mcp.call('stats', { source: 'claude-code', project: 'api' });
    expect((api.structuredContent as { stats: { tokens: { total: unknown } } }).stats.tokens.total).toEqual({
      input: 310,
      output: 240,
      cacheRead: 3200,
      cacheCreation: 700,
    });
    expect(api.text).toContain('- Sessions: 1 (Claude Code 1)');
    const day = await mcp.call('stats', { source: 'claude-code', since: '2026-03-04', until: '2026-03-04' });
    expect((day.structuredContent as { stats: { sessions: { total: number } } }).stats.sessions.total).toBe(2);
  });

  it('search: the index of `agent-logbook search`, tool output included, with where to read on', async () => {
    const r = await mcp.call('search', { query: 'sliding window' });
    expect(r.text).toMatch(
      new RegExp(
        `- ${B} \\[11\\] 2026-03-02 23:54 webapp · "Add rate limiting to login endpoint" · prompt: Use a «sliding» «window»`,
      ),
    );
    expect(r.text).toContain('get_session with its session and offset');
    const output = await mcp.call('search', { query: 'redirects to /dashboard after login' });
    expect(output.text).toContain(`${A} [`);
    expect(output.text).toContain('tool-output: Exit code 1');
    const noTools = await mcp.call('search', {
      query: 'redirects to /dashboard after login',
      include_tool_calls: false,
    });
    expect(noTools.text).toMatch(/^No match for/);
    const japanese = await mcp.call('search', { query: 'アジェンダ', project: '日本語' });
    expect(japanese.text).toContain(`claude-code/${SESSION.C} [0]`);
    const first = await mcp.call('search', { query: 'login', limit: 2 });
    const cursor = (first.structuredContent as { next_cursor?: string }).next_cursor;
    expect(cursor).toBe('2');
    const second = await mcp.call('search', { query: 'login', limit: 2, cursor });
    expect(second.text).toMatch(/^Hits 3–4 for "login"/);
  });

  it('bad input is an error result with a helpful message, and the server keeps answering', async () => {
    const unknown = await mcp.call('get_session', { session: 'no-such-session' });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain('no session "no-such-session"');
    const ambiguous = await mcp.call('get_session', { session: 'claude-code/' });
    expect(ambiguous.isError).toBe(true);
    expect(ambiguous.text).toMatch(/matches \d+ sessions; give more of the id/);
    const badDay = await mcp.call('day_report', { date: '2026-02-30' });
    expect(badDay.isError).toBe(true);
    expect(badDay.text).toContain('is not a day: give today, yesterday or YYYY-MM-DD');
    const badWeek = await mcp.call('week_report', { week: 'next' });
    expect(badWeek.isError).toBe(true);
    const badRange = await mcp.call('list_sessions', { since: '2026-03-05', until: '2026-03-01' });
    expect(badRange.text).toContain('since (2026-03-05) is after until (2026-03-01)');
    const badType = await mcp.call('list_sessions', { limit: 'ten' });
    expect(badType.isError).toBe(true);
    const badCursor = await mcp.call('get_history_by_date', { since: '2026-03-02', cursor: 'garbage' });
    expect(badCursor.isError).toBe(true);
    expect(badCursor.text).toContain('call again without a cursor');
    const pastEnd = await mcp.call('get_session', { session: A, offset: 10_000 });
    expect(pastEnd.text).toContain('is past the end');
    const alive = await mcp.call('list_projects');
    expect(alive.isError ?? false).toBe(false);
    expect(alive.text).toContain('webapp');
  });

  it('serves sessions as resources and a daily_report prompt', async () => {
    const { resources } = await mcp.client.listResources();
    const uri = `logbook://session/claude-code/${SESSION.A}`;
    expect(resources.map((r) => r.uri)).toContain(uri);
    const read = await mcp.client.readResource({ uri });
    expect((read.contents[0] as { text: string }).text).toContain('ログイン画面のリダイレクトを直してください。');
    const prompt = await mcp.client.getPrompt({ name: 'daily_report', arguments: { date: '2026-03-02' } });
    const text = (prompt.messages[0]!.content as { text: string }).text;
    expect(text).toContain('# 2026-03-02 (Mon)');
    expect(text).toContain('get_history_by_date');
  });

  it('logs to stderr only, and never reads the credentials file', async () => {
    expect(mcp.stderr()).toContain('agent-logbook mcp: serving');
    const everything = await mcp.call('get_history_by_project', {
      project: 'alice',
      include_tool_calls: true,
      include_thinking: true,
      max_chars: 1_000_000,
    });
    expect(everything.text).not.toContain('DO-NOT-READ');
  });
});
