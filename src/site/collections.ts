import { getCollection } from 'astro:content';
import type { HistoryPrompt, SessionSummary } from '../model/session.ts';
import { buildDayIndexes, buildProjectIndexes, type DayIndex, type ProjectIndex } from './indexes.ts';
import { siteTimeZone } from './data.ts';

/** The site-wide indexes, computed once per build from the content collections. */
export interface SiteIndexes {
  timeZone: string;
  sessions: SessionSummary[];
  days: Map<string, DayIndex>;
  projects: Map<string, ProjectIndex>;
}

let cached: Promise<SiteIndexes> | undefined;

export function siteIndexes(): Promise<SiteIndexes> {
  cached ??= (async () => {
    const timeZone = siteTimeZone();
    const sessions = (await getCollection('sessions')).map((e) => e.data as unknown as SessionSummary);
    const history = (await getCollection('prompts')).map((e) => e.data as unknown as HistoryPrompt);
    return {
      timeZone,
      sessions,
      days: buildDayIndexes(sessions, history, timeZone),
      projects: buildProjectIndexes(sessions),
    };
  })();
  return cached;
}
