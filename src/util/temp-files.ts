import { type Dirent, promises as fs } from 'node:fs';
import path from 'node:path';

/** What names a temporary file of ours, so that no name of anyone else's is taken for one. */
const MARKER = '.agent-logbook-tmp-';

/**
 * A temporary file (or folder) beside `file`, named after this process: `<file>.agent-logbook-tmp-<pid>-<tag>`.
 * What a process killed before it renamed or removed one leaves can be told from the name (see
 * sweepTemporaryFiles).
 */
export function temporaryBeside(file: string, tag = Math.random().toString(36).slice(2)): string {
  return `${file}${MARKER}${process.pid}-${tag}`;
}

const TEMPORARY = /\.agent-logbook-tmp-(\d+)-\w+$/;

/** Whether a process of that id is running on this machine (EPERM: it is, as another user). */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export interface Swept {
  removed: number;
  /** Temporary files of this process not removed: written to in the last minutes (a write may still be under
   * way), or that could not be removed. */
  kept: number;
}

/** A temporary file of this process last written this long ago is no longer being written. */
const OWN_IDLE_MS = 10 * 60_000;

/**
 * Removes, anywhere under `root`, the temporary files and folders named by temporaryBeside whose process is
 * gone, and those of this process not written to for ten minutes (`serve --watch` runs builds in one process,
 * and a write of a build that failed may still be finishing in a worker). Best effort: a folder that cannot be
 * read is passed over. Names of anyone else's, and symbolic links' targets, are never touched.
 */
export async function sweepTemporaryFiles(root: string): Promise<Swept> {
  const swept: Swept = { removed: 0, kept: 0 };
  const now = Date.now();
  const visit = async (dir: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return; // gone meanwhile, or not ours to read
    }
    for (const entry of entries) {
      const at = path.join(dir, entry.name);
      const pid = TEMPORARY.exec(entry.name)?.[1];
      if (pid === undefined) {
        if (entry.isDirectory()) await visit(at);
        continue;
      }
      const owner = Number(pid);
      if (owner !== process.pid && isProcessAlive(owner)) continue;
      if (owner === process.pid) {
        const stat = await fs.lstat(at).catch(() => undefined);
        if (!stat || now - stat.mtimeMs < OWN_IDLE_MS) {
          swept.kept += stat ? 1 : 0;
          continue;
        }
      }
      try {
        await fs.rm(at, { recursive: true, force: true });
        swept.removed += 1;
      } catch {
        if (owner === process.pid) swept.kept += 1;
      }
    }
  };
  await visit(root);
  return swept;
}
