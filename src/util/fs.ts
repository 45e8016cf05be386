import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  openSync,
  promises as fs,
  readdirSync,
  realpathSync,
  type Stats,
  statSync,
} from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { WarningSink } from './warnings.ts';

// Synchronous, and a missing path returns instead of throwing: the sources probe dozens of places where an
// assistant may keep its data on every run, most of them absent, and a rejected fs.stat costs an Error with its
// stack (~50 µs) where statSync costs a few µs.
export async function isDirectory(p: string): Promise<boolean> {
  return statOrUndefined(p)?.isDirectory() ?? false;
}

export async function isFile(p: string): Promise<boolean> {
  return statOrUndefined(p)?.isFile() ?? false;
}

/** A path's stat (symbolic links followed), undefined when it is missing or cannot be looked at. */
export function statOrUndefined(p: string): Stats | undefined {
  try {
    return statSync(p, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

/** Directory entries, or [] when the directory is missing or unreadable. */
export async function listDir(dir: string): Promise<import('node:fs').Dirent[]> {
  try {
    return await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
}

/** A JSON file's value, or undefined when it is missing, damaged or not a regular file (never blocks on a FIFO). */
export async function readJsonFile<T>(file: string): Promise<T | undefined> {
  let handle: FileHandle | undefined;
  try {
    handle = await openRegular(file);
    return JSON.parse(await handle.readFile('utf8')) as T;
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** Writes through a temp file and rename, so a reader never sees a half-written file. */
export async function writeFileAtomic(file: string, content: string | Uint8Array): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    await fs.writeFile(tmp, content);
    await fs.rename(tmp, file);
  } catch (error) {
    await fs.rm(tmp, { force: true }).catch(() => {});
    throw error;
  }
}

export function expandHome(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return path.join(home, p.slice(2));
  return p;
}

/** A file that is not a regular file (a FIFO, socket or device): never opened for reading, which could block. */
export class NotRegularFileError extends Error {
  readonly code = 'ENOTREGULAR';
  constructor(
    readonly path: string,
    readonly kind: string,
  ) {
    super(`${kind}, not a regular file`);
  }
}

/** What a file system entry is, in words (for warnings). */
export function kindOf(
  stat: Pick<Stats, 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice' | 'isDirectory'>,
): string {
  if (stat.isFIFO()) return 'a FIFO (named pipe)';
  if (stat.isSocket()) return 'a socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'a device';
  if (stat.isDirectory()) return 'a directory';
  return 'a special file';
}

/**
 * Opens a file for reading only if it is a regular file (following symlinks). Opened non-blocking, so a FIFO
 * put where a file was expected cannot hang the open; then checked with fstat on the open descriptor (no race
 * with the file being replaced between a check and the open).
 */
export async function openRegular(file: string): Promise<FileHandle> {
  const handle = await fs.open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  let stat: Stats;
  try {
    stat = fstatSync(handle.fd);
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (!stat.isFile()) {
    await handle.close();
    throw new NotRegularFileError(file, kindOf(stat));
  }
  return handle;
}

/** openRegular, synchronously: a file descriptor. */
export function openRegularSync(file: string): number {
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  let stat: Stats;
  try {
    stat = fstatSync(fd);
  } catch (error) {
    closeSync(fd);
    throw error;
  }
  if (!stat.isFile()) {
    closeSync(fd);
    throw new NotRegularFileError(file, kindOf(stat));
  }
  return fd;
}

/** Why a file could not be read, in words for a warning (callers add what they did about it). */
export function readFailure(error: unknown): string {
  if (error instanceof NotRegularFileError) return error.message;
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied (make it readable to collect it)';
  if (code === 'ELOOP') return 'symbolic link loop';
  if (code === 'ENOENT') return 'gone while reading (deleted, or a broken symbolic link)';
  if (code === 'EISDIR') return 'a directory, not a file';
  return `could not read file (${code ?? (error as Error)?.message ?? String(error)})`;
}

export type EntryKind = 'file' | 'directory' | 'special';

export interface ListedEntry {
  name: string;
  path: string;
  kind: EntryKind;
  /** For a special file: what it is, in words. */
  what?: string;
  /** Reached through a symbolic link. */
  link?: boolean;
}

/** Order of names and paths by UTF-16 code units: the same on every machine, and unlike localeCompare it does
 * not start ICU's collator (~15 ms), which a warm collect would otherwise pay just to sort file names. */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A directory's entries with symbolic links followed (a broken link is left out with a warning). A directory
 * that exists but cannot be read is reported through `warn` (a missing one is not) and lists as empty.
 * Special files are listed as `special` so that a caller warns only about names it would have read.
 * Plain entries cost no system call beyond the readdir; only links are stat'ed.
 */
export async function listEntries(dir: string, warn?: WarningSink): Promise<ListedEntry[]> {
  let dirents: Dirent[];
  try {
    // Synchronous: a warm collect lists hundreds of folders, and each through the thread pool and a promise
    // costs about twice the CPU time of the listing itself.
    dirents = readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') {
      warn?.({
        file: dir,
        message: `directory could not be read (${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code}); skipped`,
      });
    }
    return [];
  }
  const out: ListedEntry[] = [];
  const join = joiner(dir);
  for (const d of dirents) {
    const full = join(d.name);
    if (d.isFile()) out.push({ name: d.name, path: full, kind: 'file' });
    else if (d.isDirectory()) out.push({ name: d.name, path: full, kind: 'directory' });
    else if (d.isSymbolicLink()) {
      let stat: Stats | undefined;
      try {
        stat = statSync(full);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        warn?.({
          file: full,
          message: code === 'ELOOP' ? 'symbolic link loop; skipped' : `broken symbolic link (${code}); skipped`,
        });
        continue;
      }
      if (stat.isFile()) out.push({ name: d.name, path: full, kind: 'file', link: true });
      else if (stat.isDirectory()) out.push({ name: d.name, path: full, kind: 'directory', link: true });
      else out.push({ name: d.name, path: full, kind: 'special', what: kindOf(stat), link: true });
    } else {
      const what = d.isFIFO() ? 'a FIFO (named pipe)' : d.isSocket() ? 'a socket' : 'a device';
      out.push({ name: d.name, path: full, kind: 'special', what });
    }
  }
  return out;
}

/**
 * `(name) => path.join(dir, name)` for the names a readdir of `dir` returns. A warm collect joins thousands of
 * them and path.join normalizes the whole path each time; when `dir` is already normal (no `.`, `..`, doubled
 * or trailing separator, and on Windows no `/`) and a name is a plain name, plain concatenation is the same string.
 */
export function joiner(dir: string): (name: string) => string {
  const plain = dir !== '' && dir !== '.' && path.normalize(dir) === dir && !dir.endsWith(path.sep);
  if (!plain) return (name) => path.join(dir, name);
  const prefix = dir + path.sep;
  return (name) => (name === '.' || name === '..' || name.includes('/') ? path.join(dir, name) : prefix + name);
}

/** The real path of a directory (symbolic links resolved), or undefined when it cannot be resolved. */
export async function realDir(dir: string): Promise<string | undefined> {
  return fs.realpath(dir).catch(() => undefined);
}

/**
 * A folder's one spelling, whether it exists yet or not: its real path (symbolic links resolved), or that of its
 * nearest existing ancestor followed by the rest. What a site's build record is named after: the same folder reached
 * through a link is then the same site, not a second one whose record never learns what the first wrote.
 */
export function canonicalFolder(dir: string): string {
  const missing: string[] = [];
  for (let at = path.resolve(dir); ; at = path.dirname(at)) {
    try {
      return path.join(realpathSync(at), ...missing.reverse());
    } catch {
      if (path.dirname(at) === at) return path.resolve(dir);
      missing.push(path.basename(at));
    }
  }
}

/**
 * A short name for a folder that is the same however the folder is spelled or reached (a digest of its
 * canonicalFolder): what the data directory keys a site's own files by (its build's mark, its search's state).
 */
export function folderDigest(dir: string): string {
  return createHash('sha256').update(canonicalFolder(dir)).digest('hex').slice(0, 16);
}
