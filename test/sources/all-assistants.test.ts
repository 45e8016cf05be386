import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../src/model/session.ts';
import { sessionRoute } from '../../src/model/routes.ts';
import { runCli, type CliRun } from '../helpers/cli.ts';
import { decodeEntities } from '../helpers/html.ts';
import { copyFixtureHome, tempDir } from '../helpers/paths.ts';

/**
 * The demo home holds a session of every assistant (the global setup wrote its databases): one `build --home`
 * shows them side by side, on the days they ran, in their projects, with their tokens and their tools shown for
 * what they are.
 */
describe('every assistant of the demo home in one build', () => {
  let out: string;
  let build: CliRun;
  let summaries: SessionSummary[];
  const page = async (summary: SessionSummary) =>
    decodeEntities(
      await fs.readFile(path.join(out, sessionRoute(summary.source, summary.sessionId), 'index.html'), 'utf8'),
    );
  const find = (source: string, title: RegExp) => {
    const found = summaries.find((s) => s.source === source && title.test(s.title));
    expect(found, `${source} ${String(title)}`).toBeDefined();
    return found!;
  };

  beforeAll(async () => {
    const home = await copyFixtureHome();
    const dir = await tempDir('all-assistants');
    const data = path.join(dir, 'data');
    out = path.join(dir, 'dist');
    build = await runCli(['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC']);
    summaries = JSON.parse(await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8')) as SessionSummary[];
  }, 240_000);

  it('reads each assistant from its default place and says so', () => {
    expect(build.code, build.stderr).toBe(0);
    for (const line of [
      /^Gemini CLI: .*\.gemini: 1 session\b/m,
      /^Qwen Code: .*\.qwen: 1 session\b/m,
      /^Copilot CLI: .*\.copilot\/session-state: 1 session\b/m,
      /^Cursor: .*\.cursor, .*state\.vscdb: 5 sessions/m,
      /^OpenCode: .*opencode\.db: 2 sessions/m,
      /^Goose: .*sessions\.db: 2 sessions/m,
      /^Cline \/ Roo Code \/ Kilo Code: .*saoudrizwan\.claude-dev: 1 session\b/m,
    ]) {
      expect(build.stderr).toMatch(line);
    }
    const sources = new Set(summaries.map((s) => s.source));
    expect([...sources].sort()).toEqual(
      [
        'amazon-q',
        'claude-code',
        'cline',
        'codex',
        'copilot-cli',
        'cursor',
        'gemini-cli',
        'goose',
        'opencode',
        'qwen-code',
      ].sort(),
    );
  });

  it('puts each session on its day and in its project, next to the other assistants', async () => {
    const copilot = find('copilot-cli', /^Fix the add\(\) test/);
    const opencode = find('opencode', /^Fix the login redirect/);
    const cursor = find('cursor', /^Add a health check route/);
    const qwen = find('qwen-code', /^Show only active users/);
    for (const s of [copilot, opencode, cursor, qwen]) expect(s.cwd).toBe('/home/alice/work/webapp');
    expect(copilot.startedAt.slice(0, 10)).toBe('2026-03-05');
    expect(qwen.startedAt.slice(0, 10)).toBe('2026-03-12');
    expect(opencode.startedAt.slice(0, 10)).toBe('2026-03-10');
    const day = decodeEntities(await fs.readFile(path.join(out, 'days', '2026-03-10', 'index.html'), 'utf8'));
    expect(day).toContain('Fix the login redirect');
    expect(day).toContain('Add a health check route');
    expect(day).toContain('OpenCode');
    expect(day).toContain('Cursor');
    const project = decodeEntities(
      await fs.readFile(path.join(out, 'projects', copilot.project, 'index.html'), 'utf8'),
    );
    for (const label of ['Claude Code', 'Codex', 'Copilot CLI', 'Cursor', 'OpenCode']) expect(project).toContain(label);
  });

  it('counts tokens where the format has them, and none where it has not', () => {
    const gemini = find('gemini-cli', /^Fix cart total/);
    // Gemini's cached tokens are part of its input: input is what was not cached.
    expect(gemini.stats.tokens).toMatchObject({ input: 2310, output: 225, cacheRead: 2400 });
    expect(find('cline', /^Add a greet function/).stats.tokens.output).toBe(420);
    // Qwen's OpenAI-compatible usage: the thoughts are inside the candidates, counted once.
    expect(find('qwen-code', /^Show only active users/).stats.tokens).toMatchObject({
      input: 3700,
      output: 210,
      cacheRead: 34000,
    });
    expect(find('cursor', /^Add a health check route/).stats.tokens).toMatchObject({ input: 0, output: 0 });
  });

  it('keeps what an assistant recorded of its cost: dollars (Cline, OpenCode), premium requests (Copilot CLI)', () => {
    // Cline's four api_req_started entries: 0.04 + 0.01 + 0.005 + 0.004.
    expect(find('cline', /^Add a greet function/).stats.recordedUsd).toBeCloseTo(0.059, 9);
    expect(find('opencode', /^Fix the login redirect/).stats.recordedUsd).toBeGreaterThan(0);
    expect(find('copilot-cli', /^Fix the add\(\) test/).stats.premiumRequests).toBe(3);
    expect(find('gemini-cli', /^Fix cart total/).stats.recordedUsd).toBeUndefined();
  });

  it('says so on the session page: recorded dollars, premium requests, tokens not recorded', async () => {
    expect(await page(find('cline', /^Add a greet function/))).toMatch(
      /<dt>Cost<\/dt>\s*<dd>\$0\.059 as the assistant recorded it/,
    );
    expect(await page(find('copilot-cli', /^Fix the add\(\) test/))).toMatch(/<dt>Premium requests<\/dt>\s*<dd>3</);
    expect(await page(find('cursor', /^Add a health check route/))).toContain('not recorded by this assistant');
  });

  it('shows edits as diffs and commands as shell, whatever each assistant calls them', async () => {
    const cases: Array<[SessionSummary, string[]]> = [
      [find('gemini-cli', /^Fix cart total/), ['replace', 'run_shell_command']],
      [find('opencode', /^Fix the login redirect/), ['edit', 'bash']],
      [find('qwen-code', /^Show only active users/), ['edit', 'run_shell_command']],
      [find('cline', /^Add a greet function/), ['replace_in_file', 'execute_command']],
      [find('cursor', /^Add a health check route/), ['StrReplace', 'Shell']],
    ];
    for (const [summary, [edit, shell]] of cases) {
      expect(summary.stats.toolUsesByName?.[edit!], `${summary.source} ${edit}`).toBe(1);
      expect(summary.stats.toolUsesByName?.[shell!], `${summary.source} ${shell}`).toBe(1);
      const html = await page(summary);
      expect(html, `${summary.source}: a diff`).toContain('class="diff code-block"');
      expect(html, `${summary.source}: a shell command`).toContain('class="shell code-block"');
    }
    const copilot = await page(find('copilot-cli', /^Fix the add\(\) test/));
    expect(copilot).toContain('class="shell code-block"');
  });
  it('shows Goose beside the others: its day and project, session tokens and dollars, edits as diffs, shell as shell', async () => {
    const goose = find('goose', /^Fix the signup form validation/);
    expect(goose.cwd).toBe('/home/alice/work/webapp');
    expect(goose.startedAt.slice(0, 10)).toBe('2026-03-11');
    expect(goose.stats.tokens).toMatchObject({ input: 18400, output: 1250 });
    expect(goose.stats.recordedUsd).toBeCloseTo(0.0741, 9);
    expect(goose.stats.toolUsesByName).toMatchObject({ developer__text_editor: 2, developer__shell: 1 });
    const day = decodeEntities(await fs.readFile(path.join(out, 'days', '2026-03-11', 'index.html'), 'utf8'));
    expect(day).toContain('Fix the signup form validation');
    expect(day).toContain('Goose');
    const project = decodeEntities(await fs.readFile(path.join(out, 'projects', goose.project, 'index.html'), 'utf8'));
    expect(project).toContain('Goose');
    const html = await page(goose);
    expect(html).toContain('class="diff code-block"');
    expect(html).toContain('class="shell code-block"');
  });
});
