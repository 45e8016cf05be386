import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

// The site and data built from fixtures/home by test/global-setup.ts, with --tz Asia/Tokyo.
const site = inject('site');
const report = (...args: string[]) =>
  runCli(['report', '--no-collect', '--data', site.dataDir, '--tz', 'Asia/Tokyo', ...args]);

describe('day report (日報)', () => {
  it('prints the day as Markdown ready to paste', async () => {
    const run = await report('--day', '2026-03-03');
    expect(run.code).toBe(0);
    const md = run.stdout;
    expect(md.split('\n')[0]).toBe('# 2026-03-03 (Tue)');
    expect(md).toContain('- Sessions: 1 · Prompts: 6 · Entries: 8 · Tool uses: 5');
    // B's tokens: 720 + 475 + 7,000 + 1,700
    expect(md).toContain('- Tokens: 9,895 (input 720, output 475, cache read 7,000, cache write 1,700)');
    expect(md).toContain(
      '- 08:50–09:20 Add rate limiting to login endpoint (Claude Code, 3 prompts, 8 entries, 5 tool uses, incomplete)',
    );
    // Prompts in order, in Tokyo time; the first is 2026-03-02T16:30Z from a deleted session.
    const prompts = md.split('## Prompts\n\n')[1]!.split('\n\n')[0]!.split('\n');
    expect(prompts).toEqual([
      '- 01:30 [old-project] how do I rotate the signing key?',
      '- 08:49 [webapp] Add rate limiting to the /login endpoint: at most 5 attempts per minute per IP.',
      '- 08:53 [webapp] Use a sliding window instead of a fixed window.',
      '- 09:18 [webapp] Now add a test that checks the 429 response.',
      '- 10:00 [old-project] migrate the cron jobs to systemd timers',
      '- 10:04 [old-project] also remove the old crontab file',
    ]);
    expect(md).toContain('Edit 2 · Bash 1 · Task 1 · Write 1');
  });

  it('is the same report the site serves at /days/<day>.md', async () => {
    const served = await fs.readFile(path.join(site.outDir, 'days', '2026-03-03.md'), 'utf8');
    const run = await report('--day', '2026-03-03', '--site-url', '/');
    expect(run.stdout).toBe(served);
    expect(served).toContain(
      '[Add rate limiting to login endpoint](/sessions/claude-code/22222222-2222-4222-8222-222222222222/)',
    );
  });

  it('prints JSON with the same numbers', async () => {
    const run = await report('--day', '2026-03-04', '--format', 'json');
    const json = JSON.parse(run.stdout);
    expect(json.totals).toMatchObject({ sessions: 2, prompts: 4, entries: 6, toolUses: 2 });
    expect(json.projects.map((p: { name: string }) => p.name).sort()).toEqual(['api', '日本語']);
  });
});

describe('week report', () => {
  it('summarizes the ISO week per day and per project, with the previous week', async () => {
    const run = await report('--week', '2026-W10', '--format', 'json');
    const week = JSON.parse(run.stdout);
    expect(week.firstDay).toBe('2026-03-02');
    expect(week.lastDay).toBe('2026-03-08');
    expect(week.days.map((d: { prompts: number }) => d.prompts)).toEqual([2, 6, 4, 2, 0, 0, 0]);
    expect(week.totals).toMatchObject({ sessions: 6, prompts: 14, entries: 24, toolUses: 13 });
    expect(week.totals.tokens).toEqual({ input: 2050, output: 1355, cacheRead: 21300, cacheCreation: 4500 });
    expect(week.previous).toMatchObject({ week: '2026-W09', totals: { sessions: 0 } });
    const webapp = week.projects.find((p: { name: string }) => p.name === 'webapp');
    expect(webapp).toMatchObject({ sessions: 4, entries: 7 + 8 + 2 + 1 }); // A, B, D, E
  });

  it('renders the week as Markdown with a comparison table', async () => {
    const md = (await report('--week', '2026-W10')).stdout;
    expect(md.split('\n')[0]).toBe('# Week 2026-W10 (2026-03-02 – 2026-03-08)');
    expect(md).toContain('| Sessions | 6 | 0 | new |');
    expect(md).toContain('| 2026-03-06 Fri | 0 | 0 | 0 | 0 | 0 min |');
  });

  it('counts Sunday-start weeks when asked', async () => {
    const week = JSON.parse((await report('--week', '2026-W10', '--week-start', 'sunday', '--format', 'json')).stdout);
    expect([week.firstDay, week.lastDay]).toEqual(['2026-03-01', '2026-03-07']);
  });

  it('rejects a malformed day or week, or both at once, with exit code 2', async () => {
    expect((await report('--day', '2026-13-01')).code).toBe(2);
    expect((await report('--week', '2026-10')).code).toBe(2);
    expect((await report('--day', '2026-03-03', '--week', '2026-W10')).code).toBe(2);
    expect((await report()).code).toBe(2);
  });
});
