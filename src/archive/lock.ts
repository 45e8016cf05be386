import { createHash, randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive } from '../util/temp-files.ts';

/** The lock file in the data directory while a collect writes to it. */
export const LOCK_FILE = 'collect.lock';

/** How long a second collect waits for the first by default (AGENT_LOGBOOK_LOCK_WAIT, seconds, overrides). */
export const DEFAULT_LOCK_WAIT_MS = 10 * 60 * 1000;
const POLL_MS = 200;

/** The wait AGENT_LOGBOOK_LOCK_WAIT asks for (seconds), in ms; undefined when unset or not a number. */
export function lockWaitFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  const seconds = Number(env.AGENT_LOGBOOK_LOCK_WAIT);
  return env.AGENT_LOGBOOK_LOCK_WAIT !== undefined && env.AGENT_LOGBOOK_LOCK_WAIT !== '' && seconds >= 0
    ? seconds * 1000
    : undefined;
}
/** A lock file still empty after this long was left by a process killed between creating and writing it. */
const EMPTY_LOCK_STALE_MS = 10_000;

interface LockOwner {
  pid: number;
  host: string;
  started: string;
}

export class DataDirBusyError extends Error {}

export interface DataDirLock {
  /** The previous holder died without releasing it (killed, or the machine stopped): its writes may be
   * unfinished, so the caller checks the archive (see recover.ts). */
  tookOverStale: boolean;
  release(): Promise<void>;
}

/**
 * Takes the data directory's lock: one collect writes to an archive at a time. A second one waits, saying so
 * once through `onWait`, and after `waitMs` fails with a message naming the holder; a lock whose process is
 * gone (same host, dead pid) is taken over.
 */
export async function lockDataDir(
  root: string,
  options: { onWait?: (message: string) => void; waitMs?: number } = {},
): Promise<DataDirLock> {
  const file = path.join(root, LOCK_FILE);
  const waitMs = options.waitMs ?? DEFAULT_LOCK_WAIT_MS;
  const me: LockOwner = { pid: process.pid, host: os.hostname(), started: new Date().toISOString() };
  const began = Date.now();
  let told = false;
  const held = (tookOverStale: boolean): DataDirLock => ({
    tookOverStale,
    release: async () => {
      // Only our own lock: never one a later run took over.
      const owner = await readOwner(file);
      if (owner?.pid === me.pid && owner.started === me.started) await fs.rm(file, { force: true });
    },
  });
  await fs.mkdir(root, { recursive: true });
  for (;;) {
    try {
      await fs.writeFile(file, `${JSON.stringify(me)}\n`, { flag: 'wx' });
      return held(false);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const seen = await readLock(file);
    const owner = seen?.owner;
    if (seen && (await isStale(file, owner))) {
      if (await takeOver(file, seen, me)) return held(true);
      // Another waiter is taking it over: look again once it has (in milliseconds), to wait for the new holder.
      await new Promise((resolve) => setTimeout(resolve, 10));
      continue;
    }
    const waited = Date.now() - began;
    const who = owner
      ? `another agent-logbook (pid ${owner.pid}${owner.host !== me.host ? ` on ${owner.host}` : ''}, started ${owner.started})`
      : 'another agent-logbook';
    if (waited >= waitMs) {
      throw new DataDirBusyError(
        `${root} is in use by ${who}; gave up after ${Math.round(waited / 1000)}s. Run again when it has finished` +
          ` (or, if no such process is running, delete ${file})`,
      );
    }
    if (!told) {
      options.onWait?.(`Waiting for ${who} to finish with ${root} …`);
      told = true;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, Math.max(1, waitMs - waited))));
  }
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  return (await readLock(file))?.owner;
}

/** The lock file as found: its owner if it names one, and what tells this very file from any later one. */
interface SeenLock {
  owner?: LockOwner;
  identity: string;
}

async function readLock(file: string): Promise<SeenLock | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  let owner: LockOwner | undefined;
  try {
    const parsed = JSON.parse(text) as LockOwner;
    if (typeof parsed?.pid === 'number') owner = parsed;
  } catch {
    // Empty or torn: a creator killed before it wrote (stale once old enough, see isStale).
  }
  if (owner) return { owner, identity: `${owner.host}:${owner.pid}:${owner.started}` };
  const stat = await fs.stat(file).catch(() => undefined);
  return stat ? { identity: `empty:${stat.ino}:${stat.mtimeMs}:${text.length}` } : undefined;
}

async function isStale(file: string, owner: LockOwner | undefined): Promise<boolean> {
  if (!owner) {
    const stat = await fs.stat(file).catch(() => undefined);
    return stat !== undefined && Date.now() - stat.mtimeMs > EMPTY_LOCK_STALE_MS;
  }
  // A lock from another machine (a data dir on a shared disk) cannot be checked: it is waited for.
  if (owner.host !== os.hostname()) return false;
  return !isProcessAlive(owner.pid);
}

/**
 * Replaces the stale lock `seen` with ours, atomically: of all the waiters that found the same stale lock,
 * one only. A marker named after the stale lock is created exclusively first; its creator checks the lock
 * is still that stale one (only a marker holder changes a dead holder's file, so it cannot change after)
 * and renames its own lock file over it, so there is no moment without a lock for another to create.
 * False when another waiter is taking it over or already has.
 */
async function takeOver(file: string, seen: SeenLock, me: LockOwner): Promise<boolean> {
  const tag = createHash('sha1').update(seen.identity).digest('hex').slice(0, 16);
  const marker = `${file}.takeover-${tag}`;
  try {
    await fs.writeFile(marker, `${JSON.stringify(me)}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A takeover lasts milliseconds: a marker this old was left by a waiter killed in the middle of one.
    const stat = await fs.stat(marker).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > EMPTY_LOCK_STALE_MS) await fs.rm(marker, { force: true });
    return false;
  }
  try {
    if ((await readLock(file))?.identity !== seen.identity) return false;
    const mine = `${file}.${me.pid}-${randomBytes(4).toString('hex')}.tmp`;
    await fs.writeFile(mine, `${JSON.stringify(me)}\n`);
    await fs.rename(mine, file);
    return true;
  } finally {
    await fs.rm(marker, { force: true });
  }
}
