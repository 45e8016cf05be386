import { promises as fs } from 'node:fs';
import path from 'node:path';

/**
 * A temporary file (or folder) beside `file`, named after this process: `<file>.tmp-<pid>-<tag>`. What a
 * process killed before it renamed or removed one leaves can be told from the name (see sweepTemporaryFiles).
 */
export function temporaryBeside(file: string, tag = Math.random().toString(36).slice(2)): string {
  return `${file}.tmp-${process.pid}-${tag}`;
}

const TEMPORARY = /\.tmp-(\d+)-[\w]*$/;

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

/**
 * Removes, anywhere under `root`, the temporary files and folders named by temporaryBeside whose process is
 * gone, or is this one (`ownFinished`: none of its writes is under way, e.g. between two builds of
 * `serve --watch`). Returns how many it removed. Nothing else is touched.
 */
export async function sweepTemporaryFiles(root: string, ownFinished: boolean): Promise<number> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(root, { recursive: true, withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  const removed: string[] = [];
  for (const entry of entries) {
    const pid = TEMPORARY.exec(entry.name)?.[1];
    if (pid === undefined) continue;
    const owner = Number(pid);
    if (owner === process.pid ? !ownFinished : isProcessAlive(owner)) continue;
    const at = path.join(entry.parentPath, entry.name);
    // Inside a temporary folder already removed.
    if (removed.some((folder) => at.startsWith(`${folder}${path.sep}`))) continue;
    await fs.rm(at, { recursive: true, force: true });
    removed.push(at);
  }
  return removed.length;
}
