import { DataDir } from '../archive/data-dir.ts';
import { cachedProbe } from '../insights/repository.ts';
import { SOURCE_IDS } from '../model/message.ts';
import { groupProjects } from '../model/project.ts';
import { dayMarkdown, periodMarkdown } from '../report/markdown.ts';
import type { Period } from '../report/period.ts';
import { dayReport, rangeReport, weekReport } from '../report/reports.ts';
import type { WeekStart } from '../stats/calendar.ts';
import { buildDayIndexes } from '../stats/indexes.ts';

export interface ReportRequest {
  dataDir: string;
  timeZone: string;
  weekStart: WeekStart;
  period: Period;
  format: 'md' | 'json';
  /** `https://host/path/` (absolute links) or `/path/` (root-relative); no links when absent. */
  siteUrl?: string;
}

/** The same report the site serves at /days/<day>.md or /weeks/<week>.md, from the data directory. */
export async function printReport(request: ReportRequest): Promise<string> {
  const data = new DataDir(request.dataDir);
  const summaries = groupProjects(await data.readSummaries(), cachedProbe());
  const history = (await Promise.all(SOURCE_IDS.map((s) => data.readPrompts(s)))).flat();
  const days = buildDayIndexes(summaries, history, request.timeZone);
  const linkBase = request.siteUrl?.replace(/\/+$/, '');
  const { period, timeZone, weekStart } = request;
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  if (period.kind === 'day') {
    const report = dayReport(days, period.day, timeZone);
    return request.format === 'json' ? json(report) : dayMarkdown(report, { linkBase });
  }
  const report =
    period.kind === 'week'
      ? weekReport(days, period.week, timeZone, weekStart)
      : rangeReport(days, period.first, period.last, timeZone, weekStart, period.month);
  return request.format === 'json' ? json(report) : periodMarkdown(report, { linkBase });
}
