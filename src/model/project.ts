import { createHash } from 'node:crypto';

/** A URL-safe, stable slug for a project directory: its last path part plus a short hash of the whole path,
 * so `/a/app` and `/b/app` never collide. */
export function projectSlug(cwd: string): string {
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
