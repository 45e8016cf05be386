import { dayOf, timeOf } from '../stats/calendar.ts';

/**
 * When a session ran, as every page and report writes it: its real first and last time, each `HH:mm` read on
 * the day it is listed under, and a time on another day says which ("23:11 – 00:05 (next day)"), so a session
 * that crosses midnight reads the same in a day's table, its report section and its Markdown.
 */

const DAY_MS = 86_400_000;

function daysApart(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);
}

function dayNote(offset: number): string {
  if (offset === 0) return '';
  if (offset === 1) return ' (next day)';
  if (offset === -1) return ' (previous day)';
  return offset > 0 ? ` (${offset} days later)` : ` (${-offset} days earlier)`;
}

/** `HH:mm` of an instant, with the day it falls on when that is not `day`. */
export function timeOnDay(iso: string, day: string, timeZone: string): string {
  return `${timeOf(iso, timeZone)}${dayNote(daysApart(day, dayOf(iso, timeZone)))}`;
}

export interface SpanOptions {
  /** The day the span is listed under (default: the day it starts). */
  day?: string;
  /** Put the start's date first: `MM-dd` (a week's list) or `yyyy-MM-dd` (a project's sessions). */
  date?: 'short' | 'full';
}

/** A session's span: "09:12–10:40", "23:11 – 00:05 (next day)", "23:11 (previous day) – 00:05". */
export function timeSpan(
  startIso: string,
  endIso: string | undefined,
  timeZone: string,
  options: SpanOptions = {},
): string {
  if (!valid(startIso)) return '';
  const startDay = dayOf(startIso, timeZone);
  const day = options.day ?? startDay;
  const date = options.date === 'full' ? `${startDay} ` : options.date === 'short' ? `${startDay.slice(5)} ` : '';
  const start = timeOnDay(startIso, day, timeZone);
  const end = endIso && valid(endIso) ? timeOnDay(endIso, day, timeZone) : start;
  if (end === start) return `${date}${start}`;
  // Spaces around the dash once a note is in it, so the note reads as part of its own time.
  return `${date}${start}${start.includes('(') || end.includes('(') ? ' – ' : '–'}${end}`;
}

function valid(iso: string): boolean {
  return iso !== '' && !Number.isNaN(Date.parse(iso));
}

/** A report session's span: read on the day it is listed under, or, in a week or longer list, from its own
 * start date. */
export function sessionSpan(
  s: { startedAt: string; endedAt: string; day: string },
  timeZone: string,
  long: boolean,
): string {
  return timeSpan(s.startedAt, s.endedAt, timeZone, long ? { date: 'short' } : { day: s.day });
}
