/**
 * Parsed files shared by the readers of one process. A site build reads the archive's session index (tens of MB
 * of JSON in a heavy history) for its Markdown pass and search, and the site renderer, a bundle of its own loaded in
 * the same process, reads it again for the pages: the second finds the first's parse here. So the registry lives
 * on `globalThis`, which both bundles' copies of this module see.
 *
 * A value is frozen, deeply: every reader gets the same objects, and one that wrote into them would change what
 * the others read (a reader that needs to change one copies it). It is held weakly, so that a long-lived process
 * (the MCP server, `serve --watch`) keeps it only while some reader does, and only for the stamp it was read at.
 * A worker thread has a `globalThis` of its own, which no other reader sees: there a value is parsed and neither
 * frozen nor kept (freezing a heavy history's index costs each render worker of a first build for nothing).
 */

import { isMainThread } from 'node:worker_threads';

const REGISTRY = Symbol.for('agent-logbook.shared-parse');

interface Entry {
  stamp: string;
  value: WeakRef<object>;
}

function registry(): Map<string, Entry> {
  const holder = globalThis as { [REGISTRY]?: Map<string, Entry> };
  return (holder[REGISTRY] ??= new Map());
}

/** The value of `file` as it was when stamped `stamp`: another reader's, if one in this process still holds it,
 * else `parse()`'s, frozen and offered to the next. Without a stamp (a missing file), or in a worker thread,
 * `parse()`'s, not shared. */
export function sharedParse<T extends object>(file: string, stamp: string | undefined, parse: () => T): Readonly<T> {
  if (stamp === undefined || !isMainThread) return parse();
  return heldValue<T>(file, stamp) ?? offer(file, stamp, parse());
}

/** Async `sharedParse`. */
export async function sharedParseAsync<T extends object>(
  file: string,
  stamp: string | undefined,
  parse: () => Promise<T>,
): Promise<Readonly<T>> {
  if (stamp === undefined || !isMainThread) return parse();
  return heldValue<T>(file, stamp) ?? offer(file, stamp, await parse());
}

/** Another reader's value of `file` at `stamp`, while one holds it. */
function heldValue<T>(file: string, stamp: string): T | undefined {
  const entry = registry().get(file);
  return entry?.stamp === stamp ? (entry.value.deref() as T | undefined) : undefined;
}

/** `value`, frozen and offered to the next reader of `file` at `stamp` (unless one offered its own meanwhile). */
function offer<T extends object>(file: string, stamp: string, value: T): T {
  const held = heldValue<T>(file, stamp);
  if (held) return held;
  registry().set(file, { stamp, value: new WeakRef(deepFreeze(value)) });
  return value;
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
