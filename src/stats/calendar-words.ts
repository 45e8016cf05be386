/**
 * What a day, week or month argument looks like, checked without date-fns: the CLI checks its flags while it
 * parses them, and every command (even `--help`) would otherwise load date-fns' hundreds of modules first.
 */

export type WeekStart = 'monday' | 'sunday';

export const DAY_WORDS = ['today', 'yesterday'] as const;
export const WEEK_WORDS = ['this', 'last'] as const;

/** `YYYY-MM-DD` naming a day that exists (no 2026-02-30). */
export function isDay(value: string): boolean {
  if (!/^\d{4}-\d\d-\d\d$/.test(value)) return false;
  const [year, month, day] = value.split('-').map(Number) as [number, number, number];
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

export function isWeek(value: string): boolean {
  return /^\d{4}-W\d\d$/.test(value);
}

export function isDayWord(value: string): boolean {
  return (DAY_WORDS as readonly string[]).includes(value) || isDay(value);
}

export function isWeekWord(value: string): boolean {
  return (WEEK_WORDS as readonly string[]).includes(value) || isWeek(value);
}

export function isMonthWord(value: string): boolean {
  return (WEEK_WORDS as readonly string[]).includes(value) || /^\d{4}-(0[1-9]|1[0-2])$/.test(value);
}
