import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { HistoryPrompt, Session } from '../../model/session.ts';
import { readFailure } from '../../util/fs.ts';
import { readJsonl } from '../../util/jsonl.ts';
import { textHash } from '../../util/text-hash.ts';
import { saneIsoFromMs, TIME_RANGE_TEXT } from '../../util/time.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import { RolloutHeadCache, type RolloutHead } from './head-cache.ts';
import { listRolloutFiles, locateCodex, type RolloutFile, uuidFromName } from './paths.ts';
import { readRolloutLines } from './read.ts';
import { mapLimit } from '../../util/map-limit.ts';
import { idOf } from './record-fields.ts';
// Types only: the tree reader (and the normalizer behind it) is loaded when a rollout is to be read.
import type { RolloutNode, TreeReader } from './tree-reader.ts';
import type { CodexHistoryLine, LegacyHeader, RolloutLine, SessionIndexLine, SessionMetaPayload } from './schema.ts';

export { locateCodex } from './paths.ts';

export const codex: Source = {
  id: 'codex',
  label: 'Codex CLI',
  locate: locateCodex,
  read: readCodex,
};

const HEAD_CHUNK = 64 * 1024;

function treeOf(node: RolloutNode): RolloutNode[] {
  return [node, ...node.children.flatMap(treeOf)];
}

/** Rollout heads read at once (each is one small read; a warm collect reads them all). */
const HEAD_READS = 16;

async function* readCodex(location: SourceLocation, ctx: SourceContext): AsyncGenerator<SourceItem> {
  const nodes: RolloutNode[] = [];
  const byId = new Map<string, RolloutNode>();
  const threadNames = new Map<string, string>();
  const heads = await RolloutHeadCache.open(ctx.prepare?.dataDir);
  for (const root of location.found) {
    const rollouts = await listRolloutFiles(root, ctx.warn);
    // The cached heads first, without a promise each; then the rollouts new or changed since.
    const cached = rollouts.map((rollout): RolloutNode | undefined => {
      const head = heads.cached(rollout.file);
      return head && { ...head, rollout, children: [] };
    });
    const read = await mapLimit(
      rollouts.filter((_, i) => !cached[i]),
      HEAD_READS,
      (rollout) => headOf(rollout, heads),
    );
    let r = 0;
    for (const node of cached.map((node) => node ?? read[r++]!)) {
      if (byId.has(node.id)) continue; // the same thread in two places: the first one wins
      byId.set(node.id, node);
      nodes.push(node);
    }
  }
  await heads.save();
  for (const node of nodes) {
    const parentId = node.subagent?.parent ?? node.forkedFrom;
    const parent = parentId ? byId.get(parentId) : undefined;
    if (parent && parent !== node && !isAncestor(node, parent)) {
      node.parent = parent;
      parent.children.push(node);
    }
  }
  const known = (id: string) => byId.has(id) || ctx.archived.has(`codex/${id}`);
  let reader: TreeReader | undefined;
  const cwdById = new Map<string, string>();
  // Every changed tree is stamped before any is read, so the collector knows how much there is to read.
  const changed: RolloutNode[] = [];
  // One item for every unchanged tree: a warm collect hands on hundreds.
  const unchanged: string[] = [];
  for (const root of nodes.filter((n) => !n.parent)) {
    const treeFiles = treeOf(root).map((n) => n.rollout.file);
    const ids = ctx.unchanged?.(treeFiles);
    if (ids) {
      unchanged.push(...ids);
      continue;
    }
    for (const file of treeFiles) await ctx.stamp?.(file);
    changed.push(root);
  }
  if (unchanged.length > 0) yield { kind: 'unchanged', sessionIds: unchanged };
  if (changed.length > 0) {
    // Thread names title the sessions read: not needed when none is.
    for (const root of location.found) {
      await readSessionIndex(path.join(root, 'session_index.jsonl'), threadNames, ctx.warn);
    }
  }
  for (const root of changed) {
    reader ??= new (await import('./tree-reader.ts')).TreeReader(ctx.warn, known, threadNames);
    for (const session of await reader.read(root)) {
      cwdById.set(session.sessionId, session.cwd);
      yield { kind: 'session', session };
    }
  }
  for (const node of nodes) if (node.cwd && !cwdById.has(node.id)) cwdById.set(node.id, node.cwd);
  // Prompts are filed under their session's folder: a history is read again when a session or its folder (as
  // its rollout's first line names it) is new or changed. (A hash of their own: node:crypto is not loaded for it.)
  const folders = textHash(JSON.stringify(nodes.map((n) => [n.id, n.cwd ?? null])));
  for (const root of location.found) {
    const history = path.join(root, 'history.jsonl');
    if (ctx.historyUnchanged?.(history, folders)) continue;
    for await (const prompt of readCodexHistory(history, ctx.warn, cwdById)) yield { kind: 'prompt', prompt };
  }
}

/**
 * Reads one rollout file on its own (any name, any of the three formats) into a session, as the
 * collector would if the file had no forks or subagents around it.
 */
