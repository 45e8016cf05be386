import { statSync } from 'node:fs';
import path from 'node:path';

/**
 * An error as one line in words: what happened, to which path, and what to do. File system errors the user
 * can fix (a read-only or full disk, a file where a directory should be, no permission) are explained;
 * anything else keeps its own message.
 */
export function describeError(error: unknown): string {
  const e = error as NodeJS.ErrnoException;
  const code = e?.code;
  const where = typeof e?.path === 'string' ? e.path : undefined;
  switch (code) {
    case 'ENOSPC':
    case 'EDQUOT':
      return `no space left on the disk${where ? ` for ${where}` : ''} (${code}); free some space and run again (what was being written was cut back to its last whole line; the archive is otherwise unchanged)`;
    case 'EROFS':
      return `${where ?? 'the data directory'} is on a read-only file system (EROFS); give --data a writable directory`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied for ${where ?? 'a file'} (${code}); give this user access to it, or give --data another directory`;
    case 'EEXIST':
    case 'ENOTDIR': {
      const file = where && fileInTheWay(where);
      if (file)
        return `${file} is a file, not a directory (${code}); give --data (or --out) a directory, or move the file away`;
      break;
    }
    case 'ENAMETOOLONG':
      return `a file name is too long for the file system${where ? `: ${where}` : ''} (ENAMETOOLONG)`;
  }
  return e instanceof Error ? e.message : String(error);
}

/** The path itself or its nearest ancestor that exists, when that is not a directory. */
function fileInTheWay(p: string): string | undefined {
  for (let at = path.resolve(p); ; at = path.dirname(at)) {
    let stat: ReturnType<typeof statSync>;
    try {
      stat = statSync(at, { throwIfNoEntry: false });
    } catch {
      stat = undefined; // ENOTDIR: an ancestor is the file
    }
    if (stat) return stat.isDirectory() ? undefined : at;
    if (path.dirname(at) === at) return undefined;
  }
}
