import { pageStarts } from '../model/paging.ts';
import { projectSlug } from '../model/project.ts';
import type { PromptRef, Session, SessionSummary } from '../model/session.ts';
import { sessionStats } from '../stats/session-stats.ts';

const PROMPT_PREVIEW = 500;

/** The small record the site indexes, with the per-session statistics, for one normalized session. */
export function summarize(session: Session, body: string, collectedAt: string): SessionSummary {
  const prompts: PromptRef[] = session.messages
    .filter((m) => m.metadata?.kind === 'prompt')
    .map((m) => {
      const text = m.segments
        .filter((s) => s.type === 'text')
        .map((s) => s.text ?? '')
        .join('\n')
        .trim();
      return {
        timestamp: m.timestamp,
        text: text.length > PROMPT_PREVIEW ? `${text.slice(0, PROMPT_PREVIEW)}…` : text,
      };
    });
  const starts = pageStarts(session.messages);
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
    stats: sessionStats(session),
    prompts,
    body,
    ...(starts.length > 1 ? { pageStarts: starts } : {}),
  };
}
