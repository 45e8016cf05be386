/** The event `serve --watch`'s reload script dispatches on `window` once the site's search index has been written
 * again after the pages (they reload before it): the search box then loads the index afresh on its next query. */
export const SEARCH_INDEX_CHANGED = 'agent-logbook:search-index';
