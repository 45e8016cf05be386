import { hitLine } from '../search/hit-line.ts';
import { countHits, searchLogbook, type SearchFilters } from '../search/query.ts';
import { announceIndexing, ensureSearchIndex } from '../search/sync.ts';
import { countLabel } from '../util/format.ts';
import type { CliIo } from './io.ts';

export interface SearchRun extends SearchFilters {
  dataDir: string;
  query: string;
  json: boolean;
  /** Say when the index is being brought up to date (a long wait). */
  announce: boolean;
  /** Only the hits: no count of them in all. */
  quiet?: boolean;
}

/**
 * `search`: the hits on stdout, one line each (or a JSON array); on stderr, after them, how many hits there
 * are in all and how to see more. The lines show at most `perSession` hits of a session; JSON only when asked.
 */
export async function printSearch(run: SearchRun, io: CliIo): Promise<void> {
  await ensureSearchIndex(run.dataDir, { onStart: run.announce ? announceIndexing(io.stderr) : undefined });
  const hits = await searchLogbook(run.dataDir, run.query, run);
  if (run.json) {
    io.stdout(`${JSON.stringify(hits, null, 2)}\n`);
    return;
  }
  if (hits.length === 0) {
    io.stderr(`No match for ${JSON.stringify(run.query)}.\n`);
    return;
  }
  for (const hit of hits) io.stdout(`${hitLine(hit, run.timeZone)}\n`);
  if (run.quiet) return;
  const all = await countHits(run.dataDir, run.query, run);
  io.stderr(`${searchSummary(hits.length, all, run)}\n`);
}

/** `20 of 814 hits in 37 sessions (at most 3 per session); for more: --limit N, --per-session N or --session ID.` */
function searchSummary(shown: number, all: { hits: number; sessions: number; more: boolean }, run: SearchRun): string {
  const inAll = all.more
    ? `over ${countLabel(all.hits, 'hit')} in at least ${countLabel(all.sessions, 'session')}`
    : `${countLabel(all.hits, 'hit')} in ${countLabel(all.sessions, 'session')}`;
  if (shown >= all.hits && !all.more) return `${inAll}.`;
  const capped = run.perSession !== undefined;
  const more = [...(shown === run.limit ? ['--limit N'] : []), ...(capped ? ['--per-session N', '--session ID'] : [])];
  const list = more.length > 1 ? `${more.slice(0, -1).join(', ')} or ${more.at(-1)}` : more.join('');
  return (
    `${shown} of ${inAll}${capped ? ` (at most ${run.perSession} per session)` : ''}` +
    `${list ? `; for more: ${list}` : ''}.`
  );
}
