import type { SourceId, TokenUsage } from '../model/message.ts';
import type { ConversationPattern, SessionSummary } from '../model/session.ts';
import { dayOf, slotDay } from './calendar.ts';
import type { DayIndex } from './indexes.ts';
import { addTokens, emptyTokens, totalTokens } from './session-stats.ts';

/** Site-wide statistics (the stats page and /stats.json), from session summaries and day indexes. */

export type PatternCounts = Record<ConversationPattern, number>;

export interface HistogramBin {
  from: number;
  to: number;
  count: number;
}

export interface StatsJson {
  generatedAt: string;
  timeZone: string;
  sessions: { total: number; bySource: Record<string, number> };
  patterns: PatternCounts;
  /** Shares of `patterns`, 0–1. */
  patternShares: Record<ConversationPattern, number>;
  patternsBySource: Record<string, PatternCounts>;
  /** Entries of each conversation's main thread (what the person saw); subagents' entries are apart. */
  entriesPerConversation: { min: number; max: number; mean: number; median: number; histogram: HistogramBin[] };
  /** Entries made by subagents: in total, and how many conversations used any. */
  subagentEntries: { total: number; conversations: number };
  toolUses: {
    total: number;
    byName: Record<string, number>;
    bySource: Record<string, number>;
    errors: number;
    errorsByName: Record<string, number>;
    /** errors / uses per tool, for tools whose source records errors. */
    errorRateByName: Record<string, number>;
    /** Calls the person refused (a permission prompt answered no, a cancelled call): not errors. */
    refusals: number;
    refusalsByName: Record<string, number>;
  };
  tokens: { total: TokenUsage; bySource: Record<string, TokenUsage> };
  tokensByDay: Record<string, Record<string, TokenUsage>>;
  toolUsesByDay: Record<string, Record<string, number>>;
  days: Record<string, { sessions: number; entries: number; toolUses: number; prompts: number; activeMinutes: number }>;
}

export const PATTERNS: ConversationPattern[] = ['simple', 'single_tool', 'multi_tool', 'incomplete'];

function emptyPatterns(): PatternCounts {
  return { simple: 0, single_tool: 0, multi_tool: 0, incomplete: 0 };
}

function increment(into: Record<string, number>, key: string, by = 1): void {
  into[key] = (into[key] ?? 0) + by;
}

function sortedByValue(record: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(record).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
}

/** Bins of growing width: 0, 1, 2–3, 4–7, 8–15, … up to the largest value. */
export function histogram(values: number[]): HistogramBin[] {
  if (values.length === 0) return [];
  const max = Math.max(...values);
  const bins: HistogramBin[] = [{ from: 0, to: 0, count: 0 }];
  for (let from = 1; from <= max; from *= 2) bins.push({ from, to: from * 2 - 1, count: 0 });
  for (const v of values) {
    const bin = bins.find((b) => v >= b.from && v <= b.to)!;
    bin.count += 1;
  }
  return bins;
}

export function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A session's subagent entries: recorded since summaries carry them; before, subagents are counted by their
 * threads' share being unknown, so 0 (the total stays as it was). */
function subagentEntriesOf(s: SessionSummary): number {
  if (s.stats.subagentEntries !== undefined) return s.stats.subagentEntries;
  if (s.stats.mainEntries !== undefined) return s.stats.entries - s.stats.mainEntries;
  return 0;
}

