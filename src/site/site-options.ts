import type { WeekStart } from '../stats/calendar.ts';

/** The site's only input: the data directory the CLI points it at. Unset (as under `astro check`),
 * the site is empty. */
export function dataDir(): string | undefined {
  return process.env.AGENT_LOGBOOK_DATA || undefined;
}

export interface SiteOptions {
  timeZone: string;
  weekStart: WeekStart;
  since?: string;
  until?: string;
  /** `https://host/path/` or `/path/` when the build was told where the site is published. */
  siteUrl?: string;
}

/** Build options the CLI passes through the environment (see src/cli/build-site.ts). */
export function siteOptions(): SiteOptions {
  const env = process.env;
  return {
    timeZone: env.AGENT_LOGBOOK_TZ || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    weekStart: env.AGENT_LOGBOOK_WEEK_START === 'sunday' ? 'sunday' : 'monday',
    since: env.AGENT_LOGBOOK_SINCE || undefined,
    until: env.AGENT_LOGBOOK_UNTIL || undefined,
    siteUrl: env.AGENT_LOGBOOK_SITE_URL || undefined,
  };
}
