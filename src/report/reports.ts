import { insightLines } from '../insights/report-lines.ts';
import type { SourceId, TokenUsage } from '../model/message.ts';
import { projectName, projectSlug } from '../model/project.ts';
import type { ConversationPattern } from '../model/session.ts';
import { previousWeek, timeOf, weekDays, weekdayName, type WeekStart } from '../stats/calendar.ts';
import type { DayIndex } from '../stats/indexes.ts';
import { addTokens, emptyTokens } from '../stats/session-stats.ts';

/** Day and week reports: one model each, rendered as pages, as Markdown and as JSON. */

export interface ReportTotals {
  sessions: number;
  prompts: number;
  entries: number;
  toolUses: number;
  activeMinutes: number;
  tokens: TokenUsage;
}

export interface ReportSession {
  key: string;
  title: string;
  source: SourceId;
  start: string;
  end: string;
  prompts: number;
  entries: number;
  toolUses: number;
  pattern: ConversationPattern;
  tokens: TokenUsage;
  archived: boolean;
}

export interface ReportProject {
  name: string;
  cwd: string;
  slug: string;
  sessions: ReportSession[];
  prompts: number;
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
  previous?: string;
  next?: string;
  /** Cost and outcomes, one line each (src/insights/). */
  insights?: string[];
}

export interface WeekDayRow extends ReportTotals {
  day: string;
  weekday: string;
}

export interface WeekProjectRow extends Omit<ReportTotals, 'activeMinutes'> {
  name: string;
  cwd: string;
  slug: string;
}

export interface WeekReport {
  week: string;
  weekStart: WeekStart;
  timeZone: string;
  firstDay: string;
  lastDay: string;
  days: WeekDayRow[];
  projects: WeekProjectRow[];
  totals: ReportTotals;
  previous: { week: string; totals: ReportTotals };
  toolUses: [string, number][];
  /** Cost and outcomes, one line each (src/insights/). */
  insights?: string[];
}

function emptyTotals(): ReportTotals {
  return { sessions: 0, prompts: 0, entries: 0, toolUses: 0, activeMinutes: 0, tokens: emptyTokens() };
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

function sortTools(byName: Record<string, number>): [string, number][] {
  return Object.entries(byName).sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
}

export function dayReport(days: Map<string, DayIndex>, day: string, timeZone: string): DayReport {
  const index = days.get(day);
  const keys = [...days.keys()];
  const at = keys.indexOf(day);
  const projects = new Map<string, ReportProject>();
  const project = (cwd: string): ReportProject => {
    const slug = projectSlug(cwd);
    let p = projects.get(slug);
    if (!p) projects.set(slug, (p = { name: projectName(cwd), cwd, slug, sessions: [], prompts: 0 }));
    return p;
  };
  for (const { summary, counts } of index?.sessions ?? []) {
    project(summary.cwd).sessions.push({
      key: summary.id,
      title: summary.title,
      source: summary.source,
      start: timeOf(summary.startedAt, timeZone),
      end: timeOf(summary.endedAt, timeZone),
      prompts: counts.prompts,
      entries: counts.entries,
      toolUses: counts.toolUses,
      pattern: summary.stats.pattern,
      tokens: counts.tokens,
      archived: !summary.sourcePresent,
    });
  }
  for (const p of index?.prompts ?? []) if (p.project) project(p.project).prompts += 1;
  return {
    day,
    weekday: weekdayName(day),
    timeZone,
    totals: dayTotals(index),
    projects: [...projects.values()].sort((a, b) => b.sessions.length - a.sessions.length || b.prompts - a.prompts),
    prompts: (index?.prompts ?? []).map((p) => ({
      time: timeOf(p.timestamp, timeZone),
      text: p.text,
      project: p.project ? projectName(p.project) : undefined,
      source: p.source,
      sessionKey: p.sessionKey,
      historyOnly: p.historyOnly,
    })),
    toolUses: sortTools(index?.totals.toolUsesByName ?? {}),
    previous: at > 0 ? keys[at - 1] : undefined,
    next: at >= 0 && at < keys.length - 1 ? keys[at + 1] : undefined,
    insights: insightLines(days, [day], timeZone),
  };
}

function weekTotals(days: Map<string, DayIndex>, list: string[]): ReportTotals {
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

export function weekReport(
  days: Map<string, DayIndex>,
  week: string,
  timeZone: string,
  weekStart: WeekStart,
): WeekReport {
  const list = weekDays(week, weekStart);
  const projects = new Map<string, WeekProjectRow & { ids: Set<string> }>();
  const tools: Record<string, number> = {};
  for (const day of list) {
    const index = days.get(day);
    for (const { summary, counts } of index?.sessions ?? []) {
      const slug = projectSlug(summary.cwd);
      let row = projects.get(slug);
      if (!row) {
        row = {
          name: projectName(summary.cwd),
          cwd: summary.cwd,
          slug,
          sessions: 0,
          prompts: 0,
          entries: 0,
          toolUses: 0,
          tokens: emptyTokens(),
          ids: new Set(),
        };
        projects.set(slug, row);
      }
      row.ids.add(summary.id);
      row.entries += counts.entries;
      row.toolUses += counts.toolUses;
      row.prompts += counts.prompts;
      addTokens(row.tokens, counts.tokens);
    }
    for (const [name, n] of Object.entries(index?.totals.toolUsesByName ?? {})) tools[name] = (tools[name] ?? 0) + n;
  }
  const previous = previousWeek(week, weekStart);
  return {
    week,
    weekStart,
    timeZone,
    firstDay: list[0]!,
    lastDay: list[6]!,
    days: list.map((day) => ({ day, weekday: weekdayName(day), ...dayTotals(days.get(day)) })),
    projects: [...projects.values()]
      .map(({ ids, ...row }) => ({ ...row, sessions: ids.size }))
      .sort((a, b) => b.entries - a.entries || a.name.localeCompare(b.name)),
    totals: weekTotals(days, list),
    previous: { week: previous, totals: weekTotals(days, weekDays(previous, weekStart)) },
    toolUses: sortTools(tools),
    insights: insightLines(days, list, timeZone),
  };
}

/** Every week that has at least one active day, oldest first. */
export function weeksWithActivity(days: Map<string, DayIndex>, weekOfDay: (day: string) => string): string[] {
  return [...new Set([...days.keys()].map(weekOfDay))].sort();
}
