import { splitSessionKey } from '../model/ids.ts';
import { insightLines } from '../insights/report-lines.ts';
import type { SourceId, TokenUsage } from '../model/message.ts';
import { projectOf } from '../model/project.ts';
import { sessionRoute } from '../model/routes.ts';
import type { ConversationPattern, SessionSummary } from '../model/session.ts';
import { dayOf, previousWeek, timeOf, weekDays, weekdayName, type WeekStart, slotDay } from '../stats/calendar.ts';
import type { DayIndex } from '../stats/indexes.ts';
import { addTokens, emptyTokens } from '../stats/session-stats.ts';
import { monthName, monthRange, previousMonth } from './period.ts';

/** Day, week and range reports: one model each, rendered as pages, as Markdown and as JSON. */

export interface ReportTotals {
  sessions: number;
  prompts: number;
  entries: number;
  toolUses: number;
  activeMinutes: number;
  tokens: TokenUsage;
}

export interface ReportPrompt {
  /** `HH:mm` in the zone (a week's prompts also carry their day). */
  time: string;
  day: string;
  /** The first line, folded. */
  text: string;
}

/** One session's work inside the report's days (a session that crosses midnight counts on each day). */
export interface ReportSession {
  key: string;
  title: string;
  source: SourceId;
  /** The session's page, from the site's root (`/sessions/…/`); prefix the site URL or base. */
  path: string;
  /** First and last day the session was active in the period. */
  day: string;
  lastDay: string;
  /** `HH:mm` of its first and last activity in the period (what it is sorted by). */
  start: string;
  end: string;
  /** When the whole session started and ended (ISO): what is shown, see `sessionSpan`. */
  startedAt: string;
  endedAt: string;
  activeMinutes: number;
  prompts: number;
  promptLines: ReportPrompt[];
  entries: number;
  toolUses: number;
  tools: [string, number][];
  /** Files its tool calls edited in the period (relative to the session's folder when inside), with counts.
   * Empty for sessions collected before edits were recorded. */
  filesEdited: [string, number][];
  pattern: ConversationPattern;
  tokens: TokenUsage;
  gitBranch?: string;
  /** The worktree or clone, when it is not the project's main folder. */
  worktree?: string;
  archived: boolean;
}

export interface ReportProject {
  name: string;
  cwd: string;
  slug: string;
  sessions: ReportSession[];
  /** Whether the site has a page for it (`/projects/<slug>/`): only projects with sessions do. */
  hasPage: boolean;
  totals: ReportTotals;
  /** Prompts of the prompt history whose transcript is gone (counted in totals.prompts). */
  historyOnlyPrompts: ReportPrompt[];
}

export interface DayReport {
  day: string;
  weekday: string;
  timeZone: string;
  totals: ReportTotals;
  projects: ReportProject[];
  prompts: {
    time: string;
    text: string;
    project?: string;
    source: SourceId;
    sessionKey?: string;
    historyOnly: boolean;
  }[];
  toolUses: [string, number][];
  filesEdited: number;
  previous?: string;
  next?: string;
  /** Cost and outcomes, one line each (src/insights/). */
  insights?: string[];
}

export interface PeriodDayRow extends ReportTotals {
  day: string;
  weekday: string;
}

/** A week, a month, or any range of days. */
export interface PeriodReport {
  /** `week` (then `week` is set), `month` (then `month` is set) or `range`. */
  kind: 'week' | 'month' | 'range';
  title: string;
  week?: string;
  month?: string;
  weekStart: WeekStart;
  timeZone: string;
  firstDay: string;
  lastDay: string;
  /** Per-day totals. */
  days: PeriodDayRow[];
  /** Most active first: the top projects. */
  projects: ReportProject[];
  totals: ReportTotals;
  /** The period just before: the week before, the month before, or as many days before a range. */
  previous: { label: string; week?: string; firstDay: string; lastDay: string; totals: ReportTotals };
  toolUses: [string, number][];
  filesEdited: number;
  /** Cost and outcomes, one line each (src/insights/). */
  insights?: string[];
}

/** @deprecated name kept for callers: a week is a PeriodReport with kind `week`. */
export type WeekReport = PeriodReport;

function emptyTotals(): ReportTotals {
  return { sessions: 0, prompts: 0, entries: 0, toolUses: 0, activeMinutes: 0, tokens: emptyTokens() };
}

