import type { Session } from '../../model/session.ts';
import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
// Types only: the readers and normalizers are loaded when a database or session is to be read (a collect that
// finds nothing changed loads neither).
import type { Copy } from './db-copies.ts';
import type { KiroSession } from './kiro-sessions.ts';
import { listKiroPairs, pairFiles, type KiroPair } from './kiro-paths.ts';
import { candidateExports, kiroDirsIn, locateAmazonQ } from './paths.ts';
import type { ReadDatabaseOptions } from './reader.ts';

/**
 * Amazon Q Developer CLI and Kiro CLI (FORMATS.md §3, docs/formats/kiro.md): `data.sqlite3` rows
 * (`conversations`: one per directory, overwritten by every new `q chat` there; Kiro's `conversations_v2`: one
 * per conversation), `/save` exports, and Kiro CLI's own sessions (`~/.kiro/sessions/cli/<id>.jsonl` + `.json`).
 * Each conversation is yielded once, from its freshest copy; the collector's archive keeps every
 * `conversation_id` ever seen, so conversations Q overwrites stay on the site.
 */
export function createAmazonQSource(readOptions: ReadDatabaseOptions = {}): Source {
  return {
    id: 'amazon-q',
    label: 'Amazon Q / Kiro CLI',
    locate: locateAmazonQ,
    read: (location, ctx) => readAmazonQ(location, ctx, readOptions),
  };
}

export const amazonQ: Source = createAmazonQSource();

async function* readAmazonQ(
  location: SourceLocation,
  ctx: SourceContext,
  readOptions: ReadDatabaseOptions,
): AsyncGenerator<SourceItem> {
  const sessionDirs = kiroDirsIn(location.found, ctx);
  const dirSet = new Set(sessionDirs);
  const stores = location.found.filter((f) => !dirSet.has(f));
  const pairs: KiroPair[] = [];
  for (const dir of sessionDirs) pairs.push(...(await listKiroPairs(dir, ctx.warn)));

  // Each Kiro session is re-read only when its own two files changed.
  const unchangedPairs = new Map<KiroPair, string[]>();
  let pending: KiroPair[] = [];
  for (const pair of pairs) {
    const ids = ctx.unchanged?.(pairFiles(pair));
    if (ids) unchangedPairs.set(pair, ids);
    else pending.push(pair);
  }

  // The databases are re-read when one changed, or when a Kiro session not read before may be a copy of one of
  // their conversations. A conversation stored in both lists both stores' files, so it is unchanged only with them.
  const unchanged = new Set<string>();
  let readStores = stores.length > 0;
  if (readStores) {
    const ids = ctx.unchanged?.(stores);
    if (ids && !pending.some((p) => ids.includes(p.id))) {
      for (const id of ids) unchanged.add(id);
      readStores = false;
    } else if (!ids) {
      const both = pending.filter((p) => ctx.archived.has(`amazon-q/${p.id}`));
      const withBoth = both.length > 0 ? ctx.unchanged?.([...stores, ...both.flatMap(pairFiles)]) : undefined;
      const rest = pending.filter((p) => !both.includes(p));
      if (withBoth && !rest.some((p) => withBoth.includes(p.id))) {
        for (const id of withBoth) unchanged.add(id);
        pending = rest;
        readStores = false;
      }
    }
  }
  const db = readStores ? await import('./db-copies.ts') : undefined;
  const groups = db
    ? db.groupCopies(await db.readRows(stores, new Set(candidateExports(ctx)), ctx, readOptions), ctx)
    : new Map<string, Copy[]>();
  for (const [pair, ids] of unchangedPairs) {
    // A database that changed may now hold a copy of this session's conversation: read both.
    if (ids.some((id) => groups.has(id)) || groups.has(pair.id)) pending.push(pair);
    else for (const id of ids) unchanged.add(id);
  }
  if (unchanged.size > 0) yield { kind: 'unchanged', sessionIds: [...unchanged] };

  const kiro = new Map<string, KiroSession>();
  const kiroSessions = pending.length > 0 ? await import('./kiro-sessions.ts') : undefined;
  for (const pair of pending) {
    for (const file of pairFiles(pair)) await ctx.stamp?.(file);
    let read: KiroSession | undefined;
    try {
      read = await kiroSessions!.readKiroSession(pair, ctx.warn);
    } catch (error) {
      ctx.unavailable?.(pair.jsonl);
      ctx.warn({ file: pair.jsonl, message: `not understood (${(error as Error).message}); skipped` });
    }
    if (!read) continue;
    const seen = kiro.get(read.conversationId);
    if (!seen || read.freshness > seen.freshness) kiro.set(read.conversationId, read);
  }

  for (const [conversationId, copies] of groups) {
    const own = kiro.get(conversationId);
    if (own && !databaseWins(db!.bestCopy(copies), own)) continue;
    const session = await db!.copySession(conversationId, copies, ctx);
    if (!session) continue;
    if (own) alsoIn(session, own.session.files, own.session.files.join(', '));
    yield { kind: 'session', session };
  }
  for (const [conversationId, own] of kiro) {
    const copies = groups.get(conversationId);
    if (copies && databaseWins(db!.bestCopy(copies), own)) continue;
    const session = own.session;
    if (copies) {
      session.sessionId = conversationId;
      alsoIn(
        session,
        copies.map((c) => c.row.file),
        [...new Set(copies.map((c) => db!.describeCopy(c.row)))].join(', '),
      );
    }
    yield { kind: 'session', session };
  }
}

/** A database copy wins over the Kiro session only when it is fresher, or as fresh and fuller. */
function databaseWins(copy: Copy, own: KiroSession): boolean {
  return copy.freshness > own.freshness || (copy.freshness === own.freshness && copy.size > own.size);
}

function alsoIn(session: Session, files: string[], where: string): void {
  session.files = [...new Set([...session.files, ...files])];
  session.warnings.push(`also stored in ${where} (an older or equal copy; not read)`);
}
