import path from 'node:path';
import { byCodeUnits, listEntries } from '../../util/fs.ts';
import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import { HISTORY_ITEM, taskFiles } from './documents.ts';
import { locateCline, originOf } from './paths.ts';
import { linkOf, readTree, taskTrees, treeFiles, type TaskEntry, type TaskTree } from './subtasks.ts';

/**
 * Cline, Roo Code and Kilo Code (docs/formats/cline.md): each task is a folder `tasks/<id>/` under the
 * extension's `globalStorage` folder (or the Cline CLI's `~/.cline/data`) holding `api_conversation_history.json`
 * (what the model saw), `ui_messages.json` (what the user saw, with times and each request's tokens and cost) and
 * `task_metadata.json` (models, extension version). One task is one session, with its Roo/Kilo subtasks as threads
 * (`history_item.json`'s `parentTaskId`); an unchanged task is not reopened.
 */
export const cline: Source = {
  id: 'cline',
  label: 'Cline / Roo Code / Kilo Code',
  locate: locateCline,
  read: readCline,
};

async function* readCline(location: SourceLocation, ctx: SourceContext): AsyncGenerator<SourceItem> {
  const seen = new Set<string>();
  for (const root of location.found) {
    const origin = originOf(root);
    const tasksDir = path.join(root, 'tasks');
    const tasks: TaskEntry[] = [];
    const entries = (await listEntries(tasksDir, ctx.warn)).sort((a, b) => byCodeUnits(a.name, b.name));
    for (const entry of entries) {
      if (entry.kind !== 'directory') continue;
      const dir = entry.path;
      const files = await taskFiles(dir);
      if (!files.some((f) => path.basename(f) !== HISTORY_ITEM)) continue;
      if (seen.has(entry.name)) {
        ctx.warn({ file: dir, message: 'a task with this id was already read from another folder; skipped' });
        continue;
      }
      seen.add(entry.name);
      const task: TaskEntry = { id: entry.name, dir, files };
      linkOf(task, ctx.warn);
      tasks.push(task);
    }
    // A task and its subtasks are one session, read again when any of their files changed.
    const changed: TaskTree[] = [];
    // One item for every unchanged task of the folder: a warm collect hands on hundreds.
    const unchanged: string[] = [];
    for (const tree of taskTrees(tasks)) {
      const files = treeFiles(tree);
      const ids = ctx.unchanged?.(files);
      if (ids) {
        unchanged.push(...ids);
        continue;
      }
      for (const file of files) await ctx.stamp?.(file);
      changed.push(tree);
    }
    if (unchanged.length > 0) yield { kind: 'unchanged', sessionIds: unchanged };
    // Loaded only when a task is to be read: a collect that finds nothing changed never compiles the reader.
    const reader = changed.length > 0 ? await import('./task.ts') : undefined;
    for (const tree of changed) {
      let sessions;
      try {
        sessions = await readTree(tree, (t, prefix) =>
          reader!.readTask(root, t.dir, t.files, origin, ctx.warn, prefix),
        );
      } catch (error) {
        ctx.unavailable?.(tree.root.dir);
        ctx.warn({ file: tree.root.dir, message: `could not read (${(error as Error).message}); skipped` });
        continue;
      }
      for (const session of sessions) yield { kind: 'session', session };
    }
  }
}
