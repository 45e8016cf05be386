import { parentPort } from 'node:worker_threads';
import { serveTasks } from '../util/worker-pool.ts';
import {
  type ReadJob,
  type ReadResult,
  readTexts,
  type ShardJob,
  type ShardWritten,
  writeShard,
} from './site-shard.ts';

export type SiteSearchTask = ({ type: 'read' } & ReadJob) | ({ type: 'shard' } & ShardJob);
export type SiteSearchTaskResult =
  | { ok: true; type: 'read'; texts: ReadResult }
  | ({ ok: true; type: 'shard' } & ShardWritten)
  | { ok: false; error: string };

// Reads sessions' texts from the archive and writes shards of the site index, one task at a time. Each
// worker thread has its own Pagefind indexer process (the module keeps one per instance), so shards are
// indexed on every core.
serveTasks<SiteSearchTask, SiteSearchTaskResult>(parentPort!, async (task) => {
  try {
    if (task.type === 'read') return { ok: true, type: 'read', texts: await readTexts(task) };
    return { ok: true, type: 'shard', ...(await writeShard(task)) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
});
