import type { NormalizedMessage } from '../../model/message.ts';
import type { Session } from '../../model/session.ts';
import { readJsonl } from '../../util/jsonl.ts';
import { readFailure } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { oneLine } from './content.ts';
import { readKiroMeta, type KiroMeta, type KiroTurn } from './kiro-meta.ts';
import type { KiroPair } from './kiro-paths.ts';
import { kiroLine, type KiroLine } from './kiro-records.ts';
import { linkResults } from './tool-uses.ts';

export interface KiroSession {
  session: Session;
  /** The conversation id the SQLite store would use for it (`conversations_v2.conversation_id`). */
  conversationId: string;
  /** For choosing between copies of one conversation: newest time it records, and how many records. */
  freshness: number;
  size: number;
}

/** Reads one Kiro CLI session (`<id>.jsonl` streamed, `<id>.json` whole). Bad lines cost that line. */
export async function readKiroSession(pair: KiroPair, warn: WarningSink): Promise<KiroSession | undefined> {
  const { meta, problem } = await readKiroMeta(pair.json);
  if (problem && pair.json) warn({ file: pair.json, message: problem });
  const lines: KiroLine[] = [];
  try {
    for await (const record of readJsonl(pair.jsonl, { onWarning: warn })) {
      const parsed = kiroLine(pair.jsonl, record.line, record.value);
      if (typeof parsed === 'string') warn({ file: pair.jsonl, line: record.line, message: parsed });
      else lines.push(parsed);
    }
  } catch (error) {
    warn({ file: pair.jsonl, message: `could not read (${readFailure(error)}); skipped` });
    return undefined;
  }
  const messages = assemble(lines, meta);
  if (messages.length === 0 && !meta.title) return undefined;

  const times = messages
    .map((m) => m.timestamp)
    .filter(Boolean)
    .sort();
  const firstPrompt = messages.find((m) => m.metadata?.kind === 'prompt');
  const promptText = firstPrompt?.segments.find((s) => s.type === 'text')?.text ?? '';
  const models = new Set<string>();
  for (const m of messages) if (typeof m.metadata?.model === 'string') models.add(m.metadata.model);
  if (meta.model) models.add(meta.model);
  const sessionId = meta.sessionId ?? pair.id;
  const warnings: string[] = [];
  if (meta.parentSessionId) warnings.push(`a subagent of Kiro session ${meta.parentSessionId}`);
  const session: Session = {
    source: 'amazon-q',
    sessionId,
    title: oneLine(meta.title ?? '') || oneLine(promptText) || `Kiro session ${sessionId.slice(0, 8)}`,
    cwd: meta.cwd ?? '',
    startedAt: times[0] ?? meta.createdAt ?? '',
    endedAt: times[times.length - 1] ?? meta.updatedAt ?? meta.createdAt ?? '',
    models: [...models].sort(),
    cliVersion: 'Kiro CLI',
    files: pair.json ? [pair.jsonl, pair.json] : [pair.jsonl],
    messages,
    subagents: [],
    warnings,
  };
  const latest = Math.max(0, ...[meta.updatedAt, session.endedAt].map((t) => (t ? Date.parse(t) : 0)));
  return { session, conversationId: meta.conversationId ?? sessionId, freshness: latest, size: lines.length };
}

/**
 * Messages in file order with their times: a Prompt's own `meta.timestamp`; the last record of a user turn
 * gets the turn's `end_timestamp`; anything else the time before it (estimated). Each user turn's token
 * counts (`user_turn_metadatas`, matched by `message_ids`) go once on its first assistant message.
 */
function assemble(lines: KiroLine[], meta: KiroMeta): NormalizedMessage[] {
  const turnOf = new Map<string, KiroTurn>();
  const lastOfTurn = new Set<string>();
  for (const turn of meta.turns) {
    for (const id of turn.messageIds) turnOf.set(id, turn);
    const last = turn.messageIds[turn.messageIds.length - 1];
    if (last) lastOfTurn.add(last);
  }
  const counted = new Set<KiroTurn>();
  let currentTurn: KiroTurn | undefined;
  let previous = meta.createdAt;
  const out: NormalizedMessage[] = [];
  for (const l of lines) {
    const turn = (l.messageId && turnOf.get(l.messageId)) || (l.kind === 'Prompt' ? undefined : currentTurn);
    if (l.kind === 'Prompt') currentTurn = turn;
    let time = l.time;
    let estimated = false;
    if (!time && l.messageId && lastOfTurn.has(l.messageId) && turn?.endTime) time = turn.endTime;
    if (!time) {
      time = previous ?? meta.updatedAt ?? new Date(0).toISOString();
      estimated = true;
    }
    previous = time;
    // The model that answered: the thinking block names it; else the turn's, else the session's.
    const lineModel = l.messages.find((m) => typeof m.metadata?.model === 'string')?.metadata?.model as
      string | undefined;
    const model = lineModel ?? (turn?.model && turn.model !== 'auto' ? turn.model : meta.model);
    l.messages.forEach((m, k) => {
      m.timestamp = time!;
      m.id = l.messages.length > 1 ? `${time}#${l.line}.${k}` : `${time}#${l.line}`;
      if (estimated) m.timestamp_estimated = true;
      if (m.role === 'assistant' || m.source_type === 'tool_call') {
        if (model && !m.metadata?.model) m.metadata = { ...m.metadata, model };
        if (turn && !counted.has(turn) && m.role === 'assistant') {
          counted.add(turn);
          if (turn.usage) m.metadata = { ...m.metadata, usage: turn.usage };
          if (turn.credits !== undefined) m.metadata = { ...m.metadata, credits: turn.credits };
          if (turn.requests !== undefined) m.metadata = { ...m.metadata, requests: turn.requests };
        }
      }
      out.push(m);
    });
  }
  linkResults(out);
  return out;
}
