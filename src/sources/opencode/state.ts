import { createHash } from 'node:crypto';
import type { SessionTree } from './session.ts';

/** A session tree's mark for `db-marks.ts`: its sessions' `time_updated` and their messages' and parts' counts
 * and latest `time_updated`. */
export function treeMark(tree: SessionTree, marks: Map<string, string>): string {
  const parts = [tree.root, ...tree.children]
    .map((r) => `${r.id}:${r.timeUpdated ?? ''}:${marks.get(r.id) ?? ''}`)
    .sort();
  return createHash('sha1').update(parts.join('|')).digest('hex');
}
