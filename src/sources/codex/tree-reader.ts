import { promises as fs } from 'node:fs';
import type { Session, SubagentThread } from '../../model/session.ts';
import { NotRegularFileError, openRegular, readFailure } from '../../util/fs.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../../util/jsonl.ts';
import { isOutOfRangeTime, TIME_RANGE_TEXT } from '../../util/time.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { RolloutHead } from './head-cache.ts';
import { RolloutNormalizer, type CopySource } from './normalize.ts';
import type { RolloutFile } from './paths.ts';
import { readRolloutLines } from './read.ts';
import type { TsRolloutFile } from './schema.ts';

/** TS-era `.json` rollouts are one JSON document; past this size one is not parsed. */
const MAX_JSON_ROLLOUT_BYTES = 256 * 1024 * 1024;

/** One rollout file and what its first line says about it (`subagent`: set for subagent rollouts, from
 * `source.subagent`: their kind, name and parent thread). */
export interface RolloutNode extends RolloutHead {
  rollout: RolloutFile;
  parent?: RolloutNode;
  children: RolloutNode[];
}

/**
 * Reads one tree of rollouts: a session, the forks and subagents that start from it, and theirs.
 * Parents are read first, so that a child's copy of its parent's history can be recognised line by
 * line; a subagent whose parent is here becomes a `SubagentThread` of the parent's session.
 */
export class TreeReader {
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
