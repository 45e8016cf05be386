import { describe, expect, it } from 'vitest';
import { dayOf, isDay, previousWeek, weekDays, weekOf } from '../../src/stats/calendar.ts';

describe('calendar', () => {
  it('puts an instant on its day in the given zone', () => {
    expect(dayOf('2026-03-02T16:30:00.000Z', 'UTC')).toBe('2026-03-02');
    expect(dayOf('2026-03-02T16:30:00.000Z', 'Asia/Tokyo')).toBe('2026-03-03'); // 01:30 JST
    expect(dayOf('2026-03-02T03:00:00.000Z', 'America/Los_Angeles')).toBe('2026-03-01');
    expect(dayOf('2026-03-02T18:20:00.000Z', 'Asia/Kathmandu')).toBe('2026-03-03'); // +05:45
  });

  it('numbers ISO weeks across a year boundary', () => {
    // 2026-01-01 is a Thursday: ISO week 1 of 2026 runs Mon 2025-12-29 to Sun 2026-01-04.
    expect(weekOf('2025-12-29')).toBe('2026-W01');
    expect(weekOf('2026-01-04')).toBe('2026-W01');
    expect(weekOf('2025-12-28')).toBe('2025-W52');
    expect(weekDays('2026-W01')).toEqual([
      '2025-12-29',
      '2025-12-30',
      '2025-12-31',
      '2026-01-01',
      '2026-01-02',
      '2026-01-03',
      '2026-01-04',
    ]);
    expect(previousWeek('2026-W01')).toBe('2025-W52');
    // 2026 has 53 ISO weeks (it starts on a Thursday).
    expect(weekOf('2026-12-31')).toBe('2026-W53');
  });

  it('numbers Sunday-start weeks: week 1 is the one holding 1 January', () => {
    expect(weekOf('2025-12-28', 'sunday')).toBe('2026-W01');
    expect(weekDays('2026-W01', 'sunday')[0]).toBe('2025-12-28');
    expect(weekOf('2026-12-31', 'sunday')).toBe('2027-W01');
  });

  it('validates days', () => {
    expect(isDay('2026-02-28')).toBe(true);
    expect(isDay('2026-02-30')).toBe(false);
    expect(isDay('2026-3-1')).toBe(false);
  });
});
