import { monthLabel } from './ticks.ts';

/** A continuous run of calendar days for a time chart: every day has a slot, so an idle day is a gap. */
export interface DayAxis {
  /** `YYYY-MM-DD`, one per slot, consecutive. */
  slots: string[];
  /** A label under the first slot of each month (with the year on the first and at each new year). */
  months: { slot: number; day: string; label: string }[];
  /** Days of the month labelled under their slot; `minor` ones may be hidden where the chart is narrow. */
  dayTicks: { slot: number; label: string; minor: boolean }[];
}

const DAY_MS = 86_400_000;
const toTime = (day: string) =>
  Date.UTC(Number(day.slice(0, 4)), Number(day.slice(5, 7)) - 1, Number(day.slice(8, 10)));
const fromTime = (time: number) => new Date(time).toISOString().slice(0, 10);

/**
 * The axis for `days` (sorted `YYYY-MM-DD`): from the first of the month of the earliest day shown to the last
 * day, at most about `spanDays` back from the last day, so a month label always sits on that month's first day.
 */
export function dayAxis(days: string[], spanDays = 92): DayAxis {
  if (days.length === 0) return { slots: [], months: [], dayTicks: [] };
  const last = days[days.length - 1]!;
  const earliest = Math.max(toTime(days[0]!), toTime(last) - (spanDays - 1) * DAY_MS);
  const start = toTime(`${fromTime(earliest).slice(0, 7)}-01`);
  const slots: string[] = [];
  for (let t = start; t <= toTime(last); t += DAY_MS) slots.push(fromTime(t));
  const months = slots
    .map((day, slot) => ({ slot, day }))
    .filter(({ day }) => day.endsWith('-01'))
    .map(({ slot, day }) => ({ slot, day, label: monthLabel(day, slot === 0 || day.slice(5, 7) === '01') }));
  // Weekly day numbers always fit; every day's number on a month or less (on a narrow page only up to 12 days).
  const dayTicks = slots
    .map((day, slot) => ({ slot, date: Number(day.slice(8)) }))
    .filter(({ date }) => slots.length <= 31 || [1, 8, 15, 22].includes(date))
    .map(({ slot, date }) => ({
      slot,
      label: String(date),
      minor: slots.length > 12 && ![1, 8, 15, 22].includes(date),
    }));
  return { slots, months, dayTicks };
}

/** The range of an axis in words: `Mar 1 – Jun 20, 2026`, or `Dec 1, 2025 – Jan 9, 2026` across a new year. */
export function rangeLabel(axis: DayAxis): string {
  const first = axis.slots[0];
  const last = axis.slots[axis.slots.length - 1];
  if (!first || !last) return '';
  const words = (day: string) => `${monthLabel(day)} ${Number(day.slice(8))}`;
  return first.slice(0, 4) === last.slice(0, 4)
    ? `${words(first)} – ${words(last)}, ${last.slice(0, 4)}`
    : `${words(first)}, ${first.slice(0, 4)} – ${words(last)}, ${last.slice(0, 4)}`;
}
