import { describe, expect, it } from 'vitest';
import { monthName, previousMonth } from '../../src/report/period.ts';
import { periodMarkdown } from '../../src/report/markdown.ts';
import { rangeReport } from '../../src/report/reports.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import type { DayIndex } from '../../src/stats/indexes.ts';
import { emptyTokens } from '../../src/stats/session-stats.ts';

/** A day with one session of `entries` entries (only what the totals of a period read). */
function activeDay(day: string, id: string, entries: number): DayIndex {
  const counts = { entries, toolUses: 0, toolUsesByName: {}, prompts: 0, tokens: emptyTokens() };
  return {
    day,
    sessions: [{ summary: { id } as SessionSummary, counts }],
    prompts: [],
    totals: counts,
    activeMinutes: 15,
  };
}

describe('a month report compares with the month before', () => {
  // 01-30 lies in the 31 days before March, not in February; only 02-10 is February's.
  const days = new Map([
    ['2026-01-30', activeDay('2026-01-30', 'codex/january', 5)],
    ['2026-02-10', activeDay('2026-02-10', 'codex/february', 2)],
  ]);

  it('March against February (28 days), named by the month', () => {
    const report = rangeReport(days, '2026-03-01', '2026-03-31', 'UTC', 'monday', '2026-03');
    expect(report.title).toBe('March 2026 (2026-03-01 – 2026-03-31)');
    expect(report.previous).toMatchObject({ label: 'February 2026', firstDay: '2026-02-01', lastDay: '2026-02-28' });
    expect(report.previous.totals).toMatchObject({ sessions: 1, entries: 2 });
    expect(periodMarkdown(report)).toContain(
      '- Compared with February 2026: sessions -100%, prompts ±0, entries -100%',
    );
  });

  it('February against January (31 days), across the year for January', () => {
    // 01-01 lies in January, not in the 28 days before February.
    const january = new Map([['2026-01-01', activeDay('2026-01-01', 'codex/new-year', 5)]]);
    const report = rangeReport(january, '2026-02-01', '2026-02-28', 'UTC', 'monday', '2026-02');
    expect(report.previous).toMatchObject({ label: 'January 2026', firstDay: '2026-01-01', lastDay: '2026-01-31' });
    expect(report.previous.totals).toMatchObject({ sessions: 1, entries: 5 });
    expect(periodMarkdown(report)).toContain('- Compared with January 2026: sessions -100%, prompts ±0, entries -100%');
    expect(previousMonth('2026-01')).toBe('2025-12');
    expect(monthName('2025-12')).toBe('December 2025');
  });

  it('a range of days still compares with as many days just before', () => {
    const report = rangeReport(days, '2026-02-11', '2026-02-20', 'UTC', 'monday');
    expect(report.title).toBe('2026-02-11 – 2026-02-20');
    expect(report.previous).toMatchObject({
      label: '2026-02-01 – 2026-02-10',
      firstDay: '2026-02-01',
      lastDay: '2026-02-10',
    });
    expect(report.previous.totals.entries).toBe(2);
  });
});
