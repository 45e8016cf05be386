import { TZDate, tz, tzOffset } from '@date-fns/tz';
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
  return zonedMinute(iso, timeZone).slice(11, 16);
}

/** The local day of a session's activity slot (a UTC minute, `YYYY-MM-DDTHH:MM`, see SessionStats), or of
 * the session's start for the slot of requests without a time. */
export function slotDay(slot: string, startedAt: string, timeZone: string): string {
  if (slot === 'unknown') return dayOf(startedAt, timeZone);
  let days = slotDays.get(timeZone);
  if (!days) slotDays.set(timeZone, (days = new Map()));
  let day = days.get(slot);
  if (day === undefined) {
    day = dayOf(`${slot}:00.000Z`, timeZone);
    if (days.size >= 200_000) days.clear();
    days.set(slot, day);
  }
  return day;
}

// Slots are looked up by the million in a site build: straight from the slot, without building a time.
const slotDays = new Map<string, Map<string, string>>();

/** `yyyy-MM-dd HH:mm:ss xxx` in the zone (a message's full time, shown on hover). */
export function zonedSecond(iso: string, timeZone: string): string {
  if (!WITH_SECONDS.test(iso)) return format(new Date(iso), SECOND_PATTERN, { in: tz(timeZone) });
  const minute = zonedMinute(iso, timeZone);
  return `${minute.slice(0, 16)}:${iso.slice(17, 19)}${minute.slice(16)}`;
}

const MINUTE_PATTERN = 'yyyy-MM-dd HH:mm xxx';
const SECOND_PATTERN = 'yyyy-MM-dd HH:mm:ss xxx';

/** Zoned formatting goes through Intl on every call (a second of a small build went into it): a time's
 * minute in a zone, with the zone's offset then, is worked out once. Every zone's offset is whole minutes,
 * so the minute of the time as written (with the zone it was written in) decides the answer, and the
 * seconds are those written. */
const zonedMinutes = new Map<string, Map<string, string>>();

const WITH_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d/;
/** The common case, a UTC time as JavaScript writes it: its minute alone is the key. */
const UTC_WRITTEN = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

function zonedMinute(iso: string, timeZone: string): string {
  let minutes = zonedMinutes.get(timeZone);
  if (!minutes) zonedMinutes.set(timeZone, (minutes = new Map()));
  let key: string;
  if (UTC_WRITTEN.test(iso)) key = `${iso.slice(0, 16)}Z`;
  else if (WITH_SECONDS.test(iso)) key = `${iso.slice(0, 16)}${iso.slice(19).replace(/^\.\d+/, '')}`;
  else return format(new Date(iso), MINUTE_PATTERN, { in: tz(timeZone) });
  let minute = minutes.get(key);
  if (minute === undefined) {
    minute = formatMinute(Date.parse(iso), timeZone) ?? format(new Date(iso), MINUTE_PATTERN, { in: tz(timeZone) });
    if (minutes.size >= 200_000) minutes.clear();
    minutes.set(key, minute);
  }
  return minute;
}

const DAY_MS = 86_400_000;
const QUARTER_MS = 900_000;
/** From 2000 on: zones have kept to offsets of whole quarter hours since long before. */
const FAST_FROM_MS = Date.UTC(2000, 0, 1);
const FAST_UNTIL_MS = Date.UTC(9999, 11, 31);

/**
 * `yyyy-MM-dd HH:mm xxx` by arithmetic, with the zone's offset from Intl only once a day: a site build asks
 * for a hundred thousand distinct minutes, and formatting each through Intl cost most of a second. Offsets
 * change at most once a day, at a whole quarter hour of UTC (every zone's offset is a multiple of 15 minutes):
 * a day that ends with the offset it started with has it throughout, and in the others each quarter hour is
 * asked. Undefined (format it the slow way) outside 2000–9999 or when Intl has no answer.
 */
function formatMinute(ms: number, timeZone: string): string | undefined {
  if (!(ms >= FAST_FROM_MS && ms < FAST_UNTIL_MS)) return undefined;
  const offset = offsetAt(ms, timeZone);
  if (!Number.isInteger(offset)) return undefined;
  const local = new Date(ms + offset * 60_000).toISOString();
  const abs = Math.abs(offset);
  const hours = String(Math.floor(abs / 60)).padStart(2, '0');
  return `${local.slice(0, 10)} ${local.slice(11, 16)} ${offset < 0 ? '-' : '+'}${hours}:${String(abs % 60).padStart(2, '0')}`;
}

/** Per zone, per UTC day: the day's offset, or a map of its quarter hours' when it changes that day. */
const dayOffsets = new Map<string, Map<number, number | Map<number, number>>>();

function offsetAt(ms: number, timeZone: string): number {
  let days = dayOffsets.get(timeZone);
  if (!days) dayOffsets.set(timeZone, (days = new Map()));
  const day = Math.floor(ms / DAY_MS);
  let known = days.get(day);
  if (known === undefined) {
    const start = tzOffset(timeZone, new Date(day * DAY_MS));
    known = start === tzOffset(timeZone, new Date((day + 1) * DAY_MS)) ? start : new Map<number, number>();
    if (days.size >= 100_000) days.clear();
    days.set(day, known);
  }
  if (typeof known === 'number') return known;
  const quarter = Math.floor(ms / QUARTER_MS);
  let offset = known.get(quarter);
  if (offset === undefined) known.set(quarter, (offset = tzOffset(timeZone, new Date(quarter * QUARTER_MS))));
  return offset;
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
