import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DataDir, readBodyFile } from '../archive/data-dir.ts';
import { sessionsCost } from '../insights/cost.ts';
import { applyPatch, MAIN_THREAD, type BodyLine, type MessagePatch } from '../model/body.ts';
import type { NormalizedMessage } from '../model/message.ts';
import type { Session, SessionSummary } from '../model/session.ts';
import type { ShareLens } from '../privacy/share-lens.ts';
import { readJsonl } from '../util/jsonl.ts';
import { openTable, type Column, type ExportFormat, type Row } from './tables.ts';

/**
 * `agent-logbook export`: the archive as two tables a team can load into DuckDB or ClickHouse next to other
 * people's — `sessions` (one row per session, the numbers the stats page adds up) and `messages` (one row per
 * normalized message of every thread). Bodies are streamed a line at a time: a session is never held whole.
 */

export const SESSION_COLUMNS: Column[] = [
  { name: 'owner', type: 'STRING' },
  { name: 'session_key', type: 'STRING' },
  { name: 'source', type: 'STRING' },
  { name: 'session_id', type: 'STRING' },
  { name: 'title', type: 'STRING' },
  { name: 'cwd', type: 'STRING' },
  { name: 'project', type: 'STRING' },
  { name: 'git_branch', type: 'STRING' },
  { name: 'started_at', type: 'TIMESTAMP' },
  { name: 'ended_at', type: 'TIMESTAMP' },
  { name: 'models', type: 'STRING' },
  { name: 'pattern', type: 'STRING' },
  { name: 'prompts', type: 'INT32' },
  { name: 'entries', type: 'INT32' },
  { name: 'tool_rounds', type: 'INT32' },
  { name: 'tool_uses', type: 'INT32' },
  { name: 'tool_errors', type: 'INT32' },
  { name: 'messages', type: 'INT32' },
  { name: 'subagents', type: 'INT32' },
  { name: 'input_tokens', type: 'INT64' },
  { name: 'output_tokens', type: 'INT64' },
  { name: 'cache_read_tokens', type: 'INT64' },
  { name: 'cache_creation_tokens', type: 'INT64' },
  { name: 'cost_usd', type: 'DOUBLE' },
  { name: 'source_present', type: 'BOOLEAN' },
];

export const MESSAGE_COLUMNS: Column[] = [
  { name: 'owner', type: 'STRING' },
  { name: 'session_key', type: 'STRING' },
  { name: 'source', type: 'STRING' },
  { name: 'thread', type: 'STRING' },
  { name: 'seq', type: 'INT32' },
  { name: 'message_id', type: 'STRING' },
  { name: 'timestamp', type: 'TIMESTAMP' },
  { name: 'role', type: 'STRING' },
  { name: 'source_type', type: 'STRING' },
  { name: 'kind', type: 'STRING' },
  { name: 'model', type: 'STRING' },
  { name: 'text', type: 'STRING' },
  { name: 'tool_name', type: 'STRING' },
  { name: 'tool_call_id', type: 'STRING' },
  { name: 'tool_status', type: 'STRING' },
  { name: 'tool_arguments', type: 'STRING' },
  { name: 'tool_output', type: 'STRING' },
  { name: 'input_tokens', type: 'INT64' },
  { name: 'output_tokens', type: 'INT64' },
  { name: 'cache_read_tokens', type: 'INT64' },
  { name: 'cache_creation_tokens', type: 'INT64' },
];

export interface ExportOptions {
  dataDir: string;
  outDir: string;
  format: ExportFormat;
  /** Who these sessions belong to, so several people's exports can be loaded side by side. */
  owner: string;
  /** Redact secrets and anonymize paths, user, host and e-mails (as `build --share` does). */
  share?: ShareLens;
}

export interface ExportResult {
  sessions: number;
  messages: number;
  files: string[];
}

function sessionRow(s: SessionSummary, owner: string): Row {
  // The priced part, as the stats page adds it up (models without a price left out); null when nothing is priced.
  const cost = sessionsCost([s]);
  return {
    owner,
    session_key: s.id,
    source: s.source,
    session_id: s.sessionId,
    title: s.title,
    cwd: s.cwd,
    project: s.project,
    git_branch: s.gitBranch,
    started_at: s.startedAt,
    ended_at: s.endedAt,
    models: s.models.join(','),
    pattern: s.stats.pattern,
    prompts: s.stats.prompts,
    entries: s.stats.entries,
    tool_rounds: s.stats.toolRounds,
    tool_uses: s.stats.toolUses,
    tool_errors: s.stats.toolErrors,
    messages: s.stats.messages,
    subagents: s.subagents,
    input_tokens: s.stats.tokens.input,
    output_tokens: s.stats.tokens.output,
    cache_read_tokens: s.stats.tokens.cacheRead,
    cache_creation_tokens: s.stats.tokens.cacheCreation,
    cost_usd: cost.priced > 0 ? cost.usd : null,
    source_present: s.sourcePresent,
  };
}

