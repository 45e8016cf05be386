import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { NormalizedMessage } from '../../model/message.ts';
import type { Session, SubagentThread } from '../../model/session.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { isObject, str } from './builder.ts';
import { HISTORY_ITEM } from './documents.ts';

/**
 * Roo Code and Kilo Code subtasks (docs/formats/cline.md, "Subtasks"): `new_task` opens a child task in its own
 * folder, and since Roo Code 3.50 each task's `history_item.json` names its parent (`parentTaskId`). A child is
 * read as a thread of its parent's session, under the `new_task` call that started it; a child whose parent
 * folder is not there stays a session of its own.
 */
export interface TaskEntry {
  id: string;
  dir: string;
  files: string[];
  /** `parentTaskId` of the task's `history_item.json`. */
  parentId?: string;
  /** The mode the task ran in (`code`, `architect`, `ask`…). */
  mode?: string;
}

/** A task and every subtask under it (any depth). */
export interface TaskTree {
  root: TaskEntry;
  children: TaskEntry[];
}

/** A history item is a few hundred bytes, its first prompt included; past this it is not parsed. */
const MAX_HISTORY_ITEM_BYTES = 4 * 1024 * 1024;

/** What the task's `history_item.json` says of its parent; nothing (after one warning) when it cannot be read.
 * Synchronous: a warm collect reads every task's (hundreds), and a small read through the thread pool costs more
 * than the read itself. */
export function linkOf(entry: TaskEntry, warn: WarningSink): void {
  const file = entry.files.find((f) => path.basename(f) === HISTORY_ITEM);
  if (!file) return;
  let item: unknown;
  try {
    const text = readFileSync(file, 'utf8');
    if (text.length > MAX_HISTORY_ITEM_BYTES) {
      warn({ file, message: 'too big for a history item; the task is read without its parent' });
      return;
    }
    item = JSON.parse(text) as unknown;
  } catch (error) {
    warn({ file, message: `not valid JSON (${(error as Error).message}); the task is read without its parent` });
    return;
  }
  if (!isObject(item)) {
    warn({ file, message: 'not a history item (a JSON object); the task is read without its parent' });
    return;
  }
  const parent = str(item.parentTaskId);
  if (parent && parent !== entry.id) entry.parentId = parent;
  const mode = str(item.mode);
  if (mode) entry.mode = mode;
}

/** Groups tasks under their root task; a task whose parent is not among them is a root itself. */
export function taskTrees(entries: TaskEntry[]): TaskTree[] {
  const byId = new Map(entries.map((e) => [e.id, e]));
  const rootOf = (entry: TaskEntry): TaskEntry => {
    const seen = new Set<string>([entry.id]);
    let current = entry;
    while (current.parentId && byId.has(current.parentId) && !seen.has(current.parentId)) {
      current = byId.get(current.parentId)!;
      seen.add(current.id);
    }
    return current;
  };
  const trees = new Map<string, TaskTree>();
  for (const entry of entries) {
    const root = rootOf(entry);
    const tree = trees.get(root.id) ?? { root, children: [] };
    if (root !== entry) tree.children.push(entry);
    trees.set(root.id, tree);
  }
  return [...trees.values()];
}

export function treeFiles(tree: TaskTree): string[] {
  return [tree.root, ...tree.children].flatMap((e) => e.files);
}

/** Reads one task: `prefix` is empty for a session, `<task id>:` for a thread. */
export type ReadOne = (entry: TaskEntry, prefix: string) => Promise<Session | undefined>;

const NEW_TASK = new Set(['new_task', 'newTask']);

/** A tree as sessions: the root with every readable subtask as a thread. When the root has no messages, each
 * subtask is a session of its own. */
