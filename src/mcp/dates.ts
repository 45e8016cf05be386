import { TZDate } from '@date-fns/tz';
import { addDays } from 'date-fns/addDays';
import { format } from 'date-fns/format';
import { dayOf, isDay, isWeek, previousWeek, weekOf, type WeekStart } from '../stats/calendar.ts';
import { ToolInputError } from './errors.ts';

/** Days and weeks as a model names them ("today", "last", "2026-03-02"), in the server's time zone. */

function shiftDay(day: string, by: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return format(addDays(new TZDate(y, m - 1, d, 12, 'UTC'), by), 'yyyy-MM-dd');
}

export function today(timeZone: string, now = new Date()): string {
  return dayOf(now.toISOString(), timeZone);
}

/** `today`, `yesterday`, or `YYYY-MM-DD`. */
export function parseDayInput(value: string, timeZone: string, field = 'date', now = new Date()): string {
  const v = value.trim().toLowerCase();
  if (v === 'today') return today(timeZone, now);
  if (v === 'yesterday') return shiftDay(today(timeZone, now), -1);
  if (isDay(v)) return v;
  throw new ToolInputError(
    `${field} "${value}" is not a day: give today, yesterday or YYYY-MM-DD (days are in ${timeZone})`,
  );
}

/** `this`, `last`, or `YYYY-Www`. */
export function parseWeekInput(value: string, timeZone: string, weekStart: WeekStart, now = new Date()): string {
  const v = value.trim();
  const thisWeek = weekOf(today(timeZone, now), weekStart);
  if (v.toLowerCase() === 'this') return thisWeek;
  if (v.toLowerCase() === 'last') return previousWeek(thisWeek, weekStart);
  if (isWeek(v) && Number(v.slice(6)) >= 1 && Number(v.slice(6)) <= 53) return v;
  throw new ToolInputError(`week "${value}" is not a week: give this, last or YYYY-Www (e.g. 2026-W10)`);
}

export interface DayRange {
  since?: string;
  until?: string;
}

export function parseRange(input: { since?: string; until?: string }, timeZone: string, now = new Date()): DayRange {
  const since = input.since ? parseDayInput(input.since, timeZone, 'since', now) : undefined;
  const until = input.until ? parseDayInput(input.until, timeZone, 'until', now) : undefined;
  if (since && until && since > until) throw new ToolInputError(`since (${since}) is after until (${until})`);
  return { since, until };
}

export function inRange(day: string, range: DayRange): boolean {
  return (!range.since || day >= range.since) && (!range.until || day <= range.until);
}

/** The UTC instants a range of local days covers: [start of since, start of the day after until). */
export function rangeInstants(range: DayRange, timeZone: string): { from: number; to: number } {
  const startOf = (day: string) => {
    const [y, m, d] = day.split('-').map(Number) as [number, number, number];
    return new TZDate(y, m - 1, d, 0, 0, 0, timeZone).getTime();
  };
  return {
    from: range.since ? startOf(range.since) : Number.NEGATIVE_INFINITY,
    to: range.until ? startOf(shiftDay(range.until, 1)) : Number.POSITIVE_INFINITY,
  };
}
