import { dayOf, slotDay } from './calendar.ts';
import type { SourceId, TokenUsage } from '../model/message.ts';
import { projectOf } from '../model/project.ts';
import type { HistoryPrompt, SessionSummary } from '../model/session.ts';
import { addTokens, emptyTokens } from './session-stats.ts';

/** Day and project indexes over session summaries, with days computed in one time zone. */

export interface DayCounts {
  entries: number;
  toolUses: number;
  toolUsesByName: Record<string, number>;
  prompts: number;
  tokens: TokenUsage;
}

export interface DaySession {
  summary: SessionSummary;
  counts: DayCounts;
}

export interface DayPrompt {
  timestamp: string;
  text: string;
  source: SourceId;
  project?: string;
  /** `<source>/<sessionId>` when that session is on the site. */
  sessionKey?: string;
  /** From the prompt history, with no transcript left. */
  historyOnly: boolean;
}

export interface DayIndex {
  day: string;
  sessions: DaySession[];
  prompts: DayPrompt[];
  totals: DayCounts;
  /** 15-minute slots with any activity, times 15: an estimate of time spent with the assistants. */
  activeMinutes: number;
}

export interface ProjectWorktree {
  /** The folder sessions ran in: the repository's main folder, a linked worktree, a clone or a subfolder. */
  cwd: string;
  branches: string[];
  sessions: number;
  last: string;
}

export interface ProjectIndex {
  slug: string;
  cwd: string;
  name: string;
  /** Git remote (normalized) when the repository has one. */
  remote?: string;
  /** Every folder of the project's sessions, most recent first. */
  worktrees: ProjectWorktree[];
  sessions: SessionSummary[];
  first: string;
  last: string;
  totals: DayCounts;
}

function emptyCounts(): DayCounts {
  return { entries: 0, toolUses: 0, toolUsesByName: {}, prompts: 0, tokens: emptyTokens() };
}

function addCounts(into: DayCounts, add: DayCounts): void {
  into.entries += add.entries;
  into.toolUses += add.toolUses;
  for (const [name, n] of Object.entries(add.toolUsesByName))
    into.toolUsesByName[name] = (into.toolUsesByName[name] ?? 0) + n;
  into.prompts += add.prompts;
  addTokens(into.tokens, add.tokens);
}

/** A session's activity per local day. */
export function sessionDays(summary: SessionSummary, timeZone: string): Map<string, DayCounts> {
  const days = new Map<string, DayCounts>();
  for (const [slot, activity] of Object.entries(summary.stats.activity)) {
    const day = slotDay(slot, summary.startedAt, timeZone);
    let counts = days.get(day);
    if (!counts) days.set(day, (counts = emptyCounts()));
    addCounts(counts, activity);
  }
  if (days.size === 0 && summary.startedAt) days.set(dayOf(summary.startedAt, timeZone), emptyCounts());
  return days;
}

