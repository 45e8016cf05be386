import { TZDate } from '@date-fns/tz';
import { searchLogbook, type SearchFilters, type SearchHit } from './query.ts';
import { announceIndexing, ensureSearchIndex } from './sync.ts';

export interface SearchCommand extends SearchFilters {
  dataDir: string;
  query: string;
  json: boolean;
  /** No word on bringing the index up to date (the hits, or that there are none, still print). */
  quiet?: boolean;
}

/** `agent-logbook search`: brings the index up to date, then prints one line per hit (or a JSON array). */
export async function runSearch(
  command: SearchCommand,
  io: { stdout: (t: string) => void; stderr: (t: string) => void },
): Promise<void> {
  await ensureSearchIndex(command.dataDir, { onStart: command.quiet ? undefined : announceIndexing(io.stderr) });
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
  // By hand rather than with date-fns' format, whose locale machinery is most of the command's start-up.
  const at = new TZDate(Date.parse(hit.timestamp), timeZone);
  const two = (n: number) => String(n).padStart(2, '0');
  const time = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
  return [time, hit.source, hit.projectName, hit.sessionId, hit.kind, hit.snippet, hit.route].join('  ');
}
