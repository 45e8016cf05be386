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

/** Each week's and each day's report, made once for the page and its Markdown, which the build renders one after
 * the other (see indexBatches in build/build.ts): only the last few are kept, as a history has hundreds of days.
 * Keyed by the state of the sessions' repositories too: the insights count the commits, read from the repositories,
 * and a process that builds again (`serve --watch`) keeps its indexes while the archive is unchanged. */
const weekReports = new WeakMap<SiteIndexes, Map<string, PeriodReport>>();
const dayReports = new WeakMap<SiteIndexes, Map<string, DayReport>>();
const REPORTS_KEPT = 4;

export async function siteWeekReport(week: string): Promise<PeriodReport> {
  const indexes = await siteIndexes();
  const days = weekDays(week, indexes.weekStart);
  return keptReport(weekReports, indexes, week, days, () =>
    weekReport(indexes.days, week, indexes.timeZone, indexes.weekStart),
  );
}

export async function siteDayReport(day: string): Promise<DayReport> {
  const indexes = await siteIndexes();
  return keptReport(dayReports, indexes, day, [day], () => dayReport(indexes.days, day, indexes.timeZone));
}

function keptReport<T>(
  kept: WeakMap<SiteIndexes, Map<string, T>>,
  indexes: SiteIndexes,
  period: string,
  days: readonly string[],
  make: () => T,
): T {
  let reports = kept.get(indexes);
  if (!reports) kept.set(indexes, (reports = new Map()));
  const cwds = new Set(sessionsOfDays(indexes.days, days).map((s) => s.cwd));
  const key = JSON.stringify([period, [...cwds].map(repositoryStamp).sort()]);
  let report = reports.get(key);
  if (report === undefined) {
    reports.set(key, (report = make()));
    if (reports.size > REPORTS_KEPT) reports.delete(reports.keys().next().value!);
  }
  return report;
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
