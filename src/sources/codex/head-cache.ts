import path from 'node:path';
import { readJsonFile, writeFileAtomic } from '../../util/fs.ts';
import { fileStamp } from '../../util/stamp.ts';

/** What a rollout's first line says: enough to put it in its tree without reading it. */
export interface RolloutHead {
  id: string;
  cwd?: string;
  forkedFrom?: string;
  subagent?: { type: string; nickname?: string; parent?: string };
}

interface CacheFile {
  version: number;
  /** rollout file → the stamp it had when its head was read, and the head */
  heads: Record<string, { stamp: string; head: RolloutHead }>;
}

const VERSION = 1;

/**
 * The heads of the rollouts a collect saw, by file and stamp (`<data>/cache/codex-heads.json`, derived data):
 * a warm collect of hundreds of rollouts would otherwise open and read the first 64 KB of every one of them
 * to rebuild the fork and subagent trees. A file whose stamp changed is read again; one no longer listed is
 * forgotten when the cache is saved.
 */
export class RolloutHeadCache {
  private readonly seen = new Set<string>();
  private changed = false;

  private constructor(
    private readonly file: string | undefined,
    private readonly heads: CacheFile['heads'],
  ) {}

  /** The cache of a data directory; without one (a rollout read on its own) nothing is kept. */
  static async open(dataDir: string | undefined): Promise<RolloutHeadCache> {
    const file = dataDir === undefined ? undefined : path.join(dataDir, 'cache', 'codex-heads.json');
    const cached = file === undefined ? undefined : await readJsonFile<CacheFile>(file).catch(() => undefined);
    return new RolloutHeadCache(file, cached?.version === VERSION && cached.heads ? cached.heads : {});
  }

  /** The cached head of `file` while the file is unchanged (synchronous: a warm collect asks for hundreds). */
  cached(file: string): RolloutHead | undefined {
    const cached = this.heads[file];
    if (cached === undefined) return undefined;
    this.seen.add(file);
    return cached.stamp === fileStamp(file) ? cached.head : undefined;
  }

  /** The head of `file`: the cached one while the file is unchanged, else `read` (undefined: unreadable, not kept). */
  async head(file: string, read: () => Promise<RolloutHead | undefined>): Promise<RolloutHead | undefined> {
    this.seen.add(file);
    const stamp = fileStamp(file);
    const cached = this.heads[file];
    if (stamp !== undefined && cached?.stamp === stamp) return cached.head;
    const head = await read();
    if (head && stamp !== undefined) {
      this.heads[file] = { stamp, head };
      this.changed = true;
    } else if (cached) {
      delete this.heads[file];
      this.changed = true;
    }
    return head;
  }

  /** Writes the cache when a head was read or a file is gone. */
  async save(): Promise<void> {
    for (const file of Object.keys(this.heads)) {
      if (this.seen.has(file)) continue;
      delete this.heads[file];
      this.changed = true;
    }
    if (!this.changed || this.file === undefined) return;
    await writeFileAtomic(this.file, JSON.stringify({ version: VERSION, heads: this.heads } satisfies CacheFile));
    this.changed = false;
  }
}
