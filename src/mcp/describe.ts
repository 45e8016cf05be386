import { SOURCE_LABELS } from '../model/labels.ts';
import { projectName } from '../model/project.ts';
import type { SessionSummary } from '../model/session.ts';
import { dayOf, timeOf } from '../stats/calendar.ts';
import { formatNumber } from '../util/format.ts';

/** Short descriptions of sessions, shared by the tools' answers. */

export function when(iso: string, timeZone: string): string {
  if (!iso || Number.isNaN(Date.parse(iso))) return '?';
  return `${dayOf(iso, timeZone)} ${timeOf(iso, timeZone)}`;
}

/** "2026-03-02 09:00–09:19" (the end's date only when it is another day). */
export function span(summary: SessionSummary, timeZone: string): string {
  const start = when(summary.startedAt, timeZone);
  if (!summary.endedAt || Number.isNaN(Date.parse(summary.endedAt))) return start;
  const sameDay = summary.startedAt && dayOf(summary.startedAt, timeZone) === dayOf(summary.endedAt, timeZone);
  return `${start}–${sameDay ? timeOf(summary.endedAt, timeZone) : when(summary.endedAt, timeZone)}`;
}

export function counts(summary: SessionSummary): string {
  const s = summary.stats;
  return `${formatNumber(s.prompts)} prompts, ${formatNumber(s.entries)} responses, ${formatNumber(s.toolUses)} tool uses`;
}

/** One line for a list of sessions. */
export function sessionLine(summary: SessionSummary, timeZone: string): string {
  const archived = summary.sourcePresent ? '' : ' · archived (gone from its source)';
  return (
    `- ${summary.id} · ${span(summary, timeZone)} · ${projectName(summary.cwd)} · ` +
    `"${oneLine(summary.title, 120)}" · ${counts(summary)}${archived}`
  );
}

/** The header of a session's transcript. */
export function sessionHeader(summary: SessionSummary, timeZone: string): string[] {
  const branch = summary.gitBranch ? ` · branch ${summary.gitBranch}` : '';
  const models = summary.models.length ? ` · ${summary.models.join(', ')}` : '';
  return [
    `# ${summary.id}: ${oneLine(summary.title, 200)}`,
    `${SOURCE_LABELS[summary.source] ?? summary.source} · ${projectName(summary.cwd)} (${summary.cwd})${branch}${models}`,
    `${span(summary, timeZone)} (${timeZone}) · ${counts(summary)} · ${summary.stats.pattern}` +
      (summary.sourcePresent ? '' : ' · archived: its source files are gone'),
  ];
}

export function oneLine(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

export function summaryJson(summary: SessionSummary, timeZone: string): Record<string, unknown> {
  return {
    session: summary.id,
    source: summary.source,
    title: summary.title,
    project: projectName(summary.cwd),
    cwd: summary.cwd,
    gitBranch: summary.gitBranch,
    start: summary.startedAt,
    end: summary.endedAt,
    startLocal: when(summary.startedAt, timeZone),
    prompts: summary.stats.prompts,
    responses: summary.stats.entries,
    toolUses: summary.stats.toolUses,
    pattern: summary.stats.pattern,
    tokens: summary.stats.tokens,
    models: summary.models,
    archived: !summary.sourcePresent,
  };
}

/** " The last day with activity before it: …" (or ''), for an answer about a quiet day. */
export function lastActiveBefore(days: ReadonlyMap<string, unknown>, day: string): string {
  let last: string | undefined;
  for (const key of days.keys()) if (key < day && (!last || key > last)) last = key;
  return last ? ` The last day with activity before it: ${last}.` : '';
}
