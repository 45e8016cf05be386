import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { SessionSummary } from '../model/session.ts';
import { dayOf } from '../stats/calendar.ts';

/** Outcomes next to effort: the user's own commits in the git repositories the sessions ran in. Read-only: no
 * fetch, no optional locks (`git status` would otherwise refresh the index), nothing written to the repository. */

export interface Commit {
  hash: string;
  /** Author time, ISO-8601 with offset (when the work was done; rebases change only the committer time). */
  at: string;
  subject: string;
  /** The repository's top-level directory. */
  repo: string;
}

const DAY_MS = 86_400_000;

function git(cwd: string, args: string[]): string | undefined {
  const run = spawnSync('git', ['-C', cwd, '--no-optional-locks', '-c', 'core.fsmonitor=false', ...args], {
    encoding: 'utf8',
    env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat' },
    timeout: 20_000,
    maxBuffer: 64 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  // No git, not a repository, a damaged one: no outcomes, and no error.
  if (run.error || run.status !== 0) return undefined;
  return run.stdout;
}

/** The top-level directory of the repository `cwd` is in, or undefined (gone, not a repository, no git). */
export function repoRoot(cwd: string): string | undefined {
  if (!cwd || !existsSync(cwd)) return undefined;
  return git(cwd, ['rev-parse', '--show-toplevel'])?.trim() || undefined;
}

/** The user's e-mail as git config gives it for this repository (local, global or system). */
export function userEmail(repo: string): string | undefined {
  return git(repo, ['config', 'user.email'])?.trim() || undefined;
}

/** The user's commits on every branch of `repo` authored between the two times (inclusive), oldest first. */
export function commitsOf(repo: string, email: string, fromIso: string, toIso: string): Commit[] {
  const from = Date.parse(fromIso);
  const to = Date.parse(toIso);
  // --since limits by committer time: a day of margin, then filter by author time.
  const out = git(repo, [
    'log',
    '--all',
    '--no-color',
    '--fixed-strings',
    '--regexp-ignore-case',
    `--author=<${email}>`,
    `--since=${new Date(from - DAY_MS).toISOString()}`,
    '--format=%H%x1f%aI%x1f%s%x1e',
  ]);
  if (!out) return [];
  const commits: Commit[] = [];
  for (const record of out.split('\x1e')) {
    const [hash, at, subject] = record.trim().split('\x1f');
    if (!hash || !at) continue;
    const t = Date.parse(at);
    if (t >= from && t <= to) commits.push({ hash, at, subject: subject ?? '', repo });
  }
  return commits.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/** The commits of every repository the sessions ran in, over the span of those sessions. */
export interface Outcomes {
  /** Session cwd → repository top level (only cwds that are repositories on disk). */
  repoOf: Map<string, string>;
  /** Repository → the user's commits while sessions ran in it (first session start to last end, plus a day). */
  commits: Map<string, Commit[]>;
}

const cache = new Map<string, Outcomes>();

export function gitOutcomes(sessions: readonly SessionSummary[]): Outcomes {
  const key = sessions
    .map((s) => `${s.cwd}\u0000${s.startedAt}\u0000${s.endedAt}`)
    .sort()
    .join('\u0001');
  const known = cache.get(key);
  if (known) return known;
  const repoOf = new Map<string, string>();
  const span = new Map<string, { from: string; to: string }>();
  const rootOfCwd = new Map<string, string | undefined>();
  for (const s of sessions) {
    if (!s.startedAt) continue;
    if (!rootOfCwd.has(s.cwd)) rootOfCwd.set(s.cwd, repoRoot(s.cwd));
    const root = rootOfCwd.get(s.cwd);
    if (!root) continue;
    repoOf.set(s.cwd, root);
    const end = s.endedAt || s.startedAt;
    const r = span.get(root);
    if (!r) span.set(root, { from: s.startedAt, to: end });
    else {
      if (s.startedAt < r.from) r.from = s.startedAt;
      if (end > r.to) r.to = end;
    }
  }
  const commits = new Map<string, Commit[]>();
  for (const [root, { from, to }] of span) {
    const email = userEmail(root);
    if (!email) continue;
    commits.set(root, commitsOf(root, email, from, new Date(Date.parse(to) + DAY_MS).toISOString()));
  }
  const outcomes = { repoOf, commits };
  cache.set(key, outcomes);
  return outcomes;
}

/** The commits authored on these local days in the repositories of these sessions. */
export function commitsOnDays(
  outcomes: Outcomes,
  sessions: readonly SessionSummary[],
  days: ReadonlySet<string>,
  timeZone: string,
): Commit[] {
  const repos = new Set(sessions.map((s) => outcomes.repoOf.get(s.cwd)).filter((r): r is string => !!r));
  return [...repos]
    .flatMap((repo) => outcomes.commits.get(repo) ?? [])
    .filter((c) => days.has(dayOf(new Date(c.at).toISOString(), timeZone)))
    .sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/** The commits authored in the session's repository while it ran. */
export function commitsDuring(outcomes: Outcomes, session: SessionSummary): Commit[] {
  const repo = outcomes.repoOf.get(session.cwd);
  if (!repo) return [];
  const from = Date.parse(session.startedAt);
  const to = Date.parse(session.endedAt || session.startedAt);
  return (outcomes.commits.get(repo) ?? []).filter((c) => {
    const t = Date.parse(c.at);
    return t >= from && t <= to;
  });
}

/** Commits per local day. */
export function commitsByDay(commits: readonly Commit[], timeZone: string): Map<string, number> {
  const byDay = new Map<string, number>();
  for (const c of commits) {
    const day = dayOf(new Date(c.at).toISOString(), timeZone);
    byDay.set(day, (byDay.get(day) ?? 0) + 1);
  }
  return byDay;
}
