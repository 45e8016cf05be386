import { addDays } from 'date-fns/addDays';
import { format } from 'date-fns/format';
import { TZDate } from '@date-fns/tz';
import { dayOf, previousWeek, weekOf, type WeekStart } from '../stats/calendar.ts';

export { DAY_WORDS, isDayWord, isMonthWord, isWeekWord, WEEK_WORDS } from '../stats/calendar-words.ts';

/** What a report covers: a day, a week, or a range of days (a month is a range), named the way people say it. */

export type Period =
  | { kind: 'day'; day: string }
  | { kind: 'week'; week: string }
  | { kind: 'range'; first: string; last: string; month?: string };

export interface PeriodWords {
  /** `today`, `yesterday` or `YYYY-MM-DD` */
  day?: string;
  /** `this`, `last` or `YYYY-Www` */
  week?: string;
  /** `this`, `last` or `YYYY-MM` */
  month?: string;
  /** `today`, `yesterday` or `YYYY-MM-DD`; with `until` (default: today) */
  since?: string;
  until?: string;
}

function shiftDay(day: string, by: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return format(addDays(new TZDate(y, m - 1, d, 12, 'UTC'), by), 'yyyy-MM-dd');
}

/** Today's date in the zone, and words turned into days. */
export function resolveDay(word: string, now: Date, timeZone: string): string {
  const today = dayOf(now.toISOString(), timeZone);
  if (word === 'today') return today;
  if (word === 'yesterday') return shiftDay(today, -1);
  return word;
}

/** The first and last day of a month (`YYYY-MM`). */
export function monthRange(month: string): { first: string; last: string } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const first = `${month}-01`;
  const next = m === 12 ? `${y + 1}-01-01` : `${y}-${String(m + 1).padStart(2, '0')}-01`;
  return { first, last: shiftDay(next, -1) };
}

/** The month before a month (`YYYY-MM`). */
export function previousMonth(month: string): string {
  return shiftDay(`${month}-01`, -1).slice(0, 7);
}

/** A month as people say it: `2026-02` → "February 2026". */
export function monthName(month: string): string {
  const [y, m] = month.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1, 15)).toLocaleString('en-US', { month: 'long', year: 'numeric', timeZone: 'UTC' });
}

/**
 * The period the words name, with "today" in `timeZone` at `now`. Exactly one of day, week, month or a
 * since/until range must be given (the CLI checks); the words themselves were checked by the parsers above.
 */
export function resolvePeriod(words: PeriodWords, now: Date, timeZone: string, weekStart: WeekStart): Period {
  const today = resolveDay('today', now, timeZone);
  if (words.day) return { kind: 'day', day: resolveDay(words.day, now, timeZone) };
  if (words.week) {
    const current = weekOf(today, weekStart);
    const week =
      words.week === 'this' ? current : words.week === 'last' ? previousWeek(current, weekStart) : words.week;
    return { kind: 'week', week };
  }
  if (words.month) {
    const current = today.slice(0, 7);
    const month = words.month === 'this' ? current : words.month === 'last' ? previousMonth(current) : words.month;
    return { kind: 'range', ...monthRange(month), month };
  }
  const first = resolveDay(words.since ?? 'today', now, timeZone);
  const last = resolveDay(words.until ?? 'today', now, timeZone);
  return { kind: 'range', first, last };
}