export function computeStats(
  sessions: SessionSummary[],
  days: Map<string, DayIndex>,
  timeZone: string,
  // The newest activity, not the clock: the same archive builds the same bytes (incremental builds keep
  // unchanged files as they are, and compare equal to a full build).
  now: Date = new Date(sessions.reduce((latest, s) => Math.max(latest, Date.parse(s.endedAt) || 0), 0)),
): StatsJson {
  const bySource: Record<string, number> = {};
  const patterns = emptyPatterns();
  const patternsBySource: Record<string, PatternCounts> = {};
  const toolByName: Record<string, number> = {};
  const toolBySource: Record<string, number> = {};
  const errorsByName: Record<string, number> = {};
  const refusalsByName: Record<string, number> = {};
  const subagentEntries = { total: 0, conversations: 0 };
  const tokensBySource: Record<string, TokenUsage> = {};
  const tokensTotal = emptyTokens();
  const tokensByDay: Record<string, Record<string, TokenUsage>> = {};
  const toolUsesByDay: Record<string, Record<string, number>> = {};

  for (const s of sessions) {
    const source: SourceId = s.source;
    increment(bySource, source);
    patterns[s.stats.pattern] += 1;
    (patternsBySource[source] ??= emptyPatterns())[s.stats.pattern] += 1;
    for (const [name, n] of Object.entries(s.stats.toolUsesByName)) {
      increment(toolByName, name, n);
      increment(toolBySource, source, n);
    }
    for (const [name, n] of Object.entries(s.stats.toolErrorsByName)) increment(errorsByName, name, n);
    for (const [name, n] of Object.entries(s.stats.toolRefusalsByName ?? {})) increment(refusalsByName, name, n);
    const sub = subagentEntriesOf(s);
    subagentEntries.total += sub;
    if (sub > 0) subagentEntries.conversations += 1;
    addTokens((tokensBySource[source] ??= emptyTokens()), s.stats.tokens);
    addTokens(tokensTotal, s.stats.tokens);
    // A request's tokens belong to the day of the request, not of the session's start.
    for (const [slot, activity] of Object.entries(s.stats.activity)) {
      const day = slotDay(slot, s.startedAt, timeZone);
      if (!days.has(day)) continue;
      // Sources without token data (Amazon Q, Codex before 2025-09) show none rather than zeros.
      if (totalTokens(activity.tokens) > 0)
        addTokens(((tokensByDay[day] ??= {})[source] ??= emptyTokens()), activity.tokens);
      for (const [name, n] of Object.entries(activity.toolUsesByName)) increment((toolUsesByDay[day] ??= {}), name, n);
    }
  }

  const entries = sessions.map((s) => s.stats.entries - subagentEntriesOf(s));
  const sum = (r: Record<string, number>) => Object.values(r).reduce((a, b) => a + b, 0);
  const total = sessions.length;
  const toolTotal = Object.values(toolByName).reduce((a, b) => a + b, 0);
  const errorRateByName = Object.fromEntries(
    Object.entries(errorsByName).map(([name, errors]) => [name, errors / (toolByName[name] ?? errors)]),
  );
  return {
    generatedAt: now.toISOString(),
    timeZone,
    sessions: { total, bySource },
    patterns,
    patternShares: Object.fromEntries(PATTERNS.map((p) => [p, total ? patterns[p] / total : 0])) as Record<
      ConversationPattern,
      number
    >,
    patternsBySource,
    entriesPerConversation: {
      min: entries.length ? Math.min(...entries) : 0,
      max: entries.length ? Math.max(...entries) : 0,
      mean: entries.length ? entries.reduce((a, b) => a + b, 0) / entries.length : 0,
      median: median(entries),
      histogram: histogram(entries),
    },
    subagentEntries,
    toolUses: {
      total: toolTotal,
      byName: sortedByValue(toolByName),
      bySource: toolBySource,
      errors: sum(errorsByName),
      errorsByName: sortedByValue(errorsByName),
      errorRateByName,
      refusals: sum(refusalsByName),
      refusalsByName: sortedByValue(refusalsByName),
    },
    tokens: { total: tokensTotal, bySource: tokensBySource },
    tokensByDay: Object.fromEntries(Object.entries(tokensByDay).sort(([a], [b]) => a.localeCompare(b))),
    toolUsesByDay: Object.fromEntries(Object.entries(toolUsesByDay).sort(([a], [b]) => a.localeCompare(b))),
    days: Object.fromEntries(
      [...days.values()].map((d) => [
        d.day,
        {
          sessions: d.sessions.length,
          entries: d.totals.entries,
          toolUses: d.totals.toolUses,
          prompts: d.prompts.length,
          activeMinutes: d.activeMinutes,
        },
      ]),
    ),
  };
}
