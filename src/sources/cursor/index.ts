import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import type { Composer } from './bubbles.ts';
import { chatStoreAt, isStoreFile, listChatStores, type ChatStoreRef } from './chats.ts';
import type { CursorDb, OpenOptions } from './db-reader.ts';
import { kindOfPath, locateCursor } from './paths.ts';
import type { ComposerSource } from './session.ts';
import type { CliChat } from './store-reader.ts';
import { isObject, str } from './text.ts';
import { listTranscripts, type TranscriptGroup } from './transcripts.ts';

/**
 * Cursor (docs/formats/cursor.md): the agent's transcripts under `~/.cursor/projects/<slug>/agent-transcripts/`,
 * the CLI's chat stores `~/.cursor/chats/<md5 of cwd>/<agent id>/store.db`, and the editor's chats ("composers")
 * in its global `state.vscdb`. A conversation found in several (the composer id and the agent id are the
 * transcript's uuid) is one session, read from all of them.
 */
export function createCursorSource(dbOptions: OpenOptions = {}): Source {
  return { id: 'cursor', label: 'Cursor', locate: locateCursor, read: (l, ctx) => readCursor(l, ctx, dbOptions) };
}

export const cursor: Source = createCursorSource();

async function* readCursor(
  location: SourceLocation,
  ctx: SourceContext,
  opts: OpenOptions,
): AsyncGenerator<SourceItem> {
  const dbFiles: string[] = [];
  const groups = new Map<string, TranscriptGroup>();
  const stores = new Map<string, ChatStoreRef>();
  const addStore = (ref: ChatStoreRef | undefined) => {
    if (ref && !stores.has(ref.id)) stores.set(ref.id, ref);
  };
  for (const p of location.found) {
    if ((await kindOfPath(p)) === 'db') {
      if (isStoreFile(p)) addStore(chatStoreAt(p));
      else dbFiles.push(p);
    } else {
      for (const g of await listTranscripts(p, ctx.warn)) if (!groups.has(g.id)) groups.set(g.id, g);
      for (const ref of listChatStores(p, ctx.warn)) addStore(ref);
    }
  }

  // Conversations whose transcript and chat store files (alone) are unchanged were not in the database last
  // time: kept as they are.
  const toRead = new Map<string, Conversation>();
  for (const id of [...new Set([...groups.keys(), ...stores.keys()])]) {
    const conversation = { group: groups.get(id), store: stores.get(id) };
    const unchanged = ctx.unchanged?.(filesOf(conversation));
    if (unchanged) yield { kind: 'unchanged', sessionIds: unchanged };
    else toRead.set(id, conversation);
  }
  // The databases and every other conversation unchanged since they were read together: nothing to do.
  if (dbFiles.length > 0) {
    const unchanged = ctx.unchanged?.([...dbFiles, ...[...toRead.values()].flatMap(filesOf)]);
    if (unchanged) {
      yield { kind: 'unchanged', sessionIds: unchanged };
      return;
    }
  }

  // Loaded only now that something is to be read: a collect that finds nothing changed never compiles them.
  const { CursorDbError, openCursorDb } = await import('./db-reader.ts');
  const { buildSession } = await import('./session.ts');
  const { readChatStore } = await import('./store-reader.ts');
  const composers = new Map<string, ComposerSource>();
  const open: CursorDb[] = [];
  try {
    for (const file of dbFiles) {
      await ctx.stamp?.(file);
      try {
        const db = await openCursorDb(file, opts);
        open.push(db);
        for (const row of db.composers()) {
          const composer = parseComposer(row.key, row.value, file, ctx);
          if (!composer) continue;
          const id = composer.composerId!;
          const known = composers.get(id);
          if (!known || (composer.lastUpdatedAt ?? 0) > (known.composer.lastUpdatedAt ?? 0))
            composers.set(id, { db, composer });
        }
      } catch (error) {
        const detail = error instanceof CursorDbError ? error.message : `could not read (${(error as Error).message})`;
        ctx.unavailable?.(file);
        ctx.warn({ file, message: `${detail}; skipped this run, chats collected earlier stay in the archive` });
      }
    }
    const ids = [...new Set([...toRead.keys(), ...composers.keys()])].sort();
    for (const id of ids) {
      const group = groups.get(id);
      const ref = stores.get(id);
      for (const file of group?.files ?? []) await ctx.stamp?.(file);
      let chat: CliChat | undefined;
      if (ref) {
        for (const file of ref.files) await ctx.stamp?.(file);
        try {
          chat = await readChatStore(ref, opts);
        } catch (error) {
          // One warning for the store; the conversation's other copies are read, unless the archive holds it
          // (then its copy, made with the store, is kept as it is).
          const detail =
            error instanceof CursorDbError ? error.message : `could not read (${(error as Error).message})`;
          for (const file of ref.files) ctx.unavailable?.(file);
          ctx.warn({
            file: ref.file,
            message: `${detail}; skipped this run, a chat collected earlier stays in the archive`,
          });
          if (ctx.archived.has(`cursor/${id}`)) continue;
        }
      }
      try {
        const session = await buildSession(id, group, composers.get(id), ctx.warn, chat);
        if (session) yield { kind: 'session', session };
      } catch (error) {
        for (const file of [...(group?.files ?? []), ...(ref?.files ?? [])]) ctx.unavailable?.(file);
        const file = group?.main ?? ref?.file ?? composers.get(id)?.db.file ?? id;
        ctx.warn({ file, message: `conversation ${id} could not be read (${(error as Error).message}); skipped` });
      }
    }
  } finally {
    for (const db of open) await db.close();
  }
}

/** A conversation's files outside the editor's database: its transcripts and its CLI chat store. */
interface Conversation {
  group?: TranscriptGroup | undefined;
  store?: ChatStoreRef | undefined;
}

function filesOf(c: Conversation): string[] {
  return [...(c.group?.files ?? []), ...(c.store?.files ?? [])];
}

function parseComposer(key: string, value: string | undefined, file: string, ctx: SourceContext): Composer | undefined {
  const fromKey = key.slice('composerData:'.length);
  try {
    const parsed = JSON.parse(value ?? 'null') as unknown;
    if (!isObject(parsed)) {
      ctx.warn({ file, message: `${key} is not a JSON object; skipped` });
      return undefined;
    }
    const composer = parsed as Composer;
    composer.composerId = str(composer.composerId) ?? fromKey;
    return composer;
  } catch (error) {
    ctx.warn({ file, message: `${key} is not valid JSON (${(error as Error).message}); skipped` });
    return undefined;
  }
}
