import { InvalidArgumentError } from 'commander';
import { isDayWord, isMonthWord, isWeekWord } from '../stats/calendar-words.ts';

const wordParser = (check: (v: string) => boolean, what: string) => (value: string) => {
  if (!check(value)) throw new InvalidArgumentError(`"${value}" is not ${what}`);
  return value;
};
export const dayWord = wordParser(isDayWord, 'a day (today, yesterday or YYYY-MM-DD)');
/** Weeks are numbered 01 to 53; whether a year has a week 53 depends on the week start (checked when the
 * report is made, see checkWeekExists in commands/report.ts). */
const weekNumberInRange = (value: string) => !/^\d{4}-W/.test(value) || /-W(0[1-9]|[1-4]\d|5[0-3])$/.test(value);
export const weekWord = wordParser(
  (v) => isWeekWord(v) && weekNumberInRange(v),
  'a week (this, last or YYYY-Www, weeks 01 to 53, e.g. 2026-W10)',
);
export const monthWord = wordParser(isMonthWord, 'a month (this, last or YYYY-MM)');
export const plainDay = wordParser((v) => isDayWord(v) && !['today', 'yesterday'].includes(v), 'a day (YYYY-MM-DD)');

export function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive whole number`);
  return n;
}

export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new InvalidArgumentError(`"${value}" is not a port (0-65535; 0 picks a free one)`);
  }
  return port;
}

export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw new InvalidArgumentError(`"${value}" is not a number of seconds`);
  return seconds;
}
