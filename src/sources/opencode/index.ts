import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
// Types only: the readers are loaded when something is to be read (a collect that finds the database unchanged
// loads none of them).
import type { OpenCodeDb } from './db-reader.ts';
import { isDatabase, locateOpenCode } from './paths.ts';
import type { SessionTree } from './session.ts';

/**
 * OpenCode (docs/formats/opencode.md): `opencode.db` (SQLite, v1.2 on; one database for every project, each
 * session naming its directory) and, where there is no database yet, the older `storage/` tree of JSON files.
 * A session's subagent sessions (the `task` tool's, `parent_id`) are threads of it under the call that ran them.
 */
export const openCode: Source = {
  id: 'opencode',
  label: 'OpenCode',
  locate: locateOpenCode,
  read: readOpenCode,
};

async function* readOpenCode(location: SourceLocation, ctx: SourceContext): AsyncGenerator<SourceItem> {
  for (const found of location.found) {
    if (isDatabase(found)) yield* readDatabase(found, ctx);
    else yield* readStorage(found, ctx);
  }
}

function failure(ctx: SourceContext, file: string, tree: SessionTree, error: unknown): void {
  ctx.warn({
    file,
    message: `session ${tree.root.id} not understood (${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}); skipped`,
  });
}

async function* readDatabase(file: string, ctx: SourceContext): AsyncGenerator<SourceItem> {
  const unchanged = ctx.unchanged?.([file]);
  if (unchanged) {
    yield { kind: 'unchanged', sessionIds: unchanged };
    return;
  }
  await ctx.stamp?.(file);
  const { OcReadError, OpenCodeDb } = await import('./db-reader.ts');
  const { buildSession, sessionTrees } = await import('./session.ts');
  const { treeMark } = await import('./state.ts');
  const { loadDbMarks, saveDbMarks } = await import('../db-marks.ts');
  let db: OpenCodeDb;
  try {
    db = await OpenCodeDb.open(file);
  } catch (error) {
    ctx.unavailable?.(file);
    const detail = error instanceof OcReadError ? error.message : `could not read (${(error as Error).message})`;
    ctx.warn({ file, message: `${detail}; skipped this run, sessions collected earlier stay in the archive` });
    return;
  }
  try {
    const before = await loadDbMarks(ctx, 'opencode', file);
    const after = new Map<string, string>();
    const marks = db.changeMarks();
    const kept: string[] = [];
    for (const tree of sessionTrees(db.sessions())) {
      const mark = marks ? treeMark(tree, marks) : undefined;
      // Nothing in this session changed since it was archived: not read again.
      if (mark && before.get(tree.root.id) === mark && ctx.archived.has(`opencode/${tree.root.id}`)) {
        kept.push(tree.root.id);
        after.set(tree.root.id, mark);
        continue;
      }
      let session;
      try {
        session = await buildSession(tree, async (row) => db.records(row.id), [file], ctx.warn);
      } catch (error) {
        failure(ctx, file, tree, error);
        continue;
      }
      if (!session) continue;
      if (mark) after.set(tree.root.id, mark);
      yield { kind: 'session', session };
    }
    if (kept.length > 0) yield { kind: 'unchanged', sessionIds: kept };
    await saveDbMarks(ctx, 'opencode', file, after);
  } finally {
    await db.close();
  }
}

async function* readStorage(storage: string, ctx: SourceContext): AsyncGenerator<SourceItem> {
  const { filesOf, listStorageSessions, readStorageRecords, storageSessionFiles } = await import('./storage-reader.ts');
  const { buildSession, sessionTrees } = await import('./session.ts');
  const rows = await listStorageSessions(storage, ctx.warn);
  for (const tree of sessionTrees(rows)) {
    const listings = await Promise.all([tree.root, ...tree.children].map((row) => storageSessionFiles(storage, row)));
    const files = listings.flatMap(filesOf);
    const unchanged = ctx.unchanged?.(files);
    if (unchanged) {
      yield { kind: 'unchanged', sessionIds: unchanged };
      continue;
    }
    for (const f of files) await ctx.stamp?.(f);
    const byId = new Map(listings.map((l) => [l.row.id, l]));
    let session;
    try {
      session = await buildSession(tree, (row) => readStorageRecords(byId.get(row.id)!, ctx.warn), files, ctx.warn);
    } catch (error) {
      failure(ctx, tree.root.file, tree, error);
      continue;
    }
    if (session) yield { kind: 'session', session };
  }
}
