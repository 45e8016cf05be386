import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * Cursor names each project folder under `~/.cursor/projects/` after the workspace path with every character
 * that is not a letter or digit turned into `-` and the leading separator dropped (`/home/al/my.app` →
 * `home-al-my-app`; Windows `C:\Users\al\app` → `c-Users-al-app`, seen lowercased or not). That is lossy: the
 * working directory is recovered by matching absolute paths the session itself names (tool arguments) against
 * the slug, else by walking the file system, else by reading every `-` as a separator.
 */
export function slugOf(p: string): string {
  return p
    .replace(/[^A-Za-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
}

/** The working directory a project slug stands for, given absolute paths seen in the session. */
export function cwdFromSlug(slug: string, seenPaths: Iterable<string>): string {
  const want = slugOf(slug);
  let best: string | undefined;
  for (const seen of seenPaths) {
    const found = prefixWithSlug(seen, want);
    if (found && (!best || found.length > best.length)) best = found;
  }
  return best ?? walk(slug) ?? naive(slug);
}

/** The leading part of `p` (cut at a separator) whose slug is `want`. */
function prefixWithSlug(p: string, want: string): string | undefined {
  const native = p.startsWith('file://') ? decodeURIComponent(p.slice(7)) : p;
  if (!(native.startsWith('/') || /^[A-Za-z]:[\\/]/.test(native))) return undefined;
  const sep = /^[A-Za-z]:\\/.test(native) ? '\\' : '/';
  const parts = native.split(/[\\/]/);
  for (let n = parts.length; n > 0; n -= 1) {
    const prefix = parts.slice(0, n).join(sep);
    if (slugOf(prefix) === want) return prefix.replace(/^\/([A-Za-z]:)/, '$1') || sep;
  }
  return undefined;
}

/** Tries, from the root, every way of reading each `-` (a separator, `-`, `.`, `_`, ` `) that exists on disk. */
function walk(slug: string): string | undefined {
  const tokens = slug.split('-').filter(Boolean);
  if (tokens.length === 0) return undefined;
  const drive = /^[A-Za-z]$/.test(tokens[0]!) && process.platform === 'win32';
  let budget = 2000;
  const search = (dir: string, i: number): string | undefined => {
    if (i === tokens.length) return dir;
    for (let j = tokens.length; j > i; j -= 1) {
      for (const joiner of ['-', '.', '_', ' ']) {
        if (budget-- <= 0) return undefined;
        const name = tokens.slice(i, j).join(joiner);
        const next = path.join(dir, name);
        if (existsSync(next)) {
          const found = search(next, j);
          if (found) return found;
        }
        if (j === i + 1) break;
      }
    }
    return undefined;
  };
  return drive ? search(`${tokens[0]!.toUpperCase()}:\\`, 1) : search('/', 0);
}

function naive(slug: string): string {
  const tokens = slug.split('-').filter(Boolean);
  if (tokens.length > 1 && /^[A-Za-z]$/.test(tokens[0]!))
    return `${tokens[0]!.toUpperCase()}:\\${tokens.slice(1).join('\\')}`;
  return `/${tokens.join('/')}`;
}
