import { idToPathSegment } from './ids.ts';

/**
 * Site routes made from ids, without the site's base: the one place that says where a session's pages are,
 * for the pages, the reports' Markdown, search results and the MCP server alike.
 * Page 1 of a session is `sessions/<source>/<segment>/`, page N is `…/page/N/`.
 */
export function sessionRoute(source: string, sessionId: string, page = 1): string {
  return `sessions/${source}/${idToPathSegment(sessionId)}/${page === 1 ? '' : `page/${page}/`}`;
}

/** The 1-based page of a session that holds main-thread message `index` (pageStarts as in SessionSummary). */
export function pageOfMessage(pageStarts: readonly number[] | undefined, index: number): number {
  const starts = pageStarts ?? [0];
  // The last start at or before `index`, by bisection: a huge session has thousands of pages.
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid]! <= index) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

/** Anchors inside a session page: `p<N>` for the N-th real prompt (1-based), `m<I>` for main-thread message I
 * (0-based, the index pageStarts counts in). */
export const promptAnchor = (ordinal: number): string => `p${ordinal}`;
export const messageAnchor = (index: number): string => `m${index}`;

/** A session's Markdown export as the renderer makes it: a gzip member of its day's pack, not a file of the site
 * (see site/build/markdown-packs.ts). */
export function markdownMemberRoute(source: string, sessionId: string): string {
  return `sessions/${markdownMemberName(source, sessionId)}.md.gz`;
}

/** A session's name in its day pack's index, which its page's script looks up: `<source>/<id segment>`. */
export function markdownMemberName(source: string, sessionId: string): string {
  return `${source}/${idToPathSegment(sessionId)}`;
}

/** The Markdown of the sessions that started on `day` (the site's zone), one gzip member each, in parts (the
 * first, then `.2`, `.3`, … for a day past a static host's file size), and its index. */
export const markdownPackRoute = (day: string, part = 1): string =>
  `days/${day}.sessions${part === 1 ? '' : `.${part}`}.md.gz`;
export const markdownPackIndexRoute = (day: string): string => `days/${day}.sessions.json`;
