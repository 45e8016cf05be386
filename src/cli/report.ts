import { DataDir } from '../collect/data-dir.ts';
import { SOURCE_IDS } from '../model/message.ts';
import { dayMarkdown, weekMarkdown } from '../report/markdown.ts';
import { dayReport, weekReport } from '../report/reports.ts';
import type { WeekStart } from '../stats/calendar.ts';
import { buildDayIndexes } from '../stats/indexes.ts';

export interface ReportRequest {
  dataDir: string;
  timeZone: string;
  weekStart: WeekStart;
  day?: string;
  week?: string;
  format: 'md' | 'json';
  siteUrl?: string;
}

/** The same report the site serves at /days/<day>.md or /weeks/<week>.md, from the data directory. */
export async function printReport(request: ReportRequest): Promise<string> {
  const data = new DataDir(request.dataDir);
  const summaries = await data.readSummaries();
  const history = (await Promise.all(SOURCE_IDS.map((s) => data.readPrompts(s)))).flat();
  const days = buildDayIndexes(summaries, history, request.timeZone);
  const linkBase = request.siteUrl?.replace(/\/+$/, '');
  if (request.day) {
    const report = dayReport(days, request.day, request.timeZone);
    return request.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : dayMarkdown(report, { linkBase });
  }
  const report = weekReport(days, request.week!, request.timeZone, request.weekStart);
  return request.format === 'json' ? `${JSON.stringify(report, null, 2)}\n` : weekMarkdown(report, { linkBase });
}