function sortCounts(byName: Record<string, number>): [string, number][] {
  return Object.entries(byName).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
}

function count(into: Record<string, number>, key: string, by: number): void {
  into[key] = (into[key] ?? 0) + by;
}

export function firstLine(text: string, max = 160): string {
  // Line by line, not split whole: a prompt may be a long paste, and this runs for every one on every build.
  let line = '';
  for (let start = 0; start <= text.length;) {
    const end = text.indexOf('\n', start);
    const candidate = text.slice(start, end === -1 ? text.length : end);
    if (candidate.trim()) {
      line = candidate;
      break;
    }
    if (end === -1) break;
    start = end + 1;
  }
  // Only as much of a long line as can be shown: collapsing spaces in a prefix gives a prefix of the whole
  // collapsed, so a prefix that collapses to more than `max` characters says all there is to say.
  for (let prefix = 2 * max; max >= 1 && prefix < line.length; prefix *= 4) {
    const shown = line.slice(0, prefix).replace(/\s+/g, ' ').trimStart();
    if (shown.trimEnd().length > max) return `${shown.slice(0, max - 1)}…`;
  }
  line = line.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

function relativeTo(cwd: string, file: string): string {
  if (cwd && file.startsWith(`${cwd}/`)) return file.slice(cwd.length + 1);
  return file;
}

/** A session's work on the given days, from its 15-minute slots (exact in any zone). */
export function sessionInPeriod(
  summary: SessionSummary,
  inPeriod: (day: string) => boolean,
  timeZone: string,
): ReportSession | undefined {
  const tools: Record<string, number> = {};
  const files: Record<string, number> = {};
  const tokens = emptyTokens();
  let entries = 0;
  let toolUses = 0;
  let prompts = 0;
  let slots = 0;
  let first: string | undefined;
  let last: string | undefined;
  const days = new Set<string>();
  for (const [slot, activity] of Object.entries(summary.stats.activity)) {
    const day = slotDay(slot, summary.startedAt, timeZone);
    if (!inPeriod(day)) continue;
    const iso = slot === 'unknown' ? summary.startedAt : `${slot}:00.000Z`;
    days.add(day);
    if (slot !== 'unknown') {
      slots += 1;
      if (!first || iso < first) first = iso;
      const end = new Date(Date.parse(iso) + 15 * 60_000 - 1).toISOString();
      if (!last || end > last) last = end;
    }
    entries += activity.entries;
    toolUses += activity.toolUses;
    prompts += activity.prompts;
    addTokens(tokens, activity.tokens);
    for (const [name, n] of Object.entries(activity.toolUsesByName)) count(tools, name, n);
    for (const [file, n] of Object.entries(activity.filesEdited ?? {})) count(files, relativeTo(summary.cwd, file), n);
  }
  if (days.size === 0) {
    // A session with no recorded activity counts on its start day.
    if (!summary.startedAt || !inPeriod(dayOf(summary.startedAt, timeZone))) return undefined;
    days.add(dayOf(summary.startedAt, timeZone));
  }
  // Clamp to the session's real first and last message.
  const startIso = first && summary.startedAt > first ? summary.startedAt : (first ?? summary.startedAt);
  const endIso = last && summary.endedAt && summary.endedAt < last ? summary.endedAt : (last ?? summary.endedAt);
  const sortedDays = [...days].sort();
  const promptLines: ReportSession['promptLines'] = [];
  for (const p of summary.prompts) {
    const day = dayOf(p.timestamp, timeZone);
    if (!inPeriod(day)) continue;
    const text = firstLine(p.text);
    if (text) promptLines.push({ time: timeOf(p.timestamp, timeZone), day, text });
  }
  const project = projectOf(summary);
  const { source, sessionId } = splitSessionKey(summary.id);
  return {
    key: summary.id,
    title: summary.title,
    source: summary.source,
    path: `/${sessionRoute(source, sessionId)}`,
    day: sortedDays[0]!,
    lastDay: sortedDays[sortedDays.length - 1]!,
    start: startIso ? timeOf(startIso, timeZone) : '',
    end: endIso ? timeOf(endIso, timeZone) : '',
    startedAt: summary.startedAt,
    endedAt: summary.endedAt,
    activeMinutes: slots * 15,
    prompts,
    promptLines,
    entries,
    toolUses,
    tools: sortCounts(tools),
    filesEdited: sortCounts(files),
    pattern: summary.stats.pattern,
    tokens,
    ...(summary.gitBranch ? { gitBranch: summary.gitBranch } : {}),
    ...(project.cwd !== summary.cwd ? { worktree: summary.cwd } : {}),
    archived: !summary.sourcePresent,
  };
}

/** The projects of some days: their sessions in detail, and prompts whose transcripts are gone. */
function projectsOf(days: Map<string, DayIndex>, list: string[], timeZone: string): ReportProject[] {
  const inPeriod = new Set(list);
  const projects = new Map<string, ReportProject & { activeSlots: Set<string> }>();
  const project = (slug: string, name: string, cwd: string) => {
    let p = projects.get(slug);
    if (!p) {
      p = {
        name,
        cwd,
        slug,
        sessions: [],
        hasPage: false,
        totals: emptyTotals(),
        historyOnlyPrompts: [],
        activeSlots: new Set(),
      };
      projects.set(slug, p);
    }
    return p;
  };
  const seen = new Set<string>();
  for (const day of list) {
    const index = days.get(day);
    for (const { summary } of index?.sessions ?? []) {
      if (seen.has(summary.id)) continue;
      seen.add(summary.id);
      const session = sessionInPeriod(summary, (d) => inPeriod.has(d), timeZone);
      if (!session) continue;
      const { slug, name, cwd } = projectOf(summary);
      const p = project(slug, name, cwd);
      p.sessions.push(session);
      const t = p.totals;
      t.sessions += 1;
      t.entries += session.entries;
      t.toolUses += session.toolUses;
      t.prompts += session.prompts;
      addTokens(t.tokens, session.tokens);
      for (const slot of Object.keys(summary.stats.activity)) {
        if (slot !== 'unknown' && inPeriod.has(slotDay(slot, summary.startedAt, timeZone))) p.activeSlots.add(slot);
      }
    }
    for (const prompt of index?.prompts ?? []) {
      if (!prompt.historyOnly || !prompt.project) continue;
      const { slug, name, cwd } = projectOf({ cwd: prompt.project });
      const p = project(slug, name, cwd);
      p.historyOnlyPrompts.push({
        time: timeOf(prompt.timestamp, timeZone),
        day: dayOf(prompt.timestamp, timeZone),
        text: firstLine(prompt.text),
      });
      p.totals.prompts += 1;
    }
  }
  return [...projects.values()]
    .map(({ activeSlots, ...p }) => {
      p.totals.activeMinutes = activeSlots.size * 15;
      p.hasPage = p.sessions.length > 0;
      p.sessions.sort((a, b) => `${a.day} ${a.start}`.localeCompare(`${b.day} ${b.start}`));
      return p;
    })
    .sort(
      (a, b) =>
        b.totals.activeMinutes - a.totals.activeMinutes ||
        b.totals.entries - a.totals.entries ||
        b.totals.prompts - a.totals.prompts ||
        a.name.localeCompare(b.name),
    );
}

function dayTotals(day: DayIndex | undefined): ReportTotals {
  if (!day) return emptyTotals();
  return {
    sessions: day.sessions.length,
    prompts: day.prompts.length,
    entries: day.totals.entries,
    toolUses: day.totals.toolUses,
    activeMinutes: day.activeMinutes,
    tokens: { ...day.totals.tokens },
  };
}

function countFiles(projects: ReportProject[]): number {
  const files = new Set<string>();
  for (const p of projects)
    for (const s of p.sessions) for (const [f] of s.filesEdited) files.add(`${s.worktree ?? p.cwd}\u0000${f}`);
  return files.size;
}

export function dayReport(days: Map<string, DayIndex>, day: string, timeZone: string): DayReport {
  const index = days.get(day);
  const keys = [...days.keys()];
  const at = keys.indexOf(day);
  const projects = projectsOf(days, [day], timeZone);
  return {
    day,
    weekday: weekdayName(day),
    timeZone,
    totals: dayTotals(index),
    projects,
    prompts: (index?.prompts ?? []).map((p) => ({
      time: timeOf(p.timestamp, timeZone),
      text: p.text,
      project: p.project ? projectOf({ cwd: p.project }).name : undefined,
      source: p.source,
      sessionKey: p.sessionKey,
      historyOnly: p.historyOnly,
    })),
    toolUses: sortCounts(index?.totals.toolUsesByName ?? {}),
    filesEdited: countFiles(projects),
    previous: at > 0 ? keys[at - 1] : undefined,
    next: at >= 0 && at < keys.length - 1 ? keys[at + 1] : undefined,
    insights: insightLines(days, [day], timeZone),
  };
}

function rangeTotals(days: Map<string, DayIndex>, list: string[]): ReportTotals {
  const totals = emptyTotals();
  const sessions = new Set<string>();
  for (const day of list) {
    const t = dayTotals(days.get(day));
    totals.prompts += t.prompts;
    totals.entries += t.entries;
    totals.toolUses += t.toolUses;
    totals.activeMinutes += t.activeMinutes;
    addTokens(totals.tokens, t.tokens);
    for (const s of days.get(day)?.sessions ?? []) sessions.add(s.summary.id);
  }
  totals.sessions = sessions.size;
  return totals;
}

/** The days from `first` to `last`, inclusive. */
export function daysBetween(first: string, last: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${first}T12:00:00Z`); t <= Date.parse(`${last}T12:00:00Z`); t += 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

function periodReport(
  days: Map<string, DayIndex>,
  list: string[],
  timeZone: string,
  weekStart: WeekStart,
  head: Pick<PeriodReport, 'kind' | 'title' | 'week' | 'month'>,
  previous: { label: string; week?: string; days: string[] },
): PeriodReport {
  const tools: Record<string, number> = {};
  for (const day of list) {
    for (const [name, n] of Object.entries(days.get(day)?.totals.toolUsesByName ?? {})) count(tools, name, n);
  }
  const projects = projectsOf(days, list, timeZone);
  return {
    ...head,
    weekStart,
    timeZone,
    firstDay: list[0]!,
    lastDay: list[list.length - 1]!,
    days: list.map((day) => ({ day, weekday: weekdayName(day), ...dayTotals(days.get(day)) })),
    projects,
    totals: rangeTotals(days, list),
    previous: {
      label: previous.label,
      ...(previous.week ? { week: previous.week } : {}),
      firstDay: previous.days[0]!,
      lastDay: previous.days[previous.days.length - 1]!,
      totals: rangeTotals(days, previous.days),
    },
    toolUses: sortCounts(tools),
    filesEdited: countFiles(projects),
    insights: insightLines(days, list, timeZone),
  };
}

export function weekReport(
  days: Map<string, DayIndex>,
  week: string,
  timeZone: string,
  weekStart: WeekStart,
): PeriodReport {
  const list = weekDays(week, weekStart);
  const previous = previousWeek(week, weekStart);
  return periodReport(
    days,
    list,
    timeZone,
    weekStart,
    { kind: 'week', week, title: `Week ${week} (${list[0]} – ${list[6]})` },
    { label: previous, week: previous, days: weekDays(previous, weekStart) },
  );
}

/** A month (`month` given: compared with the month before, whatever its length) or any range of days
 * (compared with as many days just before). */
export function rangeReport(
  days: Map<string, DayIndex>,
  first: string,
  last: string,
  timeZone: string,
  weekStart: WeekStart,
  month?: string,
): PeriodReport {
  const list = daysBetween(first, last);
  if (month) {
    const before = previousMonth(month);
    const range = monthRange(before);
    return periodReport(
      days,
      list,
      timeZone,
      weekStart,
      { kind: 'month', month, title: `${monthName(month)} (${first} – ${last})` },
      { label: monthName(before), days: daysBetween(range.first, range.last) },
    );
  }
  const dayMs = 86_400_000;
  const before = daysBetween(
    new Date(Date.parse(`${first}T12:00:00Z`) - list.length * dayMs).toISOString().slice(0, 10),
    new Date(Date.parse(`${first}T12:00:00Z`) - dayMs).toISOString().slice(0, 10),
  );
  return periodReport(
    days,
    list,
    timeZone,
    weekStart,
    { kind: 'range', title: `${first} – ${last}` },
    { label: `${before[0]} – ${before[before.length - 1]}`, days: before },
  );
}

/** Every week that has at least one active day, oldest first. */
export function weeksWithActivity(days: Map<string, DayIndex>, weekOfDay: (day: string) => string): string[] {
  return [...new Set([...days.keys()].map(weekOfDay))].sort();
}
