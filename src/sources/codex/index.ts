import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { HistoryPrompt, Session, SubagentThread } from '../../model/session.ts';
import { NotRegularFileError, openRegular, readFailure } from '../../util/fs.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan, readJsonl } from '../../util/jsonl.ts';
import { isOutOfRangeTime, saneIsoFromMs, TIME_RANGE_TEXT } from '../../util/time.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import { idOf, RolloutNormalizer, type CopySource } from './normalize.ts';
import { RolloutHeadCache, type RolloutHead } from './head-cache.ts';
import { listRolloutFiles, locateCodex, type RolloutFile, uuidFromName } from './paths.ts';
import { readRolloutLines } from './read.ts';
import { mapLimit } from '../../util/map-limit.ts';
import type {
  CodexHistoryLine,
  LegacyHeader,
  RolloutLine,
  SessionIndexLine,
  SessionMetaPayload,
  TsRolloutFile,
} from './schema.ts';

export { locateCodex } from './paths.ts';
export { RolloutNormalizer } from './normalize.ts';

export const codex: Source = {
  id: 'codex',
  label: 'Codex CLI',
  locate: locateCodex,
  read: readCodex,
};

/** TS-era `.json` rollouts are one JSON document; past this size one is not parsed. */
const MAX_JSON_ROLLOUT_BYTES = 256 * 1024 * 1024;
const HEAD_CHUNK = 64 * 1024;

/** One rollout file and what its first line says about it (`subagent`: set for subagent rollouts, from
 * `source.subagent`: their kind, name and parent thread). */
