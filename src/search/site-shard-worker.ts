import { parentPort } from 'node:worker_threads';
import { serveTasks } from '../util/worker-pool.ts';
import { type ShardJob, type ShardWritten, writeShard } from './site-shard.ts';

export type ShardTask = ShardJob;
export type ShardTaskResult = ({ ok: true } & ShardWritten) | { ok: false; error: string };

// Writes shards of the site index, one at a time. Each worker thread has its own Pagefind indexer process
// (the module keeps one per instance), so shards are indexed on every core.
serveTasks<ShardTask, ShardTaskResult>(parentPort!, async (job) => {
  try {
    return { ok: true, ...(await writeShard(job)) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
});
