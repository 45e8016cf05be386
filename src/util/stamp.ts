import { statSync } from 'node:fs';
import path from 'node:path';

const MISSING_IS_UNDEFINED = { throwIfNoEntry: false } as const;

/**
 * A file's `size:mtimeMs:inode`, or undefined when it is missing: the one way this project tells that a file
 * changed. The inode is part of it so that a file replaced by another with the same size and mtime still counts
 * as changed. Synchronous: a warm collect or a build stats thousands of files, and a `statSync` of a cached
 * inode costs a few microseconds where a promise's round trip through the thread pool costs tens.
 */
export function fileStamp(file: string): string | undefined {
  if (held) {
    if (held.has(file)) return held.get(file) as string | undefined;
    const stamp = takeStamp(file);
    held.set(file, stamp);
    return stamp;
  }
  return takeStamp(file);
}

let held: Map<string, unknown> | undefined;
/** The stamps of the last `epoch`, held again by its next work. */
let kept: { epoch: string; stamps: Map<string, unknown> } | undefined;

/**
 * Runs `work` with each file stamped once (fileStamp), and each value `heldOnce` is asked for worked out once, for
 * work during which nothing writes what it stamps: a render worker's task (the build holds the archive's lock).
 * Its pages ask for the same body's, index's and repository's stamps many times each. Works of one `epoch` (the
 * tasks of one build) share what they stamped: each task of a first build stat'ed the archive's index files and
 * walked up from every project's folder to its repository again.
 */
export async function withStampsHeld<T>(work: () => Promise<T>, epoch?: string): Promise<T> {
  if (held) return work();
  if (epoch === undefined) kept = undefined;
  else if (kept?.epoch !== epoch) kept = { epoch, stamps: new Map() };
  held = kept?.stamps ?? new Map();
  try {
    return await work();
  } finally {
    held = undefined;
  }
}

/** `compute()`, worked out once for `key` while stamps are held (withStampsHeld), else every time. */
export function heldOnce<T>(key: string, compute: () => T): T {
  if (!held) return compute();
  const name = `\0${key}`;
  if (held.has(name)) return held.get(name) as T;
  const value = compute();
  held.set(name, value);
  return value;
}

function takeStamp(file: string): string | undefined {
  if (rawStat === undefined) {
    const stamp = statStamp(file);
    if (stamp !== undefined) rawStat = checkedRawStat(file, stamp);
    return stamp;
  }
  if (rawStat && !file.includes('\0')) return rawStamp(rawStat(path.toNamespacedPath(file)));
  return statStamp(file);
}

function statStamp(file: string): string | undefined {
  const stat = statSync(file, MISSING_IS_UNDEFINED);
  return stat && `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}

function rawStamp(values: Float64Array | undefined): string | undefined {
  return values && `${values[SIZE]}:${values[MTIME_S]! * 1e3 + values[MTIME_NS]! / 1e6}:${values[INO]}`;
}

/** stat(2) as Node's own fs binding returns it: the numbers of a Stats in a reused Float64Array, or undefined
 * for a missing file (other errors throw, as statSync's do). */
type RawStat = (file: string) => Float64Array | undefined;

/** The fields of a RawStat, in the order Node's `getStatsFromBinding` reads them. */
const INO = 7;
const SIZE = 8;
const MTIME_S = 12;
const MTIME_NS = 13;

/** undefined: not tried yet (it is tried on the first file that exists); false: statSync it is. */
let rawStat: RawStat | false | undefined;

/**
 * `statSync` builds a Stats object with four Dates for every file, which on a warm collect (thousands of stats in
 * a process that lives half a second, its code never optimized) costs about twice the stat itself, and all of it
 * garbage. Node's fs binding gives the same numbers without them (`mtimeMs` by the same sum as Node's
 * `msFromTimeSpec`, so stamps are the same strings). It is internal: it is used only where it exists, answers
 * with a Float64Array, and gives the same stamp as statSync for the first file that exists; else, and when
 * `--pending-deprecation` would print a warning about it (DEP0111), statSync does every stat.
 */
function checkedRawStat(file: string, expected: string): RawStat | false {
  try {
    const options = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
    if (options.includes('deprecation')) return false;
    const binding = (process as unknown as { binding?: (name: string) => { stat?: unknown } }).binding?.('fs');
    const stat = binding?.stat;
    if (typeof stat !== 'function') return false;
    const raw: RawStat = (f) => (stat as (...args: unknown[]) => Float64Array | undefined)(f, false, undefined, false);
    const values = raw(path.toNamespacedPath(file));
    if (!(values instanceof Float64Array) || values.length < 14) return false;
    return rawStamp(values) === expected ? raw : false;
  } catch {
    return false;
  }
}

/** The stamps of several files in one string, `-` for a missing one: a key that changes when any of them does. */
export function fileStamps(files: readonly string[]): string {
  return files.map((file) => fileStamp(file) ?? '-').join(' ');
}

/** The bytes a stamp of one or more files counts (the sum of their sizes). */
export function stampedBytes(stamp: string): number {
  let bytes = 0;
  for (const one of stamp.split(' ')) bytes += Number(one.slice(0, one.indexOf(':'))) || 0;
  return bytes;
}
