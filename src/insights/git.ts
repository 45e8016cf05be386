import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { type Dirent, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SessionSummary } from '../model/session.ts';
import { dayOf } from '../stats/calendar.ts';
import { heldOnce } from '../util/stamp.ts';

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

/** Settings that would have git start a program the user configured (a signature check with `gpg.program`, an
 * fsmonitor hook, a pager, an external diff or textconv driver) or colour its output: reading history needs none. */
const QUIET_CONFIG = ['core.fsmonitor=false', 'core.pager=cat', 'log.showSignature=false', 'color.ui=false'].flatMap(
  (setting) => ['-c', setting],
);

function git(cwd: string, args: string[]): string | undefined {
  const run = spawnSync('git', ['-C', cwd, '--no-optional-locks', ...QUIET_CONFIG, ...args], {
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_OPTIONAL_LOCKS: '0',
      GIT_TERMINAL_PROMPT: '0',
      GIT_PAGER: 'cat',
      GIT_CONFIG_NOSYSTEM: '1',
    },
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
    '--no-show-signature',
    '--no-ext-diff',
    '--no-textconv',
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

/**
 * A stamp of the state of the repository holding `dir`, found as git finds it (a `.git` folder, or a `.git`
 * file naming one: a linked worktree, a submodule) and read without running git: where it is, and the size,
 * mtime and inode of HEAD, the config (the user's e-mail), packed-refs and every folder of refs. Git writes a
 * ref to a lock file renamed over it, which changes its folder's mtime: a commit, a checkout, a fetch or a
 * rebase changes the stamp, at the cost of a stat per folder, not per ref. '' when `dir` is in no repository.
 */
export function repositoryStamp(dir: string): string {
  return heldOnce(`repository\0${dir}`, () => takeRepositoryStamp(dir));
}

function takeRepositoryStamp(dir: string): string {
  const found = gitDirOf(dir);
  if (!found) return '';
  const { gitDir, commonDir } = found;
  const h = createHash('sha256').update(`${gitDir}\0${commonDir}\0`);
  const stamp = (file: string) => {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (stat) h.update(`${file}:${stat.size}:${stat.mtimeMs}:${stat.ino}\0`);
    return stat?.isDirectory() === true;
  };
  const walk = (folder: string): void => {
    if (!stamp(folder)) return;
    let entries: Dirent[] = [];
    try {
      entries = readdirSync(folder, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (entry.isDirectory()) walk(path.join(folder, entry.name));
    }
  };
  stamp(path.join(gitDir, 'HEAD'));
  stamp(path.join(commonDir, 'config'));
  stamp(path.join(commonDir, 'packed-refs'));
  walk(path.join(commonDir, 'refs'));
  walk(path.join(commonDir, 'reftable'));
  return `${gitDir}:${h.digest('hex').slice(0, 20)}`;
}

function gitDirOf(dir: string): { gitDir: string; commonDir: string } | undefined {
  if (!dir || !path.isAbsolute(dir)) return undefined;
  for (let at = dir; ; at = path.dirname(at)) {
    const dotGit = path.join(at, '.git');
    const stat = statSync(dotGit, { throwIfNoEntry: false });
    let gitDir: string | undefined;
    if (stat?.isDirectory()) gitDir = dotGit;
    else if (stat?.isFile()) {
      const named = /^gitdir:\s*(.+?)\s*$/m.exec(readText(dotGit) ?? '')?.[1];
      if (named) gitDir = path.resolve(at, named);
    }
    if (gitDir) {
      const common = readText(path.join(gitDir, 'commondir'))?.trim();
      return { gitDir, commonDir: common ? path.resolve(gitDir, common) : gitDir };
    }
    if (path.dirname(at) === at) return undefined;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

/** Outcomes by the sessions' folders and the state of their repositories: a process that builds again
 * (`serve --watch`, the MCP server) asks git again once a commit (or a checkout, a fetch) changed one. */
const cache = new Map<string, Outcomes>();

export function gitOutcomes(sessions: readonly SessionSummary[]): Outcomes {
  const cwds = new Set(sessions.map((s) => s.cwd));
  const key = [
    ...sessions.map((s) => `${s.cwd}\u0000${s.startedAt}\u0000${s.endedAt}`).sort(),
    ...[...cwds].sort().map((cwd) => `${cwd}\u0000${repositoryStamp(cwd)}`),
  ].join('\u0001');
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
  // Keys of repositories' states gone by would only pile up in a long-running process.
  if (cache.size >= 4096) cache.clear();
  cache.set(key, outcomes);
  return outcomes;
}

/**
 * The commits `gitOutcomes(sessions)` would hold, from outcomes over more sessions (a whole build's): each
 * repository's commits from the first start of these sessions in it to their last end, plus a day. What a
 * page over these sessions may show, for its key.
 */
export function commitsOfSessions(outcomes: Outcomes, sessions: readonly SessionSummary[]): Commit[] {
  const span = new Map<string, { from: number; to: number }>();
  for (const s of sessions) {
    const repo = outcomes.repoOf.get(s.cwd);
    if (!repo || !s.startedAt) continue;
    const from = Date.parse(s.startedAt);
    const to = Date.parse(s.endedAt || s.startedAt) + DAY_MS;
    const r = span.get(repo);
    span.set(repo, r ? { from: Math.min(r.from, from), to: Math.max(r.to, to) } : { from, to });
  }
  return [...span].flatMap(([repo, { from, to }]) =>
    (outcomes.commits.get(repo) ?? []).filter((c) => {
      const t = Date.parse(c.at);
      return t >= from && t <= to;
    }),
  );
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
