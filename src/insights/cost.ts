import type { SourceId, TokenUsage } from '../model/message.ts';
import { SOURCE_LABELS } from '../model/labels.ts';
import type { SessionSummary } from '../model/session.ts';
import { dayOf, slotDay } from '../stats/calendar.ts';
import { addTokenDetail as addTokens, emptyTokens } from '../model/session-accumulator.ts';
import { PRICES, priceOf, priceTokens as priceTokensOf, splitModelKey, type PriceTable } from './prices.ts';

/** Sources whose histories mostly keep no token counts (Amazon Q's database, Cursor): a session of theirs without
 * tokens is "not recorded", not $0. */
export const NO_TOKEN_SOURCES: ReadonlySet<SourceId> = new Set<SourceId>(['amazon-q', 'cursor']);

export const COST_LABEL = 'API-equivalent estimate';

/** An API-equivalent cost estimate over some sessions (or slots of them). */
export interface Cost {
  /** USD of the priced tokens. */
  usd: number;
  /** USD by base model (the table's id). */
  byModel: Record<string, number>;
  /** Models with tokens but no price in the table, with their tokens: left out of `usd`, never guessed. */
  unpriced: Record<string, TokenUsage>;
  /** Sessions with tokens whose split by model is not known (archived before it was kept). */
  notKnown: number;
  /** Sources among these sessions that keep no token counts. */
  noTokenCounts: SourceId[];
  /** Sessions (or session-days) that had priced tokens. */
  priced: number;
  /** What the assistants themselves recorded, beside the estimate (whole sessions only): dollars (OpenCode,
   * Cline; 0 for subscriptions and free models) and Copilot CLI's premium requests. */
  recorded: { usd: number; sessions: number; premiumRequests: number; premiumSessions: number };
}

export function emptyCost(): Cost {
  return {
    usd: 0,
    byModel: {},
    unpriced: {},
    notKnown: 0,
    noTokenCounts: [],
    priced: 0,
    recorded: { usd: 0, sessions: 0, premiumRequests: 0, premiumSessions: 0 },
  };
}

function hasTokens(t: TokenUsage): boolean {
  return t.input + t.output + t.cacheRead + t.cacheCreation > 0;
}

/** Adds the cost of one per-model token record (a session's or a slot's) to `into`. */
export function addModelCost(into: Cost, byModel: Record<string, TokenUsage>, prices: PriceTable = PRICES): boolean {
  let any = false;
  for (const [key, usage] of Object.entries(byModel)) {
    if (!hasTokens(usage)) continue;
    const { model, long } = splitModelKey(key);
    const found = priceOf(model, prices);
    if (!found) {
      addTokens((into.unpriced[model] ??= emptyTokens()), usage);
      continue;
    }
    const usd = priceTokensOf(usage, found.price, long);
    into.usd += usd;
    into.byModel[found.model] = (into.byModel[found.model] ?? 0) + usd;
    any = true;
  }
  return any;
}

function noteSession(
  into: Cost,
  s: SessionSummary,
  tokens: TokenUsage,
  byModel: Record<string, TokenUsage> | undefined,
) {
  if (!hasTokens(tokens)) {
    // Sources that mostly record no tokens (Amazon Q's database, Cursor's transcripts): said so, not taken as 0.
    if (NO_TOKEN_SOURCES.has(s.source) && !into.noTokenCounts.includes(s.source)) into.noTokenCounts.push(s.source);
    return;
  }
  if (!byModel) {
    into.notKnown += 1;
    return;
  }
  if (addModelCost(into, byModel)) into.priced += 1;
}

/** The cost of whole sessions. */
export function sessionsCost(sessions: Iterable<SessionSummary>): Cost {
  const cost = emptyCost();
  for (const s of sessions) {
    noteSession(cost, s, s.stats.tokens, s.stats.tokensByModel);
    if (s.stats.recordedUsd !== undefined) {
      cost.recorded.usd += s.stats.recordedUsd;
      cost.recorded.sessions += 1;
    }
    if (s.stats.premiumRequests !== undefined) {
      cost.recorded.premiumRequests += s.stats.premiumRequests;
      cost.recorded.premiumSessions += 1;
    }
  }
  return cost;
}

/** The cost of the requests these sessions made on the given local days (a request counts on its own day). */
export function daysCost(sessions: Iterable<SessionSummary>, days: ReadonlySet<string>, timeZone: string): Cost {
  const cost = emptyCost();
  for (const s of sessions) {
    const usage = sessionDayUsage(s, timeZone, (day) => (days.has(day) ? '' : undefined)).get('');
    if (usage) noteSession(cost, s, usage.tokens, usage.byModel);
  }
  return cost;
}

/** The cost of the requests of each local day, in one pass over the sessions. */
export function costByDay(sessions: Iterable<SessionSummary>, timeZone: string): Map<string, Cost> {
  const byDay = new Map<string, Cost>();
  for (const s of sessions)
    for (const [day, usage] of sessionDayUsage(s, timeZone, (d) => d)) {
      let cost = byDay.get(day);
      if (!cost) byDay.set(day, (cost = emptyCost()));
      noteSession(cost, s, usage.tokens, usage.byModel);
    }
  return byDay;
}