export async function readTree(tree: TaskTree, read: ReadOne): Promise<Session[]> {
  const main = await read(tree.root, '');
  if (!main) {
    const alone: Session[] = [];
    for (const child of tree.children) {
      const s = await read(child, '');
      if (s) alone.push(orphan(s, child.parentId));
    }
    return alone;
  }
  if (tree.root.parentId) orphan(main, tree.root.parentId, true);
  const kids: { entry: TaskEntry; session: Session }[] = [];
  for (const entry of tree.children) {
    const session = await read(entry, `${entry.id}:`);
    if (!session) continue;
    scopeCallIds(session.messages, `${entry.id}:`);
    kids.push({ entry, session });
  }
  kids.sort((a, b) =>
    a.session.startedAt < b.session.startedAt ? -1 : a.session.startedAt > b.session.startedAt ? 1 : 0,
  );
  const parents = parentCalls(main, kids);
  const subagents: SubagentThread[] = kids.map(({ entry, session }) => ({
    agentId: entry.id,
    agentType: entry.mode ?? 'subtask',
    description: session.title,
    ...(parents.has(entry.id) ? { parentCallId: parents.get(entry.id) } : {}),
    file: session.files[0] ?? entry.dir,
    messages: session.messages,
  }));
  const all = [main, ...kids.map((k) => k.session)];
  const times = all.flatMap((s) => [s.startedAt, s.endedAt]).sort();
  return [
    {
      ...main,
      startedAt: times[0]!,
      endedAt: times.at(-1)!,
      models: [...new Set(all.flatMap((s) => s.models))].sort(),
      files: treeFiles(tree),
      subagents,
      absorbed: kids.map((k) => k.entry.id),
    },
  ];
}

/** A subtask read alone: its first message says whose it was. */
function orphan(session: Session, parentId: string | undefined, missing = false): Session {
  const first = session.messages[0];
  if (first && parentId) {
    first.metadata = { ...first.metadata, subagent_of: parentId, ...(missing ? { parent_missing: true } : {}) };
  }
  return session;
}

/** Call ids we make up (`xml-<n>-<k>`, `ui-<n>`) are unique in one task only: a thread's are made its own. */
function scopeCallIds(messages: NormalizedMessage[], prefix: string): void {
  for (const m of messages) {
    const call = m.tool_call;
    if (call && /^(?:xml|ui)-/.test(call.call_id)) call.call_id = `${prefix}${call.call_id}`;
  }
}

/**
 * The `new_task` call each subtask came from, in its parent's messages: the call whose result names the child
 * (`Delegated to child task <id>`, `Subtask <id> completed.`, Roo Code 3.35 on); else, in start order, the
 * parent's last unclaimed `new_task` call made before the child started (older results name no task).
 */
function parentCalls(main: Session, kids: { entry: TaskEntry; session: Session }[]): Map<string, string> {
  const threads = new Map<string, NormalizedMessage[]>([['', main.messages]]);
  for (const k of kids) threads.set(k.entry.id, k.session.messages);
  const rootId = (id: string | undefined) => (id !== undefined && threads.has(id) ? id : '');
  const callsOf = (thread: string) =>
    (threads.get(thread) ?? []).filter(
      (m) => m.source_type === 'tool_call' && m.tool_call && NEW_TASK.has(m.tool_call.name),
    );
  const outputOf = (thread: string) =>
    new Map(
      (threads.get(thread) ?? [])
        .filter((m) => m.source_type === 'tool_result')
        .map((m) => [m.id, m.tool_call?.output ?? '']),
    );
  const parentThread = (entry: TaskEntry) =>
    kids.some((k) => k.entry.id === entry.parentId) ? rootId(entry.parentId) : '';
  const claimed = new Set<string>();
  const found = new Map<string, string>();
  for (const { entry } of kids) {
    const thread = parentThread(entry);
    const outputs = outputOf(thread);
    const call = callsOf(thread).find((c) => (outputs.get(c.tool_call!.result_id ?? '') ?? '').includes(entry.id));
    if (call && !claimed.has(call.tool_call!.call_id)) {
      claimed.add(call.tool_call!.call_id);
      found.set(entry.id, call.tool_call!.call_id);
    }
  }
  for (const { entry, session } of kids) {
    if (found.has(entry.id)) continue;
    const open = callsOf(parentThread(entry)).filter((c) => !claimed.has(c.tool_call!.call_id));
    const call = open.filter((c) => c.timestamp <= session.startedAt).at(-1) ?? open[0];
    if (!call) continue;
    claimed.add(call.tool_call!.call_id);
    found.set(entry.id, call.tool_call!.call_id);
  }
  return found;
}
