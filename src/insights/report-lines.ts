import type { SessionSummary } from '../model/session.ts';
import type { DayIndex } from '../stats/indexes.ts';
import { daysCost, describeCost } from './cost.ts';

/** The sessions active on any of these days, once each. */
export function sessionsOfDays(days: Map<string, DayIndex>, list: readonly string[]): SessionSummary[] {
  const byId = new Map<string, SessionSummary>();
  for (const day of list) for (const { summary } of days.get(day)?.sessions ?? []) byId.set(summary.id, summary);
  return [...byId.values()];
}

/** Lines a day or week report adds under its totals: the cost estimate (and what it leaves out). */
export function insightLines(days: Map<string, DayIndex>, list: readonly string[], timeZone: string): string[] {
  const sessions = sessionsOfDays(days, list);
  const lines: string[] = [];
  const cost = describeCost(daysCost(sessions, new Set(list), timeZone));
  if (cost !== 'no tokens') lines.push(`Cost: ${cost}`);
  return lines;
}