interface RolloutNode extends RolloutHead {
  rollout: RolloutFile;
  parent?: RolloutNode;
  children: RolloutNode[];
}

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
    for (const node of await mapLimit(rollouts, HEAD_READS, (rollout) => headOf(rollout, heads))) {
      if (byId.has(node.id)) continue; // the same thread in two places: the first one wins
      byId.set(node.id, node);
      nodes.push(node);
    }
    await readSessionIndex(path.join(root, 'session_index.jsonl'), threadNames, ctx.warn);
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
  const reader = new TreeReader(ctx.warn, known, threadNames);
  const cwdById = new Map<string, string>();
  // Every changed tree is stamped before any is read, so the collector knows how much there is to read.
  const changed: RolloutNode[] = [];
  for (const root of nodes.filter((n) => !n.parent)) {
    const treeFiles = treeOf(root).map((n) => n.rollout.file);
    const unchanged = ctx.unchanged?.(treeFiles);
    if (unchanged) {
      yield { kind: 'unchanged', sessionIds: unchanged };
      continue;
    }
    for (const file of treeFiles) await ctx.stamp?.(file);
    changed.push(root);
  }
  for (const root of changed) {
    for (const session of await reader.read(root)) {
      cwdById.set(session.sessionId, session.cwd);
      yield { kind: 'session', session };
    }
  }
  for (const node of nodes) if (node.cwd && !cwdById.has(node.id)) cwdById.set(node.id, node.cwd);
  for (const root of location.found) {
    for await (const prompt of readCodexHistory(path.join(root, 'history.jsonl'), ctx.warn, cwdById)) {
      yield { kind: 'prompt', prompt };
    }
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

/**
 * Reads one tree of rollouts: a session, the forks and subagents that start from it, and theirs.
 * Parents are read first, so that a child's copy of its parent's history can be recognised line by
 * line; a subagent whose parent is here becomes a `SubagentThread` of the parent's session.
 */
class TreeReader {
  private readonly fingerprints = new Map<string, string[]>();

  constructor(
    private readonly warn: WarningSink,
    private readonly known: (id: string) => boolean,
    private readonly threadNames: Map<string, string>,
  ) {}

  async read(root: RolloutNode): Promise<Session[]> {
    const sessions: Session[] = [];
    await this.visit(root, undefined, undefined, sessions);
    return sessions;
  }

  private copySource = (id: string): CopySource | undefined => {
    const fingerprints = this.fingerprints.get(id);
    if (fingerprints) return { fingerprints };
    return this.known(id) ? { time: true } : undefined;
  };

  private async visit(
    node: RolloutNode,
    owner: Session | undefined,
    spawnedBy: Map<string, string> | undefined,
    sessions: Session[],
  ): Promise<void> {
    const attach = node.subagent && owner ? owner : undefined;
    const normalizer = new RolloutNormalizer(node.rollout.file, {
      idPrefix: attach ? `${node.id}:` : '',
      nameId: node.id,
      copySource: this.copySource,
      collectFingerprints: node.children.length > 0,
      warn: this.warn,
    });
    const read = await feed(normalizer, node.rollout, this.warn);
    if (node.children.length > 0) this.fingerprints.set(node.id, normalizer.fingerprints);
    let childOwner = owner;
    if (read && attach) {
      const thread: SubagentThread = {
        agentId: node.id,
        agentType: node.subagent!.type,
        ...(node.subagent!.nickname ? { description: node.subagent!.nickname } : {}),
        ...(spawnedBy?.get(node.id) ? { parentCallId: spawnedBy.get(node.id) } : {}),
        file: node.rollout.file,
        messages: normalizer.messages,
      };
      attach.subagents.push(thread);
      attach.files.push(node.rollout.file);
      for (const model of modelsOf(normalizer)) if (!attach.models.includes(model)) attach.models.push(model);
      attach.models.sort();
    } else if (read) {
      const session = this.sessionOf(node, normalizer);
      if (session) {
        sessions.push(session);
        childOwner = session;
      }
    }
    for (const child of node.children) await this.visit(child, childOwner, normalizer.spawnedThreads, sessions);
    this.fingerprints.delete(node.id);
  }

  private sessionOf(node: RolloutNode, n: RolloutNormalizer): Session | undefined {
    const messages = n.messages;
    if (!messages.some((m) => m.role === 'user' || m.role === 'assistant' || m.role === 'tool')) return undefined;
    const sessionId = n.sessionId ?? node.id;
    if (node.subagent?.parent || (node.forkedFrom && n.copiedFrom.size === 0)) {
      // A subagent or fork whose parent is not here: a session of its own, with a note.
      const head = messages.find((m) => m.metadata?.subtype === 'session_meta');
      if (head?.metadata) {
        if (node.subagent?.parent) {
          head.metadata.subagent_of = node.subagent.parent;
          head.metadata.subagent_type = node.subagent.type;
        }
        head.metadata.parent_missing = !this.known(node.subagent?.parent ?? node.forkedFrom!);
      }
    }
    const times = messages
      .map((m) => m.timestamp)
      .filter(Boolean)
      .sort();
    const title = this.threadNames.get(sessionId) ?? n.threadName ?? oneLine(n.firstPrompt() ?? '');
    return {
      source: 'codex',
      sessionId,
      title: title || `Session ${sessionId.slice(0, 8)}`,
      cwd: n.cwd ?? n.envCwd ?? '',
      ...(n.gitBranch ? { gitBranch: n.gitBranch } : {}),
      startedAt: times[0] ?? '',
      endedAt: times[times.length - 1] ?? '',
      models: modelsOf(n),
      ...(n.cliVersion ? { cliVersion: n.cliVersion } : {}),
      files: [node.rollout.file],
      messages,
      subagents: [],
      warnings: [],
      ...(n.copiedFrom.size > 0 ? { resumedFrom: [...n.copiedFrom] } : {}),
    };
  }
}

function modelsOf(n: RolloutNormalizer): string[] {
  const models = new Set<string>();
  for (const m of n.messages) {
    const model = m.metadata?.model;
    if (typeof model === 'string' && model && m.metadata?.response_id) models.add(model);
  }
  return [...models].sort();
}

/** Streams one rollout into a normalizer. Returns false when the file could not be read at all. */
async function feed(normalizer: RolloutNormalizer, rollout: RolloutFile, warn: WarningSink): Promise<boolean> {
  const file = rollout.file;
  let mtime: string;
  try {
    mtime = (await fs.stat(file)).mtime.toISOString();
  } catch (error) {
    warn({ file, message: `could not read file (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
    return false;
  }
  try {
    if (rollout.kind === 'json') {
      if (!(await readTsRollout(normalizer, file, warn))) return false;
    } else {
      for await (const record of readRolloutLines(file, { onWarning: warn })) {
        // A line the normalizer cannot handle costs that line only.
        const time = (record.value as { timestamp?: unknown } | null)?.timestamp;
        if (time !== undefined && isOutOfRangeTime(time)) {
          warn({
            file,
            line: record.line,
            message: `timestamp ${JSON.stringify(time)} is ${TIME_RANGE_TEXT}; ignored`,
          });
        }
        try {
          normalizer.add(record);
        } catch (error) {
          warn({ file, line: record.line, message: `record not understood (${errorText(error)}); skipped` });
        }
      }
    }
  } catch (error) {
    if (error instanceof NotRegularFileError || (error as NodeJS.ErrnoException).code === 'EACCES') {
      warn({ file, message: `${readFailure(error)}; skipped` });
      return false;
    }
    // A read or decompression error part-way: keep what was read, like a truncated last line.
    warn({ file, message: `could not read the whole file (${(error as Error).message}); kept what was read` });
  }
  normalizer.finish(mtime);
  return true;
}

/** TS-era `rollout-YYYY-MM-DD-<uuid>.json`: one document `{session, items}`, rewritten whole on save. */
async function readTsRollout(normalizer: RolloutNormalizer, file: string, warn: WarningSink): Promise<boolean> {
  const size = (await fs.stat(file)).size;
  if (size > MAX_JSON_ROLLOUT_BYTES) {
    warn({ file, message: `single-JSON rollout of ${size} bytes is too large to parse; skipped` });
    return false;
  }
  let doc: TsRolloutFile;
  try {
    const handle = await openRegular(file);
    try {
      doc = JSON.parse(await handle.readFile('utf8')) as TsRolloutFile;
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof NotRegularFileError || (error as NodeJS.ErrnoException).code === 'EACCES') {
      warn({ file, message: `${readFailure(error)}; skipped` });
      return false;
    }
    warn({
      file,
      message: `not valid JSON (${(error as Error).message}); the CLI rewrites this file whole, it may be half-written; skipped`,
    });
    return false;
  }
  if (!doc || typeof doc !== 'object' || !Array.isArray(doc.items)) {
    warn({ file, message: 'single-JSON rollout without an items array; skipped' });
    return false;
  }
  normalizer.addJsonHeader(doc.session && typeof doc.session === 'object' ? doc.session : {});
  doc.items.forEach((item, i) => {
    // Warned as the line the item would be in the other formats (the header is line 1).
    if (nestedDeeperThan(undefined, item, MAX_JSON_DEPTH)) {
      warn({ file, line: i + 2, message: `item ${i} nested more than ${MAX_JSON_DEPTH} levels deep; skipped` });
      return;
    }
    try {
      normalizer.addJsonItem(item, i);
    } catch (error) {
      warn({ file, line: i + 2, message: `item ${i} not understood (${errorText(error)}); skipped` });
    }
  });
  return true;
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
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