interface Usage {
  tokens: TokenUsage;
  /** By model, when every request with tokens says its model. */
  byModel: Record<string, TokenUsage> | undefined;
}

/** A session's tokens summed into groups of its local days (`group` names a day's group, or leaves it out). */
function sessionDayUsage(
  s: SessionSummary,
  timeZone: string,
  group: (day: string) => string | undefined,
): Map<string, Usage> {
  const groups = new Map<string, Usage>();
  for (const [slot, activity] of Object.entries(s.stats.activity)) {
    const key = group(slotDay(slot, s.startedAt, timeZone));
    if (key === undefined) continue;
    let usage = groups.get(key);
    if (!usage) groups.set(key, (usage = { tokens: emptyTokens(), byModel: {} }));
    addTokens(usage.tokens, activity.tokens);
    if (!s.stats.tokensByModel || !activity.tokensByModel) {
      if (hasTokens(activity.tokens)) usage.byModel = undefined;
      continue;
    }
    if (usage.byModel)
      for (const [k, u] of Object.entries(activity.tokensByModel)) addTokens((usage.byModel[k] ??= emptyTokens()), u);
  }
  return groups;
}

/** `cost` in stats.json. */
export interface CostJson {
  label: string;
  currency: string;
  pricesAsOf: string;
  pricesSource: string;
  total: number;
  bySource: Record<string, number>;
  byModel: Record<string, number>;
  byDay: Record<string, number>;
  /** Models with tokens but no price: their tokens, left out of every total. */
  unpriced: Record<string, TokenUsage>;
  /** Sessions with tokens whose split by model is not known (collected by an older version): left out. */
  sessionsNotKnown: number;
  /** Sources that keep no token counts, so no cost can be estimated for them. */
  noTokenCounts: string[];
  /** What the assistants recorded themselves (see Cost.recorded). */
  recorded: Cost['recorded'];
}

const round = (usd: number) => Math.round(usd * 1e6) / 1e6;
const rounded = (r: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(r)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, round(v)]),
  );

export function costJson(sessions: SessionSummary[], timeZone: string): CostJson {
  const total = sessionsCost(sessions);
  const bySource: Record<string, number> = {};
  for (const source of new Set(sessions.map((s) => s.source))) {
    const cost = sessionsCost(sessions.filter((s) => s.source === source));
    if (cost.priced > 0 || !NO_TOKEN_SOURCES.has(source)) bySource[source] = cost.usd;
  }
  const byDay: Record<string, number> = {};
  for (const [day, c] of [...costByDay(sessions, timeZone)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    if (c.priced > 0) byDay[day] = c.usd;
  return {
    label: COST_LABEL,
    currency: PRICES.currency,
    pricesAsOf: PRICES.asOf,
    pricesSource: `${PRICES.source}: ${PRICES.packages.map((p) => `${p.package}@${p.version} (${p.published})`).join(', ')}`,
    total: round(total.usd),
    bySource: rounded(bySource),
    byModel: rounded(total.byModel),
    byDay: rounded(byDay),
    unpriced: total.unpriced,
    sessionsNotKnown: total.notKnown,
    noTokenCounts: total.noTokenCounts,
    recorded: { ...total.recorded, usd: round(total.recorded.usd) },
  };
}

/** `$1.23`, `$0.004`, `<$0.001`. */
// One formatter for every amount: toLocaleString with options makes a new one per call (1.6 s of a first build).
const DOLLARS = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

export function formatUsd(usd: number): string {
  if (usd === 0) return '$0';
  if (usd < 0.001) return '<$0.001';
  if (usd < 1) return `$${usd.toFixed(3)}`;
  return `$${DOLLARS.format(usd)}`;
}

/** One line in words: the estimate and what it leaves out. */
export function describeCost(cost: Cost): string {
  const parts: string[] = [];
  if (cost.priced > 0) parts.push(`${formatUsd(cost.usd)} (${COST_LABEL}, prices as of ${PRICES.asOf})`);
  const unpriced = Object.keys(cost.unpriced);
  if (unpriced.length) parts.push(`not priced: ${unpriced.join(', ')} (no price in the table)`);
  if (cost.notKnown)
    parts.push(
      `not known for ${cost.notKnown} session${cost.notKnown === 1 ? '' : 's'} collected before tokens were kept per model`,
    );
  if (cost.noTokenCounts.length) parts.push(`${cost.noTokenCounts.map(sourceName).join(', ')} keeps no token counts`);
  if (cost.recorded.sessions)
    parts.push(
      `${formatUsd(cost.recorded.usd)} recorded by the assistants themselves in ${plural(cost.recorded.sessions, 'session')}`,
    );
  if (cost.recorded.premiumSessions)
    parts.push(`${plural(cost.recorded.premiumRequests, 'premium request')} (Copilot CLI)`);
  return parts.length ? parts.join('; ') : 'no tokens';
}

function plural(n: number, word: string): string {
  return `${Number.isInteger(n) ? n : n.toFixed(2)} ${word}${n === 1 ? '' : 's'}`;
}

function sourceName(source: SourceId): string {
  return SOURCE_LABELS[source] ?? source;
}
