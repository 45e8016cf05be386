import { createHash } from 'node:crypto';
import { readJsonFile, writeFileAtomic } from '../../util/fs.ts';
import type { SourceContext } from '../source.ts';
import type { GooseSessionRow } from './schema.ts';

/**
 * What a changed `sessions.db` held for each session when it was last archived: a digest of the session row's
 * `updated_at` and token columns and of its messages' count and highest row id. The database changes as a whole,
 * so this is what tells the sessions that changed from those that did not: only those are read again. Kept beside
 * the resume states (derived data, may vanish: then every session is read).
 */
interface DbState {
  db: string;
  sessions: Record<string, string>;
}

function stateFile(ctx: SourceContext, db: string): string | undefined {
  return ctx.prepare?.resumePath(`goose-db-${createHash('sha1').update(db).digest('hex').slice(0, 16)}`);
}

export async function loadDbState(ctx: SourceContext, db: string): Promise<Map<string, string>> {
  const file = stateFile(ctx, db);
  const state = file ? await readJsonFile<DbState>(file) : undefined;
  return new Map(
    state?.db === db && state.sessions && typeof state.sessions === 'object' ? Object.entries(state.sessions) : [],
  );
}

export async function saveDbState(ctx: SourceContext, db: string, sessions: Map<string, string>): Promise<void> {
  const file = stateFile(ctx, db);
  if (!file) return;
  const state: DbState = { db, sessions: Object.fromEntries(sessions) };
  await writeFileAtomic(file, JSON.stringify(state));
}

export function sessionMark(row: GooseSessionRow, messages: string | undefined): string {
  return createHash('sha1')
    .update(
      JSON.stringify([
        row.updatedText ?? '',
        row.name ?? '',
        row.tokens,
        row.model ?? '',
        row.costUsd ?? null,
        messages ?? '',
      ]),
    )
    .digest('hex');
}
