import type { SessionSummary } from '../model/session.ts';
import { projectName } from '../model/project.ts';
import type { DayIndex } from '../stats/indexes.ts';
import { daysCost, describeCost } from './cost.ts';
import { commitsOnDays, gitOutcomes } from './git.ts';

/** The sessions active on any of these days, once each. */
export function sessionsOfDays(days: Map<string, DayIndex>, list: readonly string[]): SessionSummary[] {
  const byId = new Map<string, SessionSummary>();
  for (const day of list) for (const { summary } of days.get(day)?.sessions ?? []) byId.set(summary.id, summary);
  return [...byId.values()];
}

/** Lines a day or week report adds under its totals: the cost estimate (and what it leaves out), and the
 * user's commits in the sessions' git repositories on those days. */
export function insightLines(days: Map<string, DayIndex>, list: readonly string[], timeZone: string): string[] {
  const sessions = sessionsOfDays(days, list);
  const lines: string[] = [];
  const cost = describeCost(daysCost(sessions, new Set(list), timeZone));
  if (cost !== 'no tokens') lines.push(`Cost: ${cost}`);
  const outcomes = gitOutcomes(sessions);
  if (outcomes.repoOf.size > 0) {
    const commits = commitsOnDays(outcomes, sessions, new Set(list), timeZone);
    const byRepo = new Map<string, number>();
    for (const c of commits) byRepo.set(c.repo, (byRepo.get(c.repo) ?? 0) + 1);
    const repos = [...byRepo].map(([repo, n]) => `${projectName(repo)} ${n}`).join(', ');
    lines.push(`Commits: ${commits.length}${repos ? ` (${repos})` : ''}`);
  }
  return lines;
}
