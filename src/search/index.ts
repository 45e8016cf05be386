/** Full-text search over the data directory (CLI, MCP): see store.ts for the index, query.ts for matching. */
export { ensureSearchIndex, type SearchIndexUpdate } from './sync.ts';
export { parseQuery, searchLogbook, type SearchFilters, type SearchHit } from './query.ts';
export type { SearchKind } from '../model/search-text.ts';
export { searchIndexPath, SEARCH_SCHEMA_VERSION } from './store.ts';
