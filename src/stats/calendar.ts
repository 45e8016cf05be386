import { TZDate, tz } from '@date-fns/tz';
import { addDays } from 'date-fns/addDays';
import { addWeeks } from 'date-fns/addWeeks';
import { format } from 'date-fns/format';
import { getISOWeek } from 'date-fns/getISOWeek';
import { getISOWeekYear } from 'date-fns/getISOWeekYear';
import { getWeek } from 'date-fns/getWeek';
import { getWeekYear } from 'date-fns/getWeekYear';
import { parse } from 'date-fns/parse';
import type { WeekStart } from './calendar-words.ts';

export { isDay, isWeek, type WeekStart } from './calendar-words.ts';

/** Calendar keys in a time zone: `YYYY-MM-DD` days and `YYYY-Www` weeks (ISO, or Sunday-start). */

export function dayOf(iso: string, timeZone: string): string {
  return zonedMinute(iso, timeZone).slice(0, 10);
}

export function timeOf(iso: string, timeZone: string): string {
  return zonedMinute(iso, timeZone).slice(11);
}

/** Zoned formatting goes through Intl on every call (a second of a small build went into it): a time's
 * minute in a zone is worked out once. Every zone's offset is whole minutes, so the minute of the time as
 * written (with the zone it was written in) decides the answer. */
const zonedMinutes = new Map<string, string>();

const WITH_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;

function zonedMinute(iso: string, timeZone: string): string {
  if (!WITH_SECONDS.test(iso)) return format(new Date(iso), 'yyyy-MM-dd HH:mm', { in: tz(timeZone) });
  const key = `${timeZone} ${iso.slice(0, 16)}${iso.slice(19).replace(/^\.\d+/, '')}`;
  let minute = zonedMinutes.get(key);
  if (minute === undefined) {
    minute = format(new Date(iso), 'yyyy-MM-dd HH:mm', { in: tz(timeZone) });
    if (zonedMinutes.size >= 200_000) zonedMinutes.clear();
    zonedMinutes.set(key, minute);
  }
  return minute;
}

/** A calendar day as a date at noon UTC: weekday and week arithmetic without zone surprises. */
function dayDate(day: string): TZDate {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new TZDate(y, m - 1, d, 12, 'UTC');
}

const sundayOptions = { weekStartsOn: 0, firstWeekContainsDate: 1 } as const;

export function weekOf(day: string, start: WeekStart = 'monday'): string {
  const date = dayDate(day);
  if (start === 'monday') return `${getISOWeekYear(date)}-W${String(getISOWeek(date)).padStart(2, '0')}`;
  return `${getWeekYear(date, sundayOptions)}-W${String(getWeek(date, sundayOptions)).padStart(2, '0')}`;
}

/** The seven days of a week, first to last. */
export function weekDays(week: string, start: WeekStart = 'monday'): string[] {
  const reference = new TZDate(2000, 0, 1, 12, 'UTC');
  const first =
    start === 'monday'
      ? parse(`${week}-1`, "RRRR-'W'II-i", reference)
      : parse(`${week}-1`, "YYYY-'W'ww-e", reference, { ...sundayOptions, useAdditionalWeekYearTokens: true });
  if (Number.isNaN(first.getTime())) throw new RangeError(`not a week: ${week} (expected YYYY-Www)`);
  return Array.from({ length: 7 }, (_, i) => format(addDays(first, i), 'yyyy-MM-dd'));
}

export function previousWeek(week: string, start: WeekStart = 'monday'): string {
  const [first] = weekDays(week, start);
  return weekOf(format(addWeeks(dayDate(first!), -1), 'yyyy-MM-dd'), start);
}

export function weekdayName(day: string): string {
  return format(dayDate(day), 'EEE');
}
