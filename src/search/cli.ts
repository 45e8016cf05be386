import { tz } from '@date-fns/tz';
import { format } from 'date-fns/format';
import { searchLogbook, type SearchFilters, type SearchHit } from './query.ts';
import { announceIndexing, ensureSearchIndex } from './sync.ts';

export interface SearchCommand extends SearchFilters {
  dataDir: string;
  query: string;
  json: boolean;
}

/** `agent-logbook search`: brings the index up to date, then prints one line per hit (or a JSON array). */
export async function runSearch(
  command: SearchCommand,
  io: { stdout: (t: string) => void; stderr: (t: string) => void },
): Promise<void> {
  await ensureSearchIndex(command.dataDir, { onStart: announceIndexing(io.stderr) });
  const hits = await searchLogbook(command.dataDir, command.query, command);
  if (command.json) {
    io.stdout(`${JSON.stringify(hits, null, 2)}\n`);
    return;
  }
  if (hits.length === 0) {
    io.stderr(`No match for ${JSON.stringify(command.query)}.\n`);
    return;
  }
  for (const hit of hits) io.stdout(`${hitLine(hit, command.timeZone)}\n`);
}

/** `2026-03-04 11:00  claude-code  日本語  <session id>  answer  …snippet with «match»…  sessions/…#m1` */
export function hitLine(hit: SearchHit, timeZone: string): string {
  const time = format(new Date(hit.timestamp), 'yyyy-MM-dd HH:mm', { in: tz(timeZone) });
  return [time, hit.source, hit.projectName, hit.sessionId, hit.kind, hit.snippet, hit.route].join('  ');
}