export async function readRolloutFile(
  file: string,
  ctx: Pick<SourceContext, 'warn'>,
  threadNames: Map<string, string> = new Map(),
): Promise<Session | undefined> {
  const kind = file.endsWith('.zst') ? 'zst' : file.endsWith('.json') ? 'json' : 'jsonl';
  const node = await headOf({ file, kind, nameId: uuidFromName(file), archived: false });
  const { TreeReader } = await import('./tree-reader.ts');
  const [session] = await new TreeReader(ctx.warn, () => false, threadNames).read(node);
  return session;
}

function isAncestor(candidate: RolloutNode, of: RolloutNode): boolean {
  for (let n: RolloutNode | undefined = of; n; n = n.parent) if (n === candidate) return true;
  return false;
}

/** A rollout as a node of its tree, from its head (cached while the file is unchanged, when a cache is given). */
async function headOf(rollout: RolloutFile, cache?: RolloutHeadCache): Promise<RolloutNode> {
  const head = cache ? await cache.head(rollout.file, () => readHead(rollout)) : await readHead(rollout);
  return { ...(head ?? { id: fallbackId(rollout) }), rollout, children: [] };
}

function fallbackId(rollout: RolloutFile): string {
  return rollout.nameId ?? path.basename(rollout.file).replace(/\.(jsonl|jsonl\.zst|json)$/, '');
}

/** Reads only the first line of a rollout: its id, fork parent and subagent source; undefined when unreadable. */
async function readHead(rollout: RolloutFile): Promise<RolloutHead | undefined> {
  const fallback = fallbackId(rollout);
  const head: RolloutHead = { id: fallback };
  if (rollout.kind === 'json') return head;
  try {
    for await (const { value } of readRolloutLines(rollout.file, { chunkSize: HEAD_CHUNK })) {
      const line = value as RolloutLine & LegacyHeader;
      if (line?.type === 'session_meta' && line.payload && typeof line.payload === 'object') {
        const meta = line.payload as SessionMetaPayload;
        head.id = idOf(meta) ?? fallback;
        head.cwd = meta.cwd;
        if (typeof meta.forked_from_id === 'string' && meta.forked_from_id) head.forkedFrom = meta.forked_from_id;
        head.subagent = subagentOf(meta);
      } else if (line && typeof line === 'object' && line.type === undefined && typeof line.id === 'string') {
        head.id = idOf({ id: line.id }) ?? fallback;
        head.cwd = line.cwd;
      }
      break;
    }
  } catch {
    // Unreadable: the full read reports it.
    return undefined;
  }
  return head;
}

function subagentOf(meta: SessionMetaPayload): RolloutNode['subagent'] {
  const source = meta.source;
  if (!source || typeof source !== 'object' || source.subagent === undefined) return undefined;
  const sub = source.subagent;
  const spawn = typeof sub === 'object' && sub ? sub.thread_spawn : undefined;
  const type =
    typeof sub === 'string'
      ? sub
      : spawn
        ? (spawn.agent_role ?? meta.agent_role ?? 'thread_spawn')
        : (Object.keys(sub ?? {})[0] ?? 'subagent');
  const parent = spawn?.parent_thread_id ?? meta.parent_thread_id ?? meta.forked_from_id ?? undefined;
  const nickname = spawn?.agent_nickname ?? meta.agent_nickname ?? spawn?.agent_path ?? undefined;
  return { type, ...(nickname ? { nickname } : {}), ...(parent ? { parent } : {}) };
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** `~/.codex/session_index.jsonl` (newer builds): thread names, the last one for an id wins. */
async function readSessionIndex(file: string, into: Map<string, string>, warn: WarningSink): Promise<void> {
  if (!(await exists(file))) return;
  try {
    for await (const { value } of readJsonl(file, { onWarning: warn })) {
      const entry = value as SessionIndexLine;
      if (typeof entry?.id === 'string' && typeof entry.thread_name === 'string' && entry.thread_name.trim()) {
        into.set(entry.id, entry.thread_name.trim());
      }
    }
  } catch (error) {
    warn({ file, message: `${readFailure(error)}; skipped` });
  }
}

/** `~/.codex/history.jsonl`: prompts as typed, `ts` in epoch seconds (FORMATS.md §2.9). */
export async function* readCodexHistory(
  file: string,
  warn: WarningSink,
  cwdById: ReadonlyMap<string, string> = new Map(),
): AsyncGenerator<HistoryPrompt> {
  if (!(await exists(file))) return;
  try {
    for await (const { value, line } of readJsonl(file, { onWarning: warn })) {
      const entry = value as CodexHistoryLine;
      if (typeof entry?.text !== 'string' || typeof entry.ts !== 'number' || !Number.isFinite(entry.ts)) {
        warn({ file, line, message: 'history entry without text or ts; skipped' });
        continue;
      }
      const timestamp = saneIsoFromMs(entry.ts * 1000);
      if (!timestamp) {
        warn({ file, line, message: `ts ${entry.ts} is ${TIME_RANGE_TEXT}; entry skipped` });
        continue;
      }
      const sessionId = typeof entry.session_id === 'string' && entry.session_id ? entry.session_id : undefined;
      const project = sessionId ? cwdById.get(sessionId) : undefined;
      yield {
        source: 'codex',
        timestamp,
        text: entry.text,
        ...(project ? { project } : {}),
        ...(sessionId ? { sessionId } : {}),
      };
    }
  } catch (error) {
    warn({ file, message: `${readFailure(error)}; skipped` });
  }
}
