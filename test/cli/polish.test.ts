import { existsSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { SearchHit } from '../../src/search/query.ts';
import { runCli } from '../helpers/cli.ts';
import { FIXTURE_HOME, SESSION, tempDir } from '../helpers/paths.ts';

/** The CLI says just enough: results on stdout, only warnings on stderr, counts in words, errors in one line. */
const lines = (text: string) => text.trimEnd().split('\n').filter(Boolean);
/** What a collect says about where it looked and what it read (one line per source, then the archive). */
const WHERE_IT_LOOKED = /^(Claude Code|Codex CLI|Gemini CLI|Cursor|OpenCode): |^Data: /m;

describe('the CLI says just enough', () => {
  let data: string;
  const demo = (...args: string[]) => runCli([...args, '--home', FIXTURE_HOME, '--data', data, '--tz', 'UTC']);
  beforeAll(async () => {
    data = path.join(await tempDir('polish'), 'data');
    const collected = await runCli(['collect', '--home', FIXTURE_HOME, '--data', data]);
    expect(collected.code, collected.stderr).toBe(0);
  });

  it('report and search print their result, and on stderr only warnings unless -v', async () => {
    const report = await demo('report', '--week', '2026-W10');
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^# Week 2026-W10 /);
    expect(report.stderr).not.toMatch(WHERE_IT_LOOKED);
    // The demo home's history lines broken on purpose are still warned about, after the line that says so.
    expect(lines(report.stderr).filter((l) => !l.startsWith('Retention: '))).toEqual([
      expect.stringMatching(/^Demo home: .*broken on purpose/),
      expect.stringMatching(/^ {2}warning: fixtures\/home\/\.codex\/history\.jsonl:4: /),
      expect.stringMatching(/^ {2}warning: fixtures\/home\/\.codex\/history\.jsonl:7: /),
    ]);
    const verbose = await demo('report', '--week', '2026-W10', '-v');
    expect(verbose.stdout).toBe(report.stdout);
    expect(verbose.stderr).toMatch(WHERE_IT_LOOKED);

    const search = await demo('search', 'redirect');
    expect(search.code, search.stderr).toBe(0);
    expect(search.stdout).toContain('«redirect»');
    expect(search.stderr).not.toMatch(WHERE_IT_LOOKED);
    expect((await demo('search', 'redirect', '--verbose')).stderr).toMatch(WHERE_IT_LOOKED);
  });

  it('search says how many hits there are in all, and shows at most 3 of one session', async () => {
    const all = await demo('search', 'test', '--no-collect', '--json', '--limit', '1000');
    const hits = JSON.parse(all.stdout) as SearchHit[];
    const sessions = new Set(hits.map((h) => h.key));
    expect(hits.length).toBeGreaterThan(20);

    const run = await demo('search', 'test', '--no-collect');
    expect(run.code, run.stderr).toBe(0);
    const shown = lines(run.stdout);
    expect(shown).toHaveLength(20);
    expect(lines(run.stderr)).toEqual([
      `20 of ${hits.length} hits in ${sessions.size} sessions (at most 3 per session); ` +
        'for more: --limit N, --per-session N or --session ID.',
    ]);
    const perSession = new Map<string, number>();
    for (const line of shown) {
      const id = line.split('  ')[3]!;
      perSession.set(id, (perSession.get(id) ?? 0) + 1);
    }
    expect(Math.max(...perSession.values())).toBe(3);
    // The newest hits first, whatever the cap leaves out.
    expect(shown[0]).toContain(hits[0]!.sessionId);

    const wider = await demo('search', 'test', '--no-collect', '--per-session', '10', '--limit', '1000');
    expect(lines(wider.stdout).length).toBeGreaterThan(shown.length);
    expect(lines(wider.stdout).length).toBeLessThanOrEqual(hits.length);

    // One session, named by the start of its id: all of its hits.
    const mine = hits.filter((h) => h.key === `amazon-q/cccccccc-cccc-4ccc-8ccc-cccccccccccc`);
    expect(mine.length).toBeGreaterThan(3);
    const one = await demo('search', 'test', '--no-collect', '--session', 'cccccccc-cc');
    expect(one.code, one.stderr).toBe(0);
    expect(lines(one.stdout)).toHaveLength(mine.length);
    expect(lines(one.stderr)).toEqual([`${mine.length} hits in 1 session.`]);
  });

  it('accepts the start of a session id wherever a session is named, and lists the sessions a start fits', async () => {
    const ambiguous = await demo('share', 'aaaaaaaa', '--no-collect');
    expect(ambiguous.code).toBe(2);
    expect(lines(ambiguous.stderr)).toEqual([
      'agent-logbook: "aaaaaaaa" is the start of 2 sessions: amazon-q/aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa, ' +
        'cursor/aaaaaaaa-0c0c-4c0c-8c0c-00000000000a; give more of the id; see: agent-logbook share --help',
    ]);
    const search = await demo('search', 'x', '--no-collect', '--session', 'cccc');
    expect(search.code).toBe(2);
    expect(search.stderr).toContain('"cccc" is the start of 2 sessions: amazon-q/cccccccc-');

    const out = path.join(await tempDir('polish-share'), 'c.html');
    const shared = await demo('share', SESSION.C.slice(0, 8), '--no-collect', '--out', out);
    expect(shared.code, shared.stderr).toBe(0);
    expect(shared.stderr).toContain(`Shared claude-code/${SESSION.C}: `);
    expect(existsSync(out)).toBe(true);
  });

  it('counts in words: one session, not "1 sessions"', async () => {
    const home = await tempDir('polish-one');
    const run = await runCli([
      'collect',
      '--home',
      FIXTURE_HOME,
      '--assistants',
      'gemini-cli',
      '--data',
      path.join(home, 'data'),
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/^Gemini CLI: .*: 1 session, 3 history prompts$/m);
    expect(run.stderr).toMatch(/^Reading Gemini CLI: 2 of 2 files, /m);
    expect(run.stderr).toMatch(/^Data: .*: 1 session\.$/m);
    expect(run.stderr).toMatch(/: 1 session new, 0 updated, 0 unchanged\.$/m);
    expect(run.stderr).not.toMatch(/\b1 (sessions|warnings|history prompts|files)\b/);
  });
});

describe('errors in one line, with an exit code that says whose mistake it is', () => {
  it('a day, week or month that does not exist is a bad argument (exit 2), with no word of --verbose', async () => {
    for (const [args, says] of [
      [['--week', '2026-W99'], '--week: "2026-W99" is not a week (this, last or YYYY-Www, weeks 01 to 53'],
      [['--week', '2026-W53', '--week-start', 'sunday'], '"2026-W53" is not a week: 2026 has no week 53'],
      [['--day', '2026-02-30'], '--day: "2026-02-30" is not a day'],
      [['--since', '2026-02-31'], '--since: "2026-02-31" is not a day'],
      [['--month', '2026-13'], '--month: "2026-13" is not a month'],
    ] as const) {
      const run = await runCli(['report', ...args, '--no-collect', '--data', await tempDir('polish-week')]);
      expect(run.code, args.join(' ')).toBe(2);
      expect(lines(run.stderr), args.join(' ')).toEqual([
        expect.stringMatching(/^agent-logbook: .*; see: agent-logbook report --help$/),
      ]);
      expect(run.stderr).toContain(says);
      expect(run.stderr).not.toContain('--verbose');
    }
  });

  it('reads every bad value as one sentence: no ".;" before "see:"', async () => {
    const format = await runCli(['export', '--out', 'x', '--format', 'csv']);
    expect(format.code).toBe(2);
    expect(lines(format.stderr)).toEqual([
      'agent-logbook: --format: "csv" is not one of jsonl, parquet; see: agent-logbook export --help',
    ]);
    for (const args of [
      ['search', 'x', '--limit', '0'],
      ['report', '--day', 'today', '--tz', 'Mars/Olympus'],
      ['collect', '--assistants', 'vim'],
      ['serve', '--port', 'eighty'],
    ]) {
      const run = await runCli(args);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr, args.join(' ')).toMatch(
        /^agent-logbook: --[a-z]+: [^\n]*[^.;:]; see: agent-logbook \w+ --help\n$/,
      );
    }
  });

  it('serve on a folder that is not there says which and what to do, in one line', async () => {
    const missing = path.join(await tempDir('polish-serve'), 'no-site');
    const run = await runCli(['serve', '--out', missing, '--data', path.join(missing, '..', 'data')]);
    expect(run.code).toBe(1);
    expect(lines(run.stderr)).toEqual([
      `agent-logbook: no site in ${missing} (the folder does not exist): build it first with ` +
        `\`agent-logbook build --out ${missing}\`, or serve with --watch to build and keep it current`,
    ]);
  });
});

describe('the build says each count once', () => {
  const site = inject('site');
  it('one line of files rendered, one summary: pages, files, sessions; the demo home explained first', () => {
    expect(site.code).toBe(0);
    const said = lines(site.stderr);
    expect(said.filter((l) => /\bpages\b/.test(l))).toEqual([
      expect.stringMatching(
        /^Site: \d+ pages in .*\/ \(days in Asia\/Tokyo\): \d+ files written, 0 removed, \d+ unchanged; \d+ sessions read \(\d+\.\ds\)\.$/,
      ),
    ]);
    expect(said).toContainEqual(expect.stringMatching(/^Rendering: (\d+) of \1 files \(\d+\.\ds\)$/));
    const note = said.findIndex((l) => l.startsWith('Demo home: '));
    expect(note).toBeGreaterThan(-1);
    expect(note).toBe(said.findIndex((l) => l.startsWith('  warning: ')) - 1);
    expect(said.filter((l) => l.startsWith('Demo home: '))).toHaveLength(1);
  });
});
