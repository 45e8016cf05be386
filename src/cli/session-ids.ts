import { DataDir } from '../archive/data-dir.ts';
import { UsageError } from './options.ts';

/** What a session is known by: its key `<source>/<sessionId>`, and its id. */
export interface SessionName {
  id: string;
  sessionId: string;
}

const CANDIDATES_SHOWN = 10;

/**
 * The key of the one session `wanted` names: its key or id in full, else the start of either (the site shows
 * an id's first eight characters). No match, or a start several sessions share, is a usage error that lists
 * them.
 */
export function resolveSessionKey(sessions: readonly SessionName[], wanted: string, dataDir: string): string {
  const exact = sessions.filter((s) => s.id === wanted || s.sessionId === wanted);
  if (exact.length === 1) return exact[0]!.id;
  const found =
    exact.length > 1 ? exact : sessions.filter((s) => s.id.startsWith(wanted) || s.sessionId.startsWith(wanted));
  if (found.length === 1) return found[0]!.id;
  if (found.length === 0) {
    throw new UsageError(`no session "${wanted}" in ${dataDir} (give <source>/<session-id>, an id, or its start)`);
  }
  const keys = found.map((s) => s.id).sort();
  const more = keys.length > CANDIDATES_SHOWN ? ` and ${keys.length - CANDIDATES_SHOWN} more` : '';
  throw new UsageError(
    `"${wanted}" is the start of ${keys.length} sessions: ${keys.slice(0, CANDIDATES_SHOWN).join(', ')}${more}; ` +
      'give more of the id',
  );
}

/** resolveSessionKey for each of `wanted`, over the sessions of a data directory. */
export async function resolveSessionKeys(dataDir: string, wanted: readonly string[]): Promise<string[]> {
  const sessions = await new DataDir(dataDir).readSummaries();
  return wanted.map((w) => resolveSessionKey(sessions, w, dataDir));
}
