import { createHash } from 'node:crypto';

/** A URL-safe, stable slug for a project directory: its last path part plus a short hash of the whole path,
 * so `/a/app` and `/b/app` never collide. */
export function projectSlug(cwd: string): string {
  let slug = slugs.get(cwd);
  if (slug === undefined) {
    slug = slugOf(cwd);
    if (slugs.size >= 10_000) slugs.clear();
    slugs.set(cwd, slug);
  }
  return slug;
}

// A site build asks for the slug of a few hundred folders hundreds of thousands of times.
const slugs = new Map<string, string>();

function slugOf(cwd: string): string {
  if (!cwd) return 'unknown';
  const parts = cwd.split(/[\\/]+/).filter(Boolean);
  const base = (parts[parts.length - 1] ?? 'root')
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40);
  const hash = createHash('sha256').update(cwd).digest('hex').slice(0, 6);
  return `${base || 'project'}-${hash}`;
}

/** The last one or two parts of a path, for display. */
export function projectName(cwd: string): string {
  if (!cwd) return '(unknown project)';
  const parts = cwd.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? cwd;
}

/** The git repository a session's folder belongs to, as found on disk (see collect/repository.ts). */
export interface RepositoryInfo {
  /** The main working tree (for a linked worktree, the one that holds the common `.git`). */
  root: string;
  /** `origin`'s URL, normalized (`github.com/owner/name`): clones at different paths group by it. */
  remote?: string;
}

export interface ProjectRef {
  slug: string;
  name: string;
  /** The project's folder: the repository's main working tree, or the session's folder. */
  cwd: string;
}

/**
 * Folders that are worktrees by naming convention, when the disk cannot tell: Claude Code's
 * `<repo>/.claude/worktrees/<name>`, `<repo>/.worktrees/<name>`, `<repo>-worktrees/<name>`, a folder under a
 * `.git/worktrees/` and Codex's `$CODEX_HOME/worktrees/<id>/<repo>` (its repository is known by name only).
 */
const WORKTREE_CONVENTIONS: {
  pattern: RegExp;
  root?: (m: RegExpMatchArray) => string;
  name?: (m: RegExpMatchArray) => string;
}[] = [
  { pattern: /^(.+?)[\\/]\.claude[\\/]worktrees[\\/][^\\/]+(?:[\\/].*)?$/, root: (m) => m[1]! },
  { pattern: /^(.+?)[\\/]\.git[\\/]worktrees[\\/][^\\/]+(?:[\\/].*)?$/, root: (m) => m[1]! },
  { pattern: /^(.+?)[\\/]\.worktrees[\\/][^\\/]+(?:[\\/].*)?$/, root: (m) => m[1]! },
  { pattern: /^(.+?)-worktrees[\\/][^\\/]+(?:[\\/].*)?$/, root: (m) => m[1]! },
  { pattern: /[\\/]\.codex[\\/]worktrees[\\/][^\\/]+[\\/]([^\\/]+)(?:[\\/].*)?$/, name: (m) => m[1]! },
];

/** The repository root a folder's name says it is a worktree of, or the repository name alone (Codex). */
export function worktreeConvention(cwd: string): { root?: string; name?: string } | undefined {
  for (const c of WORKTREE_CONVENTIONS) {
    const m = cwd.match(c.pattern);
    if (m) return c.root ? { root: c.root(m) } : { name: c.name!(m) };
  }
  return undefined;
}

/** `git@github.com:Owner/Name.git`, `https://github.com/owner/name` → `github.com/owner/name`. */
export function normalizeRemote(url: string): string {
  let u = url
    .trim()
    .replace(/\.git\/?$/, '')
    .replace(/\/+$/, '');
  const scp = u.match(/^(?:[^@/]+@)?([^:/]+):(?!\/)(.+)$/);
  if (scp) u = `${scp[1]}/${scp[2]}`;
  else u = u.replace(/^[a-z+]+:\/\/(?:[^@/]+@)?/i, '');
  return u.replace(/^www\./, '').toLowerCase();
}

/** The project a session (or a prompt's folder) belongs to: its repository when known, else its folder. */
export function projectOf(s: { cwd: string; repository?: RepositoryInfo }): ProjectRef {
  if (s.repository?.remote) {
    return { slug: projectSlug(s.repository.remote), name: projectName(s.repository.remote), cwd: s.repository.root };
  }
  const root = s.repository?.root ?? worktreeConvention(s.cwd)?.root ?? s.cwd;
  return { slug: projectSlug(root), name: projectName(root), cwd: root };
}

/**
 * Groups worktrees and clones of one repository under it: sets each summary's `repository` (from `probe`,
 * which looks at the disk, else the naming conventions) and its `project` slug to the group's. Codex
 * worktrees, known by repository name only, join a repository of that name when there is exactly one.
 */
export function groupProjects<T extends { cwd: string; project: string; repository?: RepositoryInfo }>(
  summaries: T[],
  probe: (cwd: string) => RepositoryInfo | undefined = () => undefined,
): T[] {
  const found = new Map<string, RepositoryInfo | undefined>();
  const repoOf = (cwd: string) => {
    if (!found.has(cwd)) {
      const onDisk = probe(cwd);
      const convention = onDisk ? undefined : worktreeConvention(cwd)?.root;
      found.set(cwd, onDisk ?? (convention ? { root: convention } : undefined));
    }
    return found.get(cwd);
  };
  for (const s of summaries) {
    const repo = repoOf(s.cwd);
    if (repo) s.repository = repo;
  }
  const byName = new Map<string, Set<string>>();
  for (const s of summaries) {
    const ref = projectOf(s);
    if (!worktreeConvention(s.cwd)?.name)
      (byName.get(ref.name) ?? byName.set(ref.name, new Set()).get(ref.name)!).add(ref.slug);
  }
  for (const s of summaries) {
    const name = worktreeConvention(s.cwd)?.name;
    if (name && !s.repository) {
      const twin = summaries.find((o) => o !== s && !worktreeConvention(o.cwd)?.name && projectOf(o).name === name);
      if (twin && byName.get(name)?.size === 1) s.repository = twin.repository ?? { root: projectOf(twin).cwd };
    }
    s.project = projectOf(s).slug;
  }
  return summaries;
}
