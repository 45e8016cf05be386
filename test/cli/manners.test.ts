import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { REPO, tempDir } from '../helpers/paths.ts';

const oneLine = (text: string) => text.trimEnd().split('\n');

describe('CLI manners', () => {
  it('prints its version', async () => {
    const { version } = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8'));
    const run = await runCli(['--version']);
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toBe(version);
  });

  it('answers an unknown option with one line and where to look, never the whole help', async () => {
    const run = await runCli(['report', '--day', 'today', '--formt', 'json']);
    expect(run.code).toBe(2);
    expect(oneLine(run.stderr)).toEqual([
      "agent-logbook: unknown option '--formt' (did you mean --format?); see: agent-logbook report --help",
    ]);
    expect(run.stderr).not.toContain('Usage:');
    expect(run.stdout).toBe('');
  });

  it('answers a bad value, an unknown command and a missing argument the same way', async () => {
    for (const [args, says] of [
      [['report', '--day', '2026-13-01'], '"2026-13-01" is not a day (today, yesterday or YYYY-MM-DD)'],
      [['report', '--week', 'next'], '"next" is not a week'],
      [['build', '--tz', 'Mars/Olympus'], 'unknown time zone "Mars/Olympus"'],
      [['serve', '--port', 'eighty'], '"eighty" is not a port'],
      [['report', '--format', 'pdf', '--day', 'today'], '--format: "pdf" is not one of md, json'],
      [['frobnicate'], "unknown command 'frobnicate'"],
      [['share'], "missing required argument 'session'"],
      [['report', '--no-collect'], 'report needs one of --day, --week, --month or --since [--until]'],
    ] as const) {
      const run = await runCli([...args]);
      expect(run.code, args.join(' ')).toBe(2);
      const lines = oneLine(run.stderr);
      expect(lines, args.join(' ')).toHaveLength(1);
      expect(lines[0]).toContain(says);
      expect(lines[0]).toMatch(/see: agent-logbook (\w+ )?--help$/);
    }
  });

  it('says what failed in words, and shows the stack only with --verbose', async () => {
    const data = await tempDir('bad-format');
    await fs.writeFile(path.join(data, 'format.json'), '{"format":"agent-logbook-data","version":999}');
    const home = await tempDir('empty-home');
    const plain = await runCli(['collect', '--home', home, '--data', data]);
    expect(plain.code).toBe(1);
    const error = plain.stderr.split('\n').find((l) => l.startsWith('agent-logbook:'))!;
    expect(error).toContain(`${path.join(data, 'format.json')}: data directory format agent-logbook-data v999`);
    expect(plain.stderr).toContain('(run again with --verbose for the details)');
    expect(plain.stderr).not.toMatch(/^\s+at /m);
    const verbose = await runCli(['collect', '--home', home, '--data', data, '--verbose']);
    expect(verbose.code).toBe(1);
    expect(verbose.stderr).toMatch(/^\s+at /m);
  });

  it('documents its exit codes and settings in --help, with no colour codes', async () => {
    const run = await runCli(['--help'], { NO_COLOR: '1' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Exit codes:');
    expect(run.stdout).toContain('2  bad arguments or settings');
    expect(run.stdout).toContain('agent-logbook.config.json');
    // eslint-disable-next-line no-control-regex
    expect(run.stdout + run.stderr).not.toMatch(/\u001b\[/);
    const report = await runCli(['report', '--help']);
    expect(report.stdout).toContain('--day <day>');
    expect(report.stdout).toContain('today, yesterday or YYYY-MM-DD');
  });
});
