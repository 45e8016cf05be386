import { closeSync, fstatSync, ftruncateSync, openSync, promises as fs, readSync } from 'node:fs';
import path from 'node:path';
import { TEMP_FILE } from '../util/line-writer.ts';
import type { WarningSink } from '../util/warnings.ts';

/** Marks a data directory whose archive was checked by this version (cache/, so deleting it just checks again). */
const CHECKED_MARKER = path.join('cache', 'archive-checked-v1');
const TAIL_CHUNK = 64 * 1024;

/**
 * Puts the archive back in order after a run that did not finish (killed, or the machine stopped), and once
 * for a data directory written by an older version: removes temp files, and cuts a message file's torn last
 * line (a line without its newline: an append cut short) back to the last whole line, with a warning. Runs
 * under the data directory's lock, so nothing else is writing.
 */
export async function recoverArchive(root: string, crashed: boolean, warn: WarningSink): Promise<void> {
  const marker = path.join(root, CHECKED_MARKER);
  if (!crashed && (await fs.stat(marker).catch(() => undefined))) return;
  // Not all of cache/: a site build's own temp files there are its to clean (it holds the lock while it runs).
  for (const dir of ['sessions', 'index', 'prompts', path.join('cache', 'resume')]) {
    await walk(path.join(root, dir), warn);
  }
  for (const entry of await fs.readdir(path.join(root, 'cache'), { withFileTypes: true }).catch(() => [])) {
    if (entry.isFile() && TEMP_FILE.test(entry.name))
      await fs.rm(path.join(root, 'cache', entry.name), { force: true });
  }
  await fs.mkdir(path.dirname(marker), { recursive: true });
  await fs.writeFile(marker, '');
}

async function walk(dir: string, warn: WarningSink): Promise<void> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      await walk(full, warn);
    } else if (entry.isFile() && TEMP_FILE.test(entry.name)) {
      await fs.rm(full, { force: true });
    } else if (entry.isFile() && entry.name.endsWith('.messages.jsonl')) {
      const cut = cutTornLine(full);
      if (cut !== undefined) {
        warn({
          file: full,
          message: `last line was torn (${cut} bytes without a newline, from a run that did not finish); cut back to the last whole line`,
        });
      }
    }
  }
}

/** Cuts a file back to just after its last newline when it does not end with one; returns the bytes cut. */
export function cutTornLine(file: string): number | undefined {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch {
    return undefined;
  }
  try {
    const size = fstatSync(fd).size;
    const end = lastNewlineEnd(fd, size);
    if (end === size) return undefined;
    ftruncateSync(fd, end);
    return size - end;
  } finally {
    closeSync(fd);
  }
}

/** The offset just after the last newline of the first `size` bytes (0 when there is none). */
export function lastNewlineEnd(fd: number, size: number): number {
  const chunk = Buffer.allocUnsafe(TAIL_CHUNK);
  let to = size;
  while (to > 0) {
    const from = Math.max(0, to - TAIL_CHUNK);
    const read = readSync(fd, chunk, 0, to - from, from);
    const at = chunk.subarray(0, read).lastIndexOf(0x0a);
    if (at !== -1) return from + at + 1;
    to = from;
  }
  return 0;
}
