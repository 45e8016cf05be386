import { tz } from '@date-fns/tz';
import { format } from 'date-fns';
import { splitSessionKey } from '../model/ids.ts';
import { sessionRoute } from '../model/routes.ts';
import type { TokenUsage } from '../model/message.ts';

export { PATTERN_LABELS, SOURCE_LABELS } from '../model/labels.ts';

import { formatNumber } from '../util/format.ts';

export { changeLabel, compactNumber, countLabel, formatNumber, minutesLabel } from '../util/format.ts';

export { totalTokens } from '../stats/session-stats.ts';

export function tokenTitle(t: TokenUsage): string {
  return `input ${formatNumber(t.input)} · output ${formatNumber(t.output)} · cache read ${formatNumber(t.cacheRead)} · cache write ${formatNumber(t.cacheCreation)}`;
}

export function formatInZone(iso: string, pattern: string, timeZone: string): string {
  if (!iso) return '';
  // Every message's time is shown: the common patterns go through the calendar's once-a-minute cache.
  if (pattern === 'HH:mm') return timeOf(iso, timeZone);
  if (pattern === 'yyyy-MM-dd') return dayOf(iso, timeZone);
  if (pattern === 'yyyy-MM-dd HH:mm') return `${dayOf(iso, timeZone)} ${timeOf(iso, timeZone)}`;
  if (pattern === 'yyyy-MM-dd HH:mm:ss xxx') return zonedSecond(iso, timeZone);
  return format(new Date(iso), pattern, { in: tz(timeZone) });
}

/** A message's time for a `datetime` attribute, to the second: the page shows no finer, and a thread writes one
 * for each message. */
export function datetimeToSecond(iso: string): string {
  return iso.replace(/(T\d\d:\d\d:\d\d)\.\d+(?=Z$|[+-]\d\d:?\d\d$)/, '$1');
}

export { weekdayName as weekdayOf } from '../stats/calendar.ts';
import { dayOf, timeOf, zonedSecond } from '../stats/calendar.ts';
import { basePathOf } from '../model/site-url.ts';

/** The site's base path without its trailing slash (`/logbook` or ``): from the site URL the CLI passed (read
 * at render time, so several builds in one process each get their own), else Astro's `base`. */
export function basePath(): string {
  const siteUrl = process.env.AGENT_LOGBOOK_SITE_URL;
  return siteUrl ? basePathOf(siteUrl) : import.meta.env.BASE_URL.replace(/\/+$/, '');
}

/** Links inside the site, respecting the site's base path. */
export function href(path: string): string {
  return `${basePath()}${path}`;
}

/** Where links in a report's Markdown point: the site's URL when known (absolute links that work pasted
 * anywhere), else the base path. */
export function markdownLinkBase(siteUrl: string | undefined): string {
  return siteUrl ? siteUrl.replace(/\/+$/, '') : basePath();
}

/** The URL path of a session (`<source>/<id>`, the summary's id), or of one of its pages, under the site. */
export function sessionHref(sessionKey: string, page = 1, anchor?: string): string {
  const { source, sessionId } = splitSessionKey(sessionKey);
  return href(`/${sessionRoute(source, sessionId, page)}${anchor ? `#${anchor}` : ''}`);
}

export function duration(fromIso: string, toIso: string): string {
  const ms = Date.parse(toIso) - Date.parse(fromIso);
  if (!Number.isFinite(ms) || ms < 0) return '';
  const minutes = Math.round(ms / 60_000);
  if (minutes < 1) return '<1 min';
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min`;
}

/** The day whose Markdown pack holds a session's export (see site/build/markdown-packs.ts): the day it started. */
export function markdownPackDay(startedAt: string, timeZone: string): string {
  return startedAt ? formatInZone(startedAt, 'yyyy-MM-dd', timeZone) : 'undated';
}
