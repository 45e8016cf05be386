import { describe, expect, it } from 'vitest';
import { dayAxis, rangeLabel } from '../../src/stats/day-axis.ts';

describe('the day axis of a time chart', () => {
  it('gives every calendar day a slot and labels each month where it starts (issue 30: June read as February)', () => {
    const axis = dayAxis(['2025-06-03', '2025-06-20', '2025-07-02', '2025-08-30']);
    expect(axis.slots[0]).toBe('2025-06-01');
    expect(axis.slots.at(-1)).toBe('2025-08-30');
    expect(axis.slots.length).toBe(30 + 31 + 30);
    expect(axis.months.map((m) => [m.label, axis.slots[m.slot]])).toEqual([
      ['Jun 2025', '2025-06-01'],
      ['Jul', '2025-07-01'],
      ['Aug', '2025-08-01'],
    ]);
    // Over a month, only weekly day numbers: no "11" twice under one month label.
    const labels = axis.dayTicks.map((t) => `${axis.slots[t.slot]}=${t.label}`);
    expect(labels.slice(0, 5)).toEqual([
      '2025-06-01=1',
      '2025-06-08=8',
      '2025-06-15=15',
      '2025-06-22=22',
      '2025-07-01=1',
    ]);
    expect(axis.dayTicks.every((t) => Number(axis.slots[t.slot]!.slice(8)) === Number(t.label))).toBe(true);
    expect(rangeLabel(axis)).toBe('Jun 1 – Aug 30, 2025');
  });

  it('keeps about three months back from the last day, and names the year where it changes', () => {
    const axis = dayAxis(['2025-02-11', '2025-06-11', '2025-10-11', '2025-12-11', '2026-01-05']);
    expect(axis.slots[0]).toBe('2025-10-01');
    expect(axis.months.map((m) => m.label)).toEqual(['Oct 2025', 'Nov', 'Dec', 'Jan 2026']);
    expect(rangeLabel(axis)).toBe('Oct 1, 2025 – Jan 5, 2026');
    expect(dayAxis([])).toEqual({ slots: [], months: [], dayTicks: [] });
  });

  it('labels every day of a short range', () => {
    const axis = dayAxis(['2026-03-02', '2026-03-06']);
    expect(axis.dayTicks.map((t) => t.label)).toEqual(['1', '2', '3', '4', '5', '6']);
    expect(axis.dayTicks.some((t) => t.minor)).toBe(false);
  });
});
