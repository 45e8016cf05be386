import { createHash } from 'node:crypto';

/**
 * The one mapping from an id we do not control (a session id, a conversation id, a file name) to a file
 * name or URL path segment. Every file in the data directory and every site route made from an id goes
 * through it, so that:
 * - it is injective: bytes outside `[a-z0-9._-]` (upper-case letters included, for case-insensitive file
 *   systems) are written `~HH` with upper-case hex, and `~` itself is escaped, so two ids never share a name,
 *   even where the file system folds case;
 * - it is safe: no `/`, no `\`, no control character, never `.` or `..`, never a leading dot;
 * - it is bounded: a name longer than MAX_SEGMENT bytes keeps a readable head and ends in `~~` and a
 *   128-bit hash of the whole id (`~~` never occurs in an unshortened name), leaving room under the
 *   255-byte limit of a file name for suffixes such as `.messages.jsonl` and temp-file tags;
 * - it is readable where the id is already safe: a UUID maps to itself.
 */
export const MAX_SEGMENT = 160;
const HASH_HEX = 32;
const SAFE = /^[a-z0-9_-][a-z0-9._-]*$/;

export function idToPathSegment(id: string): string {
  if (id.length > 0 && id.length <= MAX_SEGMENT && SAFE.test(id)) return id;
  if (id.length === 0) return '~';
  let out = '';
  const bytes = Buffer.from(id, 'utf8');
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    const literal =
      (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) || b === 0x5f || b === 0x2d || (b === 0x2e && i > 0);
    out += literal ? String.fromCharCode(b) : `~${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  if (out.length <= MAX_SEGMENT) return out;
  const hash = createHash('sha256').update(id, 'utf8').digest('hex').slice(0, HASH_HEX);
  let head = out.slice(0, MAX_SEGMENT - HASH_HEX - 2);
  // Never cut an escape in half: a head ending in `~` or `~H` would read as part of the `~~` marker.
  const tilde = head.lastIndexOf('~');
  if (tilde >= head.length - 2) head = head.slice(0, tilde);
  return `${head}~~${hash}`;
}

/** `<source>/<segment>`: where a session lives, as a relative path and as a URL path. */
export function sessionPathKey(source: string, sessionId: string): string {
  return `${source}/${idToPathSegment(sessionId)}`;
}

/** Splits a summary key `<source>/<sessionId>` (source names hold no `/`; the id may). */
export function splitSessionKey(key: string): { source: string; sessionId: string } {
  const slash = key.indexOf('/');
  return slash === -1
    ? { source: '', sessionId: key }
    : { source: key.slice(0, slash), sessionId: key.slice(slash + 1) };
}
