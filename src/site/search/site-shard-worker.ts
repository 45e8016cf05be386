import { parentPort } from 'node:worker_threads';
import { serveTasks } from '../../util/worker-pool.ts';
import { runSiteSearchTask, type SiteSearchTask, type SiteSearchTaskResult } from './site-shard.ts';

// Reads sessions' texts from the archive and writes shards of the site index, one task at a time. Each
// worker thread has its own Pagefind indexer process (the module keeps one per instance), so shards are
// indexed on every core.
serveTasks<SiteSearchTask, SiteSearchTaskResult>(parentPort!, runSiteSearchTask);