function messageRow(m: NormalizedMessage, s: SessionSummary, thread: string, seq: number, owner: string): Row {
  const usage = m.metadata?.usage;
  const call = m.tool_call;
  return {
    owner,
    session_key: s.id,
    source: s.source,
    thread,
    seq,
    message_id: m.id,
    timestamp: m.timestamp,
    role: m.role,
    source_type: m.source_type,
    kind: m.metadata?.kind,
    model: typeof m.metadata?.model === 'string' ? m.metadata.model : undefined,
    text: m.segments
      .filter((seg) => seg.type === 'text' && seg.text)
      .map((seg) => seg.text)
      .join('\n'),
    tool_name: call?.name,
    tool_call_id: call?.call_id,
    tool_status: m.source_type === 'tool_call' || m.source_type === 'tool_result' ? call?.status : undefined,
    tool_arguments: call?.arguments,
    tool_output: call?.output,
    input_tokens: usage?.input,
    output_tokens: usage?.output,
    cache_read_tokens: usage?.cacheRead,
    cache_creation_tokens: usage?.cacheCreation,
  };
}

/** Every message of a session body, patches applied, one at a time: patches (small) are read in a first pass
 * over the message file, messages in a second. */
async function* bodyMessagesPatched(
  dataDir: string,
  body: string,
): AsyncGenerator<{ thread: string; message: NormalizedMessage }> {
  let header: { version?: number; messages?: string } | undefined;
  try {
    header = JSON.parse(await fs.readFile(path.join(dataDir, body), 'utf8'));
  } catch {
    return;
  }
  if (header?.version !== 2 || !header.messages) {
    const whole = await readBodyFile(dataDir, body); // version 1: one JSON document
    if (!whole) return;
    for (const message of whole.session.messages) yield { thread: MAIN_THREAD, message };
    for (const agent of whole.session.subagents)
      for (const message of agent.messages) yield { thread: agent.agentId, message };
    return;
  }
  const file = path.join(dataDir, path.dirname(body), header.messages);
  const patches = new Map<string, MessagePatch[]>();
  try {
    for await (const { value } of readJsonl(file)) {
      const line = value as BodyLine;
      if ('patch' in line) {
        const key = `${line.thread}\u0000${line.patch.id}`;
        const list = patches.get(key);
        if (list) list.push(line.patch);
        else patches.set(key, [line.patch]);
      }
    }
    const seen = new Set<string>();
    for await (const { value } of readJsonl(file)) {
      const line = value as BodyLine;
      if (!('message' in line)) continue;
      const key = `${line.thread}\u0000${line.message.id}`;
      // A patch applies to the first message with its id (as ThreadAssembler does).
      if (!seen.has(key)) {
        seen.add(key);
        for (const p of patches.get(key) ?? []) applyPatch(line.message, p);
      }
      yield line;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

export async function exportArchive(options: ExportOptions): Promise<ExportResult> {
  const data = new DataDir(options.dataDir);
  const summaries = await data.readSummaries();
  const sessions = openTable(options.outDir, 'sessions', SESSION_COLUMNS, options.format);
  const messages = openTable(options.outDir, 'messages', MESSAGE_COLUMNS, options.format);
  let messageCount = 0;
  const lens = options.share;
  const owner = lens ? lens.text(options.owner) : options.owner;
  for (const original of summaries) {
    const summary = lens ? lens.summaries([original])[0]! : original;
    await sessions.write(sessionRow(summary, owner));
    const seqs = new Map<string, number>();
    for await (const { thread, message } of bodyMessagesPatched(options.dataDir, original.body)) {
      const seq = seqs.get(thread) ?? 0;
      seqs.set(thread, seq + 1);
      const m = lens ? lens.message(message) : message;
      await messages.write(messageRow(m, summary, thread, seq, owner));
      messageCount += 1;
    }
  }
  await sessions.close();
  await messages.close();
  return {
    sessions: summaries.length,
    messages: messageCount,
    files: ['sessions', 'messages'].map((t) => path.join(options.outDir, `${t}.${options.format}`)),
  };
}
