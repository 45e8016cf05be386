import { type FSWatcher, promises as fs, statSync, unwatchFile, watch, watchFile } from 'node:fs';
import path from 'node:path';

/** How often a file (an SQLite database and its WAL) or a directory without file events is looked at. */
const FILE_POLL_MS = 500;
const DIRECTORY_POLL_MS = 2000;

export interface SourceWatcher {
  /** Watches these locations from now on (the sources a collect found), and stops watching the others. */
  update(locations: string[]): void;
  /** Stops watching for good: a later `update` (a rebuild that ends after Ctrl-C) watches nothing. */
  close(): void;
}

/**
 * Calls `onChange` when anything under the given locations changes. A directory is watched with
 * recursive file-system events, or polled (a walk comparing sizes and mtimes) where those are not
 * available; a file such as an SQLite database is polled by size and mtime, with its `-wal` file, since
 * a database written through its WAL may not touch the main file at all. Paths under `ignore` (the data
 * and output directories) never count.
 */
export function watchSources(onChange: () => void, ignore: string[]): SourceWatcher {
  const active = new Map<string, () => void>();
  let closed = false;
  const ignored = (file: string) => ignore.some((dir) => file === dir || file.startsWith(`${dir}${path.sep}`));
  const watchLocation = (location: string): (() => void) => {
    let isDirectory = false;
    try {
      isDirectory = statSync(location).isDirectory();
    } catch {
      // Not there yet: polled like a file, so its creation counts.
    }
    if (isDirectory) {
      let watcher: FSWatcher | undefined;
      try {
        watcher = watch(location, { recursive: true }, (_event, name) => {
          if (!name || !ignored(path.join(location, name.toString()))) onChange();
        });
        watcher.on('error', () => undefined);
        return () => watcher?.close();
      } catch {
        return pollDirectory(location, onChange, ignored);
      }
    }
    const files = [location, `${location}-wal`];
    const listener = (now: { mtimeMs: number; size: number }, before: { mtimeMs: number; size: number }) => {
      if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) onChange();
    };
    for (const file of files) watchFile(file, { interval: FILE_POLL_MS, persistent: false }, listener);
    return () => files.forEach((file) => unwatchFile(file, listener));
  };
  return {
    update(locations) {
      if (closed) return;
      const wanted = new Set(locations.map((l) => path.resolve(l)));
      for (const [location, stop] of active) {
        if (!wanted.has(location)) (stop(), active.delete(location));
      }
      for (const location of wanted) if (!active.has(location)) active.set(location, watchLocation(location));
    },
    close() {
      closed = true;
      for (const stop of active.values()) stop();
      active.clear();
    },
  };
}

function pollDirectory(dir: string, onChange: () => void, ignored: (file: string) => boolean): () => void {
  let last: string | undefined;
  let stopped = false;
  const look = async () => {
    const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
    const parts: string[] = [];
    for (const entry of entries) {
      const file = path.join(entry.parentPath, entry.name);
      if (!entry.isFile() || ignored(file)) continue;
      const stat = await fs.stat(file).catch(() => undefined);
      if (stat) parts.push(`${file}:${stat.size}:${stat.mtimeMs}`);
    }
    const signature = parts.sort().join('\n');
    if (!stopped && last !== undefined && signature !== last) onChange();
    last = signature;
  };
  const timer = setInterval(() => void (stopped || look()), DIRECTORY_POLL_MS);
  timer.unref();
  void look();
  return () => {
    stopped = true;
    clearInterval(timer);
  };
}

/**
 * Runs `task` when asked, one run at a time: a request during a run queues exactly one more run after it,
 * however many requests come in meanwhile. Requests are gathered for `settleMs` first, as one append to a
 * transcript comes as several file events.
 */
export class RebuildQueue {
  private running: Promise<void> | undefined;
  private pending = false;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly task: () => Promise<void>,
    private readonly settleMs = 100,
  ) {}

  request(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.running) this.pending = true;
      else this.running = this.loop();
    }, this.settleMs);
  }

  private async loop(): Promise<void> {
    try {
      do {
        this.pending = false;
        // The task reports its own failures; a failed run must not stop the next.
        await this.task().catch(() => undefined);
      } while (this.pending && !this.stopped);
    } finally {
      this.running = undefined;
    }
  }

  /** Whether a run is in progress. */
  get busy(): boolean {
    return this.running !== undefined;
  }

  /** Stops for good: waits for the run in progress only; a run queued after it, a request still gathering and every
   * later request are dropped. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.pending = false;
    if (this.timer) (clearTimeout(this.timer), (this.timer = undefined));
    await this.running;
  }
}
