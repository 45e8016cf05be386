import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { firstLine } from '../../src/report/reports.ts';
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
    // Claude B (8 entries, 5 tool uses) and Codex L1 (3, 2) and T1 (2, 1); prompts 6 + 2 + 1.
    expect(md).toContain('- 3 sessions · 9 prompts · 13 entries · 8 tool uses · about 1 h 00 min active');
    // Only B has tokens (the old Codex formats record none): 720 + 475 + 7,000 + 1,700
    expect(md).toContain('- Tokens: 9,895 (input 720, output 475, cache read 7,000, cache write 1,700)');
    // Per project, each session with its time span, active time, prompts (first lines) and the files it edited.
    const webapp = md.split('### webapp\n\n')[1]!.split('\n### ')[0]!;
    expect(webapp).toContain(
      '- **08:50–09:20** Add rate limiting to login endpoint (30 min active, Claude Code, branch `feat/rate-limit`)\n' +
        '  - 3 prompts · 8 entries · 5 tool uses (Edit 2, Bash 1, Task 1, Write 1) · 9,895 tokens · no final answer\n' +
        '  - Asked:\n' +
        '    - 08:50 Add rate limiting to the /login endpoint: at most 5 attempts per minute per IP.\n' +
        '    - 08:54 Use a sliding window instead of a fixed window.\n' +
        '    - 09:19 Now add a test that checks the 429 response.\n' +
        '  - Changed: `src/middleware/loginLimiter.ts`, `src/server.ts`, `test/rate-limit.test.ts`',
    );
    // Plural forms: one prompt, one tool use.
    expect(md).toContain('  - 1 prompt · 2 entries · 1 tool use (shell 1) · single tool');
    // History prompts whose session is gone stay, under their project.
    expect(md).toContain('- Prompts whose transcripts are gone (3):\n  - 01:30 how do I rotate the signing key?');
    expect(md).toContain('Edit 2 · shell 2 · Bash 1 · local_shell 1 · Task 1 · Write 1');
    expect(md).toContain('- Files changed: 3');
    // Pastes into Slack, Notion, Confluence or GitHub as it is: no tables, no HTML.
    expect(md).not.toMatch(/^\|/m);
    expect(md).not.toMatch(/<[a-z]/i);
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
    // Claude C, F (6 entries, 2 tool uses, 4 prompts) and Codex K1 (6 entries, 5 tool uses, 2 prompts).
    expect(json.totals).toMatchObject({ sessions: 3, prompts: 6, entries: 12, toolUses: 7 });
    expect(json.projects.map((p: { name: string }) => p.name).sort()).toEqual(['api', 'webapp', '日本語']);
    const sessions = json.projects.flatMap((p: { sessions: unknown[] }) => p.sessions);
    const k1 = sessions.find((x: { title: string }) => x.title.startsWith('ログイン後'));
    // Codex K1 edits src/login.ts with apply_patch; its prompts' first lines, its active time in 15-minute slots.
    expect(k1).toMatchObject({ filesEdited: [['src/login.ts', 1]], activeMinutes: 15, prompts: 2 });
    expect(k1.promptLines.map((p: { time: string }) => p.time)).toEqual(['19:00', '19:05']);
  });
});

describe('week report', () => {
  it('summarizes the ISO week per day and per project, with the previous week', async () => {
    const run = await report('--week', '2026-W10', '--format', 'json');
    const week = JSON.parse(run.stdout);
    expect(week.firstDay).toBe('2026-03-02');
    expect(week.lastDay).toBe('2026-03-08');
    // Per day, Claude + Codex: 03-02 2 + 1 (a Codex history prompt), 03-03 6 + 3, 03-04 4 + 2, 03-05 2 + 3,
    // 03-06 0 + 3. The Amazon Q conversations fall in W11 and W12.
    expect(week.days.map((d: { prompts: number }) => d.prompts)).toEqual([3, 9, 6, 5, 3, 0, 0]);
    // Sessions 6 + 7; entries 24 + 22; tool uses 13 + 14 (fixtures/README.md, fixtures/CODEX.md).
    expect(week.totals).toMatchObject({ sessions: 13, prompts: 26, entries: 46, toolUses: 27 });
    // Claude 2050/1355/21300/4500 + Codex (K1 + K2 + K3 + K5 + K6) 34000/2490/53700/0
    expect(week.totals.tokens).toEqual({ input: 36050, output: 3845, cacheRead: 75000, cacheCreation: 4500 });
    expect(week.previous).toMatchObject({ week: '2026-W09', totals: { sessions: 0 } });
    const webapp = week.projects.find((p: { name: string }) => p.name === 'webapp');
    // Claude A B D E, Codex L1 K1 K3
    expect(webapp.totals).toMatchObject({ sessions: 7, entries: 7 + 8 + 2 + 1 + 3 + 6 + 2 });
    expect(webapp.sessions.map((x: { day: string }) => x.day)).toEqual([
      '2026-03-02',
      '2026-03-03',
      '2026-03-03',
      '2026-03-04',
      '2026-03-05',
      '2026-03-05',
      '2026-03-05',
    ]);
    // Top projects first: the most active time.
    expect(week.projects[0].name).toBe('webapp');
  });

  it('renders the week as Markdown: per-day totals, top projects, sessions with titles and prompts', async () => {
    const md = (await report('--week', '2026-W10')).stdout;
    expect(md.split('\n')[0]).toBe('# Week 2026-W10 (2026-03-02 – 2026-03-08)');
    expect(md).toContain('- Nothing recorded in 2026-W09\n');
    // The week after compares with this one.
    const next = (await report('--week', '2026-W11')).stdout;
    expect(next).toContain('- Compared with 2026-W10: sessions -77%, prompts -77%');
    expect(md).toContain('- Tue 2026-03-03: 3 sessions, 9 prompts, 13 entries, 8 tool uses, about 1 h 00 min active\n');
    expect(md).toContain('- No activity: Sat 03-07, Sun 03-08');
    expect(md).toContain(
      '## Top projects\n\n- webapp: 7 sessions, 12 prompts, about 2 h 15 min active, 5 files changed',
    );
    expect(md).toContain('- **03-03 08:50–09:20** Add rate limiting to login endpoint');
    expect(md).toContain('    - 19:00 ログイン後のリダイレクトが壊れています。src/login.ts を直してください。');
    expect(md).not.toMatch(/^\|/m);
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

describe("a prompt's first line in a report", () => {
  it('collapses spaces and cuts at the limit, from a long paste as from a short line', () => {
    const words = Array.from({ length: 5000 }, (_, i) => `w${i}${' '.repeat(i % 7)}\t`).join('');
    const collapsed = words.replace(/\s+/g, ' ').trim();
    expect(firstLine(`\n  \n${words}\nsecond`)).toBe(`${collapsed.slice(0, 159)}…`);
    // Spaces that run past where a shorter look would stop, then nothing: shown whole, not cut.
    const padded = `${'x'.repeat(160)}${' '.repeat(1000)}`;
    expect(firstLine(padded)).toBe('x'.repeat(160));
    expect(firstLine(`${padded}y`)).toBe(`${'x'.repeat(159)}…`);
    expect(firstLine('  short   prompt  ')).toBe('short prompt');
  });
});
