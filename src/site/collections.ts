import { getCollection } from 'astro:content';
import type { HistoryPrompt, SessionSummary } from '../model/session.ts';
import { computeStats, type StatsJson } from '../stats/aggregate.ts';
import { previousWeek, weekDays, weekOf, type WeekStart } from '../stats/calendar.ts';
import { buildDayIndexes, buildProjectIndexes, type DayIndex, type ProjectIndex } from '../stats/indexes.ts';
import { repositoryStamp } from '../insights/git.ts';
import { insightLines, sessionsOfDays } from '../insights/report-lines.ts';
import { type DayReport, dayReport, type PeriodReport, weekReport, weeksWithActivity } from '../report/reports.ts';
import { dataDir, hasHistoryPrompts, hasSummaries, indexStamp, siteOptions } from './data.ts';

/** The site-wide indexes, computed once per build from the content collections. */
export interface SiteIndexes {
  timeZone: string;
  weekStart: WeekStart;
  sessions: SessionSummary[];
  days: Map<string, DayIndex>;
  weeks: string[];
  projects: Map<string, ProjectIndex>;
  stats: StatsJson;
}

// Keyed by the build's inputs: Node keeps a bundled module loaded across builds in one process.
let cached: { key: string; value: Promise<SiteIndexes> } | undefined;

export function siteIndexes(): Promise<SiteIndexes> {
  const key = JSON.stringify([dataDir(), siteOptions(), process.env.AGENT_LOGBOOK_SHARE ?? '', indexStamp()]);
  if (cached?.key === key) return cached.value;
  const value = (async () => {
    const { timeZone, weekStart, since, until } = siteOptions();
    // Astro warns about every empty collection it is asked for; an empty archive is normal, not a mistake.
    const allSessions = hasSummaries()
      ? (await getCollection('sessions')).map((e) => e.data as unknown as SessionSummary)
      : [];
    const history = hasHistoryPrompts()
      ? (await getCollection('prompts')).map((e) => e.data as unknown as HistoryPrompt)
      : [];
    const inRange = (day: string) => (!since || day >= since) && (!until || day <= until);
    // --since/--until: only days in range are built, and only the sessions active on them.
    const days = new Map([...buildDayIndexes(allSessions, history, timeZone)].filter(([day]) => inRange(day)));
    const keep = new Set([...days.values()].flatMap((d) => d.sessions.map((s) => s.summary.id)));
    const sessions = allSessions.filter((s) => keep.has(s.id));
    return {
      timeZone,
      weekStart,
      sessions,
      days,
      weeks: weeksWithActivity(days, (day) => weekOf(day, weekStart)),
      projects: buildProjectIndexes(sessions),
      stats: computeStats(sessions, days, timeZone),
    };
  })();
  cached = { key, value };
  return value;
}

/** Each week's report, made once per build for the week's page and its Markdown. Its commits are read from
 * the sessions' repositories: it is made again when one of them changed (the archive's index may not have). */
const weekReports = new WeakMap<SiteIndexes, Map<string, PeriodReport>>();
export async function siteWeekReport(week: string): Promise<PeriodReport> {
  const indexes = await siteIndexes();
  let reports = weekReports.get(indexes);
  if (!reports) weekReports.set(indexes, (reports = new Map()));
  const key = JSON.stringify([week, repositoriesOf(sessionsOfDays(indexes.days, weekDays(week, indexes.weekStart)))]);
  let report = reports.get(key);
  if (!report) reports.set(key, (report = weekReport(indexes.days, week, indexes.timeZone, indexes.weekStart)));
  return report;
}

/** Each day's report, for the day's page and its Markdown, which the build renders one after the other (see
 * indexBatches in build/build.ts): only the last few are kept, as a history has hundreds of days. Keyed by its
 * repositories' state too, as a week's report is: its insights count the commits. */
const dayReports = new WeakMap<SiteIndexes, Map<string, DayReport>>();
const DAY_REPORTS_KEPT = 4;
export async function siteDayReport(day: string): Promise<DayReport> {
  const indexes = await siteIndexes();
  let reports = dayReports.get(indexes);
  if (!reports) dayReports.set(indexes, (reports = new Map()));
  const key = JSON.stringify([day, repositoriesOf(sessionsOfDays(indexes.days, [day]))]);
  let report = reports.get(key);
  if (!report) {
    report = dayReport(indexes.days, day, indexes.timeZone);
    reports.set(key, report);
    if (reports.size > DAY_REPORTS_KEPT) reports.delete(reports.keys().next().value!);
  }
  return report;
}

function repositoriesOf(sessions: readonly SessionSummary[]): string[] {
  return [...new Set(sessions.map((s) => s.cwd))].map(repositoryStamp).sort();
}

/** What a day's page and its Markdown are made from. */
export type DayRouteProps = {
  day: DayIndex;
  prev?: string;
  next?: string;
  /** The day's insight lines, which read git repositories on disk: in the props so that the site build, which
   * keys a page by its props, makes the page again when a commit changes them. */
  insights: string[];
};

/**
 * The routes of the day pages and of their Markdown: a day's report is made when the page is rendered, from
 * the day's index (its sessions and prompts) and its neighbours, which are its props. Making every day's
 * report here instead, for the props alone, cost most of a rebuild after one change.
 */
export async function dayRoutes(): Promise<{ params: { day: string }; props: DayRouteProps }[]> {
  const { days, timeZone } = await siteIndexes();
  const list = [...days.values()];
  return list.map((day, i) => ({
    params: { day: day.day },
    props: { day, prev: list[i - 1]?.day, next: list[i + 1]?.day, insights: insightLines(days, [day.day], timeZone) },
  }));
}

/** What a week's page and its Markdown are made from: the indexes of its days and of the week before's, which
 * its report compares with (see dayRoutes). */
export type WeekRouteProps = {
  week: string;
  days: DayIndex[];
  prev?: string;
  next?: string;
  insights: string[];
};

export async function weekRoutes(): Promise<{ params: { week: string }; props: WeekRouteProps }[]> {
  const { days, weeks, timeZone, weekStart } = await siteIndexes();
  return weeks.map((week, i) => {
    const own = weekDays(week, weekStart);
    const inputs = [...weekDays(previousWeek(week, weekStart), weekStart), ...own];
    return {
      params: { week },
      props: {
        week,
        days: inputs.flatMap((day) => days.get(day) ?? []),
        prev: weeks[i - 1],
        next: weeks[i + 1],
        insights: insightLines(days, own, timeZone),
      },
    };
  });
}
