import { describe, expect, it } from 'vitest';
import { tz } from '@date-fns/tz';
import { format } from 'date-fns';
import {
  dayOf,
  isDay,
  previousWeek,
  slotDay,
  timeOf,
  weekDays,
  weekOf,
  zonedSecond,
} from '../../src/stats/calendar.ts';

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

describe('dayOf, timeOf and zonedSecond, worked out once a minute', () => {
  it('agree with zoned formatting for any time, written in any zone, in zones with odd offsets', () => {
    const zones = ['UTC', 'Asia/Tokyo', 'Asia/Kathmandu', 'Pacific/Chatham', 'America/St_Johns', 'Europe/Berlin'];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 3000; i++) {
      const at = new Date(Date.UTC(2024, 0, 1) + Math.floor(random() * 3 * 365 * 86_400_000));
      const offsetMinutes = [0, 540, 345, -210][i % 4]!;
      const at2 = new Date(at.getTime() + Math.floor(random() * 60) * 1000);
      const local = new Date(at2.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 19);
      const sign = offsetMinutes < 0 ? '-' : '+';
      const abs = Math.abs(offsetMinutes);
      const zoneSuffix = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
      const written = [at2.toISOString(), `${local}${zoneSuffix}`, `${local}.5${zoneSuffix}`][i % 3]!;
      for (const zone of zones) {
        const expected = format(new Date(written), 'yyyy-MM-dd HH:mm', { in: tz(zone) });
        expect(`${dayOf(written, zone)} ${timeOf(written, zone)}`, `${written} in ${zone}`).toBe(expected);
        const full = format(new Date(written), 'yyyy-MM-dd HH:mm:ss xxx', { in: tz(zone) });
        expect(zonedSecond(written, zone), `${written} in ${zone}`).toBe(full);
        const slot = at2.toISOString().slice(0, 16);
        expect(slotDay(slot, written, zone), `slot ${slot} in ${zone}`).toBe(
          format(new Date(`${slot}:00Z`), 'yyyy-MM-dd', { in: tz(zone) }),
        );
        expect(slotDay('unknown', written, zone)).toBe(expected.slice(0, 10));
      }
    }
    // Without seconds, a time is not cached by a key it could share with another.
    expect(timeOf('2026-03-02T16:30Z', 'Asia/Tokyo')).toBe('01:30');
    expect(timeOf('2026-03-02T16:30:00+09:00', 'Asia/Tokyo')).toBe('16:30');
  });

  it('agree with zoned formatting minute by minute on the days the offset changes, and before 2000', () => {
    // Each zone's changes in 2025–2026 are found by the offset at noon UTC differing from the day before's;
    // then every minute of the two days around the change is compared.
    const zones = ['America/New_York', 'Europe/London', 'Australia/Lord_Howe', 'Pacific/Chatham', 'America/Santiago'];
    const offsetName = (date: Date, zone: string) => format(date, 'xxx', { in: tz(zone) });
    let changes = 0;
    for (const zone of zones) {
      for (let day = Date.UTC(2025, 0, 2, 12); day < Date.UTC(2027, 0, 1); day += 86_400_000) {
        if (offsetName(new Date(day), zone) === offsetName(new Date(day - 86_400_000), zone)) continue;
        changes += 1;
        for (let at = day - 36 * 3_600_000; at < day + 12 * 3_600_000; at += 60_000) {
          const written = new Date(at).toISOString();
          const expected = format(new Date(at), 'yyyy-MM-dd HH:mm:ss xxx', { in: tz(zone) });
          expect(zonedSecond(written, zone), `${written} in ${zone}`).toBe(expected);
        }
      }
    }
    expect(changes).toBe(zones.length * 4);
    expect(zonedSecond('1969-07-20T20:17:40Z', 'America/New_York')).toBe('1969-07-20 16:17:40 -04:00');
    expect(dayOf('1999-12-31T20:00:00Z', 'Asia/Tokyo')).toBe('2000-01-01');
  });
});
