import { createHash } from 'node:crypto';
import { readJsonFile, writeFileAtomic } from '../../util/fs.ts';
import type { SourceContext } from '../source.ts';
import type { SessionTree } from './session.ts';

/**
 * What a changed `opencode.db` held for each session tree when it was last archived (a digest of the sessions'
 * `time_updated` and their messages' and parts' counts and latest `time_updated`). The database changes as a
 * whole, so this is what tells the sessions that changed from those that did not: only those are read again.
 * Kept beside the resume states (derived data, may vanish: then every session is read).
 */
interface DbState {
  db: string;
  trees: Record<string, string>;
}

function stateFile(ctx: SourceContext, db: string): string | undefined {
  return ctx.prepare?.resumePath(`opencode-db-${createHash('sha1').update(db).digest('hex').slice(0, 16)}`);
}

export async function loadDbState(ctx: SourceContext, db: string): Promise<Map<string, string>> {
  const file = stateFile(ctx, db);
  const state = file ? await readJsonFile<DbState>(file) : undefined;
  return new Map(state?.db === db && state.trees && typeof state.trees === 'object' ? Object.entries(state.trees) : []);
}

export async function saveDbState(ctx: SourceContext, db: string, trees: Map<string, string>): Promise<void> {
  const file = stateFile(ctx, db);
  if (!file) return;
  const state: DbState = { db, trees: Object.fromEntries(trees) };
  await writeFileAtomic(file, JSON.stringify(state));
}

export function treeMark(tree: SessionTree, marks: Map<string, string>): string {
  const parts = [tree.root, ...tree.children]
    .map((r) => `${r.id}:${r.timeUpdated ?? ''}:${marks.get(r.id) ?? ''}`)
    .sort();
  return createHash('sha1').update(parts.join('|')).digest('hex');
}
