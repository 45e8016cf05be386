import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** The lock file in the data directory while a collect writes to it. */
export const LOCK_FILE = 'collect.lock';

/** How long a second collect waits for the first by default (AGENT_LOGBOOK_LOCK_WAIT, seconds, overrides). */
export const DEFAULT_LOCK_WAIT_MS = 10 * 60 * 1000;
const POLL_MS = 200;
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
  let tookOverStale = false;
  await fs.mkdir(root, { recursive: true });
  for (;;) {
    try {
      await fs.writeFile(file, `${JSON.stringify(me)}\n`, { flag: 'wx' });
      return {
        tookOverStale,
        release: async () => {
          // Only our own lock: never one a later run took over.
          const owner = await readOwner(file);
          if (owner?.pid === me.pid && owner.started === me.started) await fs.rm(file, { force: true });
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const owner = await readOwner(file);
    if (await isStale(file, owner)) {
      // Removed only if it is still the same stale file (another waiter may have taken it over already).
      if (await removeIfUnchanged(file, owner)) tookOverStale = true;
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
  try {
    const owner = JSON.parse(await fs.readFile(file, 'utf8')) as LockOwner;
    return typeof owner?.pid === 'number' ? owner : undefined;
  } catch {
    return undefined;
  }
}

async function isStale(file: string, owner: LockOwner | undefined): Promise<boolean> {
  if (!owner) {
    const stat = await fs.stat(file).catch(() => undefined);
    return stat !== undefined && Date.now() - stat.mtimeMs > EMPTY_LOCK_STALE_MS;
  }
  // A lock from another machine (a data dir on a shared disk) cannot be checked: it is waited for.
  if (owner.host !== os.hostname()) return false;
  return !isAlive(owner.pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function removeIfUnchanged(file: string, owner: LockOwner | undefined): Promise<boolean> {
  const now = await readOwner(file);
  if (now?.pid !== owner?.pid || now?.started !== owner?.started) return false;
  await fs.rm(file, { force: true });
  return true;
}
