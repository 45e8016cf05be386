import { describe, expect, it } from 'vitest';
import { resolvePeriod } from '../../src/report/period.ts';
import { inject } from 'vitest';
import { runCli } from '../helpers/cli.ts';

// 2026-03-03T20:00Z is already Wednesday 2026-03-04 in Tokyo, still Tuesday in UTC.
const now = new Date('2026-03-03T20:00:00Z');

describe('report dates in words', () => {
  it('reads today and yesterday in the zone', () => {
    expect(resolvePeriod({ day: 'today' }, now, 'Asia/Tokyo', 'monday')).toEqual({ kind: 'day', day: '2026-03-04' });
    expect(resolvePeriod({ day: 'today' }, now, 'UTC', 'monday')).toEqual({ kind: 'day', day: '2026-03-03' });
    expect(resolvePeriod({ day: 'yesterday' }, now, 'Asia/Tokyo', 'monday')).toEqual({
      kind: 'day',
      day: '2026-03-03',
    });
    expect(resolvePeriod({ day: '2026-01-01' }, now, 'UTC', 'monday')).toEqual({ kind: 'day', day: '2026-01-01' });
  });

  it('reads this and last week, ISO or Sunday-start', () => {
    expect(resolvePeriod({ week: 'this' }, now, 'Asia/Tokyo', 'monday')).toEqual({ kind: 'week', week: '2026-W10' });
    expect(resolvePeriod({ week: 'last' }, now, 'Asia/Tokyo', 'monday')).toEqual({ kind: 'week', week: '2026-W09' });
    // 2026-01-01 is a Thursday: ISO week 2026-W01 holds it; the week before is 2025-W52.
    const newYear = new Date('2026-01-01T12:00:00Z');
    expect(resolvePeriod({ week: 'last' }, newYear, 'UTC', 'monday')).toEqual({ kind: 'week', week: '2025-W52' });
  });

  it('reads months and ranges', () => {
    expect(resolvePeriod({ month: 'this' }, now, 'UTC', 'monday')).toEqual({
      kind: 'range',
      first: '2026-03-01',
      last: '2026-03-31',
      month: '2026-03',
    });
    expect(resolvePeriod({ month: 'last' }, now, 'UTC', 'monday')).toMatchObject({
      first: '2026-02-01',
      last: '2026-02-28',
    });
    expect(resolvePeriod({ month: '2024-02' }, now, 'UTC', 'monday')).toMatchObject({ last: '2024-02-29' });
    expect(resolvePeriod({ month: 'last' }, new Date('2026-01-15T00:00:00Z'), 'UTC', 'monday')).toMatchObject({
      month: '2025-12',
      first: '2025-12-01',
      last: '2025-12-31',
    });
    expect(resolvePeriod({ since: 'yesterday' }, now, 'Asia/Tokyo', 'monday')).toEqual({
      kind: 'range',
      first: '2026-03-03',
      last: '2026-03-04',
    });
  });
});

describe('report over a range or a month', () => {
  const site = inject('site');
  const report = (...args: string[]) =>
    runCli(['report', '--no-collect', '--data', site.dataDir, '--tz', 'Asia/Tokyo', ...args]);

  it('sums the days of a range, with per-day rows and the range before it', async () => {
    const run = await report('--since', '2026-03-03', '--until', '2026-03-04', '--format', 'json');
    expect(run.code).toBe(0);
    const range = JSON.parse(run.stdout);
    expect(range).toMatchObject({ kind: 'range', firstDay: '2026-03-03', lastDay: '2026-03-04' });
    // The day reports of 03-03 (9 prompts, 13 entries) and 03-04 (6, 12).
    expect(range.totals).toMatchObject({ prompts: 15, entries: 25 });
    expect(range.days.map((d: { day: string }) => d.day)).toEqual(['2026-03-03', '2026-03-04']);
    expect(range.previous.label).toBe('2026-03-01 – 2026-03-02');
  });

  it('reports a month', async () => {
    const run = await report('--month', '2026-03');
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe('# March 2026 (2026-03-01 – 2026-03-31)');
    expect(run.stdout).toContain('## Top projects');
  });

  it('refuses a range that ends before it starts, and --until alone', async () => {
    expect((await report('--since', '2026-03-04', '--until', '2026-03-03')).code).toBe(2);
    expect((await report('--until', '2026-03-03')).code).toBe(2);
    expect((await report('--day', 'today', '--month', 'this')).code).toBe(2);
  });
});
