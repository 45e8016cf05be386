import { MAIN_THREAD } from './body.ts';
import { projectSlug } from './project.ts';
import type { Session, SessionSummary } from './session.ts';
import { SessionAccumulator, type SessionTotals } from './session-accumulator.ts';

/** The small record the site indexes, with the per-session statistics, for one normalized session. */
export function summarize(session: Session, body: string, collectedAt: string): SessionSummary {
  const acc = new SessionAccumulator();
  for (const m of session.messages) acc.message(MAIN_THREAD, m);
  for (const s of session.subagents) for (const m of s.messages) acc.message(s.agentId, m);
  return summaryOf(session, acc.result(session.subagents.map((s) => s.agentId)), body, collectedAt);
}

/** The summary of a session header (messages not in memory) and its accumulated totals. */
export function summaryOf(session: Session, totals: SessionTotals, body: string, collectedAt: string): SessionSummary {
  return {
    id: `${session.source}/${session.sessionId}`,
    source: session.source,
    sessionId: session.sessionId,
    title: session.title,
    cwd: session.cwd,
    project: projectSlug(session.cwd),
    ...(session.gitBranch ? { gitBranch: session.gitBranch } : {}),
    startedAt: session.startedAt,
    endedAt: session.endedAt,
    models: session.models,
    ...(session.cliVersion ? { cliVersion: session.cliVersion } : {}),
    files: session.files,
    sourcePresent: true,
    collectedAt,
    subagents: session.subagents.length,
    stats: totals.stats,
    prompts: totals.prompts,
    body,
    ...(totals.activeMs > 0 ? { activeMs: totals.activeMs } : {}),
    ...(totals.pageStarts.length > 1 ? { pageStarts: totals.pageStarts } : {}),
    ...(totals.pageStarts.length > 1 && totals.pagePrompts?.length === totals.pageStarts.length
      ? { pagePrompts: totals.pagePrompts }
      : {}),
  };
}
