import type { NormalizedMessage } from '../../model/message.ts';
import type { Session, SubagentThread } from '../../model/session.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { ThreadNormalizer } from './normalize.ts';
import { isoOf, type OcSessionRecords, type OcSessionRow } from './schema.ts';

/** A main session and every session under it (`parent_id`: the `task` tool's subagent sessions, any depth). */
export interface SessionTree {
  root: OcSessionRow;
  children: OcSessionRow[];
}

/** Groups sessions under their root. A child whose parent is not there is a root itself. */
export function sessionTrees(rows: OcSessionRow[]): SessionTree[] {
  const byId = new Map(rows.map((r) => [r.id, r]));
  const rootOf = (row: OcSessionRow): OcSessionRow => {
    const seen = new Set<string>([row.id]);
    let current = row;
    while (current.parentId && byId.has(current.parentId) && !seen.has(current.parentId)) {
      current = byId.get(current.parentId)!;
      seen.add(current.id);
    }
    return current;
  };
  const trees = new Map<string, SessionTree>();
  for (const row of rows) {
    const root = rootOf(row);
    const tree = trees.get(root.id) ?? { root, children: [] };
    if (root !== row) tree.children.push(row);
    trees.set(root.id, tree);
  }
  return [...trees.values()];
}

/** OpenCode's placeholder titles until it names a session: `New session - <ISO time>`, `Child session - …`. */
const DEFAULT_TITLE = /^(New|Child) session - \d{4}-\d{2}-\d{2}T/;

function titleOf(root: OcSessionRow, firstPrompt: string | undefined): string {
  if (root.title && !DEFAULT_TITLE.test(root.title)) return root.title;
  const line =
    firstPrompt
      ?.split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  if (line) return line.length > 80 ? `${line.slice(0, 79)}…` : line;
  return root.title ?? root.id;
}

/** Builds one archived session from a tree: the root's messages, each child session a subagent thread. */
export async function buildSession(
  tree: SessionTree,
  load: (row: OcSessionRow) => Promise<OcSessionRecords>,
  files: string[],
  warn: WarningSink,
): Promise<Session | undefined> {
  const { root } = tree;
  const main = await normalize(root, '', load, warn);
  const models = new Set(main.models);
  const calls = new Map(main.taskCalls);
  const threads: Array<{ row: OcSessionRow; thread: ThreadNormalizer }> = [];
  for (const child of tree.children) {
    const thread = await normalize(child, `${child.id}:`, load, warn);
    for (const m of thread.models) models.add(m);
    for (const [k, v] of thread.taskCalls) calls.set(k, v);
    threads.push({ row: child, thread });
  }
  const subagents: SubagentThread[] = threads
    .filter(({ thread }) => thread.messages.length > 0)
    .map(({ row, thread }) => ({
      agentId: row.id,
      ...((row.agent ?? thread.agent) ? { agentType: row.agent ?? thread.agent } : {}),
      ...(row.title ? { description: row.title.replace(/ \(@[^)]*subagent\)$/, '') } : {}),
      ...(calls.has(row.id) ? { parentCallId: calls.get(row.id) } : {}),
      file: row.file,
      messages: thread.messages,
    }));
  if (main.messages.length === 0 && subagents.length === 0) return undefined;
  const all: NormalizedMessage[] = [...main.messages, ...subagents.flatMap((s) => s.messages)];
  const times = all.map((m) => m.timestamp).sort();
  const created = isoOf(root.timeCreated);
  return {
    source: 'opencode',
    sessionId: root.id,
    title: titleOf(root, main.firstPrompt ?? threads.find((t) => t.thread.firstPrompt)?.thread.firstPrompt),
    cwd: root.directory ?? main.cwd ?? '',
    startedAt: times[0] ?? created!,
    endedAt: times.at(-1) ?? created!,
    models: [...models].sort(),
    ...(root.version ? { cliVersion: root.version } : {}),
    files,
    messages: main.messages,
    subagents,
    warnings: [],
  };
}

async function normalize(
  row: OcSessionRow,
  prefix: string,
  load: (row: OcSessionRow) => Promise<OcSessionRecords>,
  warn: WarningSink,
): Promise<ThreadNormalizer> {
  const records = await load(row);
  const thread = new ThreadNormalizer(prefix, warn, row.timeCreated);
  for (const message of records.messages) thread.add(message, records.parts.get(message.id) ?? []);
  return thread;
}
