import { projectSlug } from '../model/project.ts';
import type { SessionSummary } from '../model/session.ts';
import type { ProjectIndex } from '../stats/indexes.ts';
import { dayOf } from '../stats/calendar.ts';
import { inRange, type DayRange } from './dates.ts';
import { ToolInputError } from './errors.ts';
import type { Snapshot } from './logbook.ts';

/** Finding sessions and projects from what a model types. */

/** `<source>/<id>`, a session id, or a unique prefix of either. */
export function findSession(snapshot: Snapshot, wanted: string): SessionSummary {
  const q = wanted.trim();
  if (!q)
    throw new ToolInputError('session is empty: give <source>/<session-id> or a session id (list_sessions shows them)');
  const exact = snapshot.byKey.get(q);
  if (exact) return exact;
  const byId = snapshot.summaries.filter((s) => s.sessionId === q);
  if (byId.length === 1) return byId[0]!;
  const candidates =
    byId.length > 1 ? byId : snapshot.summaries.filter((s) => s.id.startsWith(q) || s.sessionId.startsWith(q));
  if (candidates.length === 1) return candidates[0]!;
  if (candidates.length === 0) {
    throw new ToolInputError(
      `no session "${q}" in the logbook (${snapshot.summaries.length} sessions). ` +
        'Give <source>/<session-id> or a unique start of a session id; list_sessions or search find them.',
    );
  }
  const shown = candidates.slice(0, 10).map((s) => `  ${s.id}  ${s.title}`);
  throw new ToolInputError(
    `"${q}" matches ${candidates.length} sessions; give more of the id:\n${shown.join('\n')}` +
      (candidates.length > shown.length ? `\n  … ${candidates.length - shown.length} more` : ''),
  );
}

function fold(text: string): string {
  return text.normalize('NFKC').toLowerCase();
}

/** Projects a model named: by slug, directory, or name (exact first, else a part of the directory). */
export function matchProjects(snapshot: Snapshot, wanted: string): ProjectIndex[] {
  const q = fold(wanted.trim()).replace(/\/+$/, '');
  const all = [...snapshot.projects.values()];
  const exact = all.filter((p) => p.slug === q || fold(p.cwd) === q || fold(p.name) === q);
  if (exact.length > 0) return exact;
  return all.filter((p) => fold(p.cwd).includes(q));
}

export function requireProjects(snapshot: Snapshot, wanted: string): ProjectIndex[] {
  const found = matchProjects(snapshot, wanted);
  if (found.length === 0) {
    const known = [...snapshot.projects.values()].slice(0, 15).map((p) => `  ${p.name}  (${p.cwd})`);
    throw new ToolInputError(
      `no project matches "${wanted}". Give a project name, its directory or a part of it. Projects with recent activity:\n${known.join('\n')}`,
    );
  }
  return found;
}

export interface SessionFilter {
  project?: string;
  source?: string;
  range: DayRange;
  query?: string;
}

/** Days a session was active on (in the zone), from its activity slots. */
export function activeDays(snapshot: Snapshot): Map<string, string[]> {
  const days = new Map<string, string[]>();
  for (const [day, index] of snapshot.days) {
    for (const { summary } of index.sessions) {
      const list = days.get(summary.id);
      if (list) list.push(day);
      else days.set(summary.id, [day]);
    }
  }
  return days;
}

/** Sessions matching every filter given, newest first. */
export function filterSessions(snapshot: Snapshot, filter: SessionFilter, timeZone: string): SessionSummary[] {
  let list = snapshot.summaries;
  if (filter.source) list = list.filter((s) => s.source === filter.source);
  if (filter.project) {
    const slugs = new Set(requireProjects(snapshot, filter.project).map((p) => p.slug));
    list = list.filter((s) => slugs.has(s.project || projectSlug(s.cwd)));
  }
  if (filter.range.since || filter.range.until) {
    const days = activeDays(snapshot);
    list = list.filter((s) => {
      const on = days.get(s.id) ?? (s.startedAt ? [dayOf(s.startedAt, timeZone)] : []);
      return on.some((d) => inRange(d, filter.range));
    });
  }
  if (filter.query?.trim()) {
    const words = fold(filter.query).split(/\s+/).filter(Boolean);
    list = list.filter((s) => {
      const hay = fold([s.id, s.title, s.cwd, s.gitBranch ?? '', ...s.prompts.map((p) => p.text)].join('\n'));
      return words.every((w) => hay.includes(w));
    });
  }
  return [...list].sort((a, b) => b.endedAt.localeCompare(a.endedAt) || a.id.localeCompare(b.id));
}
