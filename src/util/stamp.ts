import { statSync } from 'node:fs';

const MISSING_IS_UNDEFINED = { throwIfNoEntry: false } as const;

/**
 * A file's `size:mtimeMs:inode`, or undefined when it is missing: the one way this project tells that a file
 * changed. The inode is part of it so that a file replaced by another with the same size and mtime still counts
 * as changed. Synchronous: a warm collect or a build stats thousands of files, and a `statSync` of a cached
 * inode costs a few microseconds where a promise's round trip through the thread pool costs tens.
 */
export function fileStamp(file: string): string | undefined {
  const stat = statSync(file, MISSING_IS_UNDEFINED);
  return stat && `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
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
