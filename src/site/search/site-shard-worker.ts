import { runSiteSearchTask } from './site-shard.ts';

// Reads sessions' texts from the archive and writes shards of the site index, one task at a time. Each
// worker thread has its own Pagefind indexer process (the module keeps one per instance), so shards are
// indexed on every core.
export default runSiteSearchTask;
