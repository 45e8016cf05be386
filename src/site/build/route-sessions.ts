import type { SessionSummary } from '../../model/session.ts';
import type { RouteToRender } from './render-page.ts';

// Which sessions a route reads: what its key holds of the archive and of the sessions' repositories.

/** The session summaries a route's props hold (a session's own, a day's, a week's days', a project's), in the
 * order they are met. The objects routes share (a day's index is in its page's, its Markdown's and two weeks'
 * props; a day holds thousands of prompts) are walked once, their summaries kept in `walked`. */
export function summariesIn(props: Record<string, unknown>, walked: Map<object, SessionSummary[]>): SessionSummary[] {
  const found = new Set<SessionSummary>();
  for (const value of Object.values(props)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item !== 'object' || item === null) continue;
      let held = walked.get(item);
      if (!held) walked.set(item, (held = summariesUnder(item)));
      for (const summary of held) found.add(summary);
    }
  }
  return [...found];
}

function summariesUnder(root: object): SessionSummary[] {
  const found = new Set<SessionSummary>();
  const seen = new Set<object>();
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    if (isSummary(value)) found.add(value);
    else for (const item of Array.isArray(value) ? value : Object.values(value)) visit(item);
  };
  visit(root);
  return [...found];
}

function isSummary(value: object): value is SessionSummary {
  const v = value as Partial<Record<keyof SessionSummary, unknown>>;
  return (
    typeof v.id === 'string' &&
    typeof v.body === 'string' &&
    typeof v.cwd === 'string' &&
    typeof v.startedAt === 'string' &&
    typeof v.endedAt === 'string' &&
    typeof v.stats === 'object'
  );
}

/** The session a route is made from, when its props are exactly a summary and perhaps a page number (a page
 * of the session, or its Markdown). */
export function sessionOf(route: RouteToRender): SessionSummary | undefined {
  const { summary, page, ...rest } = route.props as { summary?: SessionSummary; page?: unknown };
  if (Object.keys(rest).length > 0 || (page !== undefined && typeof page !== 'number')) return undefined;
  return summary && typeof summary.body === 'string' && typeof summary.id === 'string' ? summary : undefined;
}
