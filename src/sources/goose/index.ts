import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
// Types only: the readers are loaded when something is to be read (a collect that finds the database unchanged
// loads none of them).
import type { GooseDb } from './db-reader.ts';
import { isDatabase, jsonlFiles, locateGoose } from './paths.ts';

/**
 * Goose (block/goose; docs/formats/goose.md): `sessions/sessions.db` (SQLite, every session with its working
 * directory) and, where there is no database yet, the older `sessions/<name>.jsonl` files.
 */
export const goose: Source = {
  id: 'goose',
  label: 'Goose',
  locate: locateGoose,
  read: readGoose,
};

async function* readGoose(location: SourceLocation, ctx: SourceContext): AsyncGenerator<SourceItem> {
  for (const found of location.found) {
    if (isDatabase(found)) yield* readDatabase(found, ctx);
    else yield* readJsonlFolder(found, ctx);
  }
}

function words(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

async function* readDatabase(file: string, ctx: SourceContext): AsyncGenerator<SourceItem> {
  const unchanged = ctx.unchanged?.([file]);
  if (unchanged) {
    yield { kind: 'unchanged', sessionIds: unchanged };
    return;
  }
  await ctx.stamp?.(file);
  const { GooseDb, GooseReadError } = await import('./db-reader.ts');
  const { buildDbSession } = await import('./session.ts');
  const { sessionMark } = await import('./state.ts');
  const { loadDbMarks, saveDbMarks } = await import('../db-marks.ts');
  let db: GooseDb;
  try {
    db = await GooseDb.open(file);
  } catch (error) {
    ctx.unavailable?.(file);
    const detail = error instanceof GooseReadError ? error.message : `could not read (${(error as Error).message})`;
    ctx.warn({ file, message: `${detail}; skipped this run, sessions collected earlier stay in the archive` });
    return;
  }
  try {
    const before = await loadDbMarks(ctx, 'goose', file);
    const after = new Map<string, string>();
    const marks = db.changeMarks();
    const kept: string[] = [];
    for (const row of db.sessions()) {
      const mark = marks ? sessionMark(row, marks.get(row.id)) : undefined;
      // Nothing in this session changed since it was archived: not read again.
      if (mark && before.get(row.id) === mark && ctx.archived.has(`goose/${row.id}`)) {
        kept.push(row.id);
        after.set(row.id, mark);
        continue;
      }
      let session;
      try {
        session = buildDbSession(db, row, ctx);
      } catch (error) {
        ctx.warn({ file, message: `session ${row.id} not understood (${words(error)}); skipped` });
        continue;
      }
      if (!session) continue;
      if (mark) after.set(row.id, mark);
      yield { kind: 'session', session };
    }
    if (kept.length > 0) yield { kind: 'unchanged', sessionIds: kept };
    await saveDbMarks(ctx, 'goose', file, after);
  } finally {
    await db.close();
  }
}

async function* readJsonlFolder(dir: string, ctx: SourceContext): AsyncGenerator<SourceItem> {
  const changed: string[] = [];
  const unchanged: string[] = [];
  for (const file of await jsonlFiles(dir, ctx.warn)) {
    const ids = ctx.unchanged?.([file]);
    if (ids) {
      unchanged.push(...ids);
      continue;
    }
    await ctx.stamp?.(file);
    changed.push(file);
  }
  if (unchanged.length > 0) yield { kind: 'unchanged', sessionIds: unchanged };
  const reader = changed.length > 0 ? await import('./session.ts') : undefined;
  for (const file of changed) {
    let session;
    try {
      session = await reader!.readJsonlSession(file, ctx);
    } catch (error) {
      ctx.warn({ file, message: `not understood (${words(error)}); skipped` });
      continue;
    }
    if (session) yield { kind: 'session', session };
  }
}
