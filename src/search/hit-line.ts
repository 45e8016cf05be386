import { TZDate } from '@date-fns/tz';
import type { SearchHit } from './query.ts';

/** `2026-03-04 11:00  claude-code  日本語  <session id>  answer  …snippet with «match»…  sessions/…#m1` */
export function hitLine(hit: SearchHit, timeZone: string): string {
  // By hand rather than with date-fns' format, whose locale machinery is most of the command's start-up.
  const at = new TZDate(Date.parse(hit.timestamp), timeZone);
  const two = (n: number) => String(n).padStart(2, '0');
  const time = `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
  return [time, hit.source, hit.projectName, hit.sessionId, hit.kind, hit.snippet, hit.route].join('  ');
}