export function buildDayIndexes(
  summaries: SessionSummary[],
  history: HistoryPrompt[],
  timeZone: string,
): Map<string, DayIndex> {
  const days = new Map<string, DayIndex>();
  const dayIndex = (day: string): DayIndex => {
    let index = days.get(day);
    if (!index) {
      index = { day, sessions: [], prompts: [], totals: emptyCounts(), activeMinutes: 0 };
      days.set(day, index);
    }
    return index;
  };
  const byKey = new Map(summaries.map((s) => [s.id, s]));

  const activeSlots = new Map<string, Set<string>>();
  for (const summary of summaries) {
    for (const [day, counts] of sessionDays(summary, timeZone)) {
      const index = dayIndex(day);
      index.sessions.push({ summary, counts });
      addCounts(index.totals, counts);
    }
    for (const slot of Object.keys(summary.stats.activity)) {
      if (slot === 'unknown') continue;
      const day = slotDay(slot, summary.startedAt, timeZone);
      let slots = activeSlots.get(day);
      if (!slots) activeSlots.set(day, (slots = new Set()));
      slots.add(slot);
    }
  }

  // Prompts: the prompt history first (it also covers sessions whose transcripts are gone), then
  // transcript prompts the history does not have (e.g. non-interactive runs).
  const seen = new Map<string, number[]>();
  const remember = (text: string, iso: string) => {
    const key = text.trim();
    const list = seen.get(key) ?? [];
    list.push(Date.parse(iso));
    seen.set(key, list);
  };
  const isSeen = (text: string, iso: string) =>
    (seen.get(text.trim()) ?? []).some((t) => Math.abs(t - Date.parse(iso)) < 120_000);
  for (const p of history) {
    const session = p.sessionId ? byKey.get(`${p.source}/${p.sessionId}`) : undefined;
    dayIndex(dayOf(p.timestamp, timeZone)).prompts.push({
      timestamp: p.timestamp,
      text: p.text,
      source: p.source,
      project: p.project,
      sessionKey: session?.id,
      historyOnly: !session,
    });
    remember(p.text, p.timestamp);
  }
  for (const summary of summaries) {
    for (const prompt of summary.prompts) {
      if (isSeen(prompt.text.replace(/…$/, ''), prompt.timestamp) || isSeen(prompt.text, prompt.timestamp)) continue;
      dayIndex(dayOf(prompt.timestamp, timeZone)).prompts.push({
        timestamp: prompt.timestamp,
        text: prompt.text,
        source: summary.source,
        project: summary.cwd,
        sessionKey: summary.id,
        historyOnly: false,
      });
    }
  }

  for (const index of days.values()) {
    index.activeMinutes = (activeSlots.get(index.day)?.size ?? 0) * 15;
    index.prompts.sort((a, b) => a.timestamp.localeCompare(b.timestamp));
    index.sessions.sort((a, b) => a.summary.startedAt.localeCompare(b.summary.startedAt));
  }
  return new Map([...days.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

export function buildProjectIndexes(summaries: SessionSummary[]): Map<string, ProjectIndex> {
  const projects = new Map<string, ProjectIndex>();
  for (const summary of summaries) {
    const ref = projectOf(summary);
    const slug = summary.project || ref.slug;
    let project = projects.get(slug);
    if (!project) {
      project = {
        slug,
        cwd: ref.cwd,
        name: ref.name,
        ...(summary.repository?.remote ? { remote: summary.repository.remote } : {}),
        worktrees: [],
        sessions: [],
        first: summary.startedAt,
        last: summary.endedAt,
        totals: emptyCounts(),
      };
      projects.set(slug, project);
    }
    project.sessions.push(summary);
    let tree = project.worktrees.find((w) => w.cwd === summary.cwd);
    if (!tree) project.worktrees.push((tree = { cwd: summary.cwd, branches: [], sessions: 0, last: summary.endedAt }));
    tree.sessions += 1;
    if (summary.endedAt > tree.last) tree.last = summary.endedAt;
    if (summary.gitBranch && !tree.branches.includes(summary.gitBranch)) tree.branches.push(summary.gitBranch);
    if (summary.startedAt < project.first) project.first = summary.startedAt;
    if (summary.endedAt > project.last) project.last = summary.endedAt;
    addCounts(project.totals, {
      entries: summary.stats.entries,
      toolUses: summary.stats.toolUses,
      toolUsesByName: summary.stats.toolUsesByName,
      prompts: summary.stats.prompts,
      tokens: summary.stats.tokens,
    });
  }
  for (const p of projects.values()) {
    p.sessions.sort((a, b) => b.startedAt.localeCompare(a.startedAt));
    p.worktrees.sort((a, b) => b.last.localeCompare(a.last));
    for (const w of p.worktrees) w.branches.sort();
  }
  return new Map([...projects.entries()].sort(([, a], [, b]) => b.last.localeCompare(a.last)));
}
