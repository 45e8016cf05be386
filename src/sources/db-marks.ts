import { createHash } from 'node:crypto';
import { readJsonFile, writeFileAtomic } from '../util/fs.ts';
import type { SourceContext } from './source.ts';

/**
 * What an assistant's database (one file for every session: OpenCode's, Goose's) held for each session when it
 * was last archived, as a digest per session id the source makes. The database changes as a whole, so this is
 * what tells the sessions that changed from those that did not: only those are read again. Kept beside the
 * resume states (derived data, may vanish: then every session is read).
 */
interface DbMarks {
  db: string;
  marks: Record<string, string>;
}

function marksFile(ctx: SourceContext, source: string, db: string): string | undefined {
  return ctx.prepare?.resumePath(`${source}-db-${createHash('sha1').update(db).digest('hex').slice(0, 16)}`);
}

export async function loadDbMarks(ctx: SourceContext, source: string, db: string): Promise<Map<string, string>> {
  const file = marksFile(ctx, source, db);
  const state = file ? await readJsonFile<DbMarks>(file) : undefined;
  return new Map(state?.db === db && state.marks && typeof state.marks === 'object' ? Object.entries(state.marks) : []);
}

export async function saveDbMarks(
  ctx: SourceContext,
  source: string,
  db: string,
  marks: Map<string, string>,
): Promise<void> {
  const file = marksFile(ctx, source, db);
  if (!file) return;
  const state: DbMarks = { db, marks: Object.fromEntries(marks) };
  await writeFileAtomic(file, JSON.stringify(state));
}
