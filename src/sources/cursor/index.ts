import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import type { Composer } from './bubbles.ts';
import type { CursorDb, OpenOptions } from './db-reader.ts';
import { kindOfPath, locateCursor } from './paths.ts';
import type { ComposerSource } from './session.ts';
import { isObject, str } from './text.ts';
import { listTranscripts, type TranscriptGroup } from './transcripts.ts';

/**
 * Cursor (docs/formats/cursor.md): the agent's transcripts under `~/.cursor/projects/<slug>/agent-transcripts/`
 * and the editor's chats ("composers") in its global `state.vscdb`. A conversation found in both (the composer
 * id is the transcript's uuid) is one session, read from both files.
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
  for (const p of location.found) {
    if ((await kindOfPath(p)) === 'db') dbFiles.push(p);
    else for (const g of await listTranscripts(p, ctx.warn)) if (!groups.has(g.id)) groups.set(g.id, g);
  }

  // Transcripts whose files (alone) are unchanged were not in the database last time: kept as they are.
  const toRead = new Map<string, TranscriptGroup>();
  for (const [id, g] of groups) {
    const unchanged = ctx.unchanged?.(g.files);
    if (unchanged) yield { kind: 'unchanged', sessionIds: unchanged };
    else toRead.set(id, g);
  }
  // The databases and every other transcript unchanged since they were read together: nothing to do.
  if (dbFiles.length > 0) {
    const unchanged = ctx.unchanged?.([...dbFiles, ...[...toRead.values()].flatMap((g) => g.files)]);
    if (unchanged) {
      yield { kind: 'unchanged', sessionIds: unchanged };
      return;
    }
  }

  // Loaded only now that something is to be read: a collect that finds nothing changed never compiles them.
  const { CursorDbError, openCursorDb } = await import('./db-reader.ts');
  const { buildSession } = await import('./session.ts');
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
      const group = toRead.get(id) ?? groups.get(id);
      for (const file of group?.files ?? []) await ctx.stamp?.(file);
      try {
        const session = await buildSession(id, group, composers.get(id), ctx.warn);
        if (session) yield { kind: 'session', session };
      } catch (error) {
        for (const file of group?.files ?? []) ctx.unavailable?.(file);
        const file = group?.main ?? composers.get(id)?.db.file ?? id;
        ctx.warn({ file, message: `conversation ${id} could not be read (${(error as Error).message}); skipped` });
      }
    }
  } finally {
    for (const db of open) await db.close();
  }
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
