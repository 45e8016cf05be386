import path from 'node:path';
import type { NormalizedMessage } from '../../model/message.ts';
import type { Session } from '../../model/session.ts';
import type { ConversationRow } from './reader.ts';
import type { QConversationState, QUserMessage } from './schema.ts';
import { planCarry } from './carry.ts';
import { hash, isObject, oneLine } from './content.ts';
import { draftMaker, NOTICE_UNIT, unitOf, type Draft } from './draft.ts';
import { baseElementKey, elementParts, summaryOf, tangentMainKeys, uniqueKeys } from './history-elements.ts';
import type { ElementParts } from './history-elements.ts';
import { elementDrafts, nextDrafts, summaryDraft } from './history.ts';
import { resolveTimes } from './times.ts';
import { linkResults } from './tool-uses.ts';
import { transcriptDrafts } from './transcript.ts';

export { imageSegment, INLINE_IMAGE_MAX_BYTES, INTERRUPT_MARKER, sanitize } from './content.ts';
export { elementParts, latestDataTime } from './history-elements.ts';
export { isoFromMs, isoFromText } from './times.ts';
export { INJECTED_CONTEXT_MAX_CHARS } from './user-turn.ts';

export interface NormalizeInput {
  state: QConversationState;
  row: ConversationRow;
  conversationId: string;
  /** The directory (row key) when the winning copy has none, e.g. a `/save` file also found in a database. */
  cwd?: string;
  /** This conversation as an earlier run stored it: times first seen, and entries Q has since dropped. */
  archived?: Session;
}

/** Turns one stored `ConversationState` into a Session (see fixtures/AMAZONQ.md for the mapping). */
export function normalizeConversation(input: NormalizeInput): Session | undefined {
  const { state, row } = input;
  const file = row.file;
  const draft = draftMaker(file);
  const history = Array.isArray(state.history) ? state.history : [];
  const elements = history.map(elementParts);
  const keys = uniqueKeys(elements.map(baseElementKey));
  const transcript = Array.isArray(state.transcript) ? state.transcript : [];
  const summary = summaryOf(state);
  const next = isObject(state.next_message) ? (state.next_message as QUserMessage) : undefined;

  // Planned units of this copy, in page order: transcript fallback, summary, history, next_message.
  const useTranscript = elements.length === 0 && transcript.length > 0;
  const transcriptKeys = useTranscript ? uniqueKeys(transcript.map((t) => `t:${hash(JSON.stringify(t))}`)) : [];
  const summaryKey = summary ? `s:${hash(summary.text)}` : undefined;
  const currentUnits = [
    ...(useTranscript ? [NOTICE_UNIT, ...transcriptKeys] : []),
    ...(summaryKey ? [summaryKey] : []),
    ...keys,
  ];
  const carry = planCarry(input.archived, currentUnits, keys);
  const dropTranscript = useTranscript && carry.carried.some((m) => unitOf(m)?.startsWith('h:'));

  const drafts: Draft[] = [];
  if (useTranscript && !dropTranscript) drafts.push(...transcriptDrafts(draft, transcript, transcriptKeys));
  if (summary && summaryKey) drafts.push(summaryDraft(draft, summary, summaryKey, carry.offset));
  const mainKeys = tangentMainKeys(state);
  elements.forEach((parts, i) => {
    drafts.push(...elementDrafts(draft, parts, keys[i]!, i, carry.offset + i, mainKeys));
  });
  if (next) drafts.push(...nextDrafts(draft, next, carry.offset + elements.length, elements.length));

  if (drafts.length === 0 && carry.carried.length === 0) return undefined;
  resolveTimes(drafts, input.archived, row);
  const messages = [...carry.carried, ...drafts.map((d) => d.message)];
  uniqueIds(messages);
  linkResults(messages);
  if (!messages.some((m) => m.role === 'user' || m.role === 'assistant' || m.role === 'tool')) {
    if (!summary) return undefined;
  }

  const times = messages
    .map((m) => m.timestamp)
    .filter(Boolean)
    .sort();
  const firstPrompt = messages.find((m) => m.metadata?.kind === 'prompt');
  const promptText = firstPrompt?.segments.find((s) => s.type === 'text')?.text ?? '';
  const models = new Set<string>();
  for (const m of messages) if (typeof m.metadata?.model === 'string') models.add(m.metadata.model);
  const stateModel = modelOf(state);
  if (stateModel) models.add(stateModel);
  const warnings: string[] = [];
  const carriedEntries = new Set(carry.carried.map(unitOf).filter((u) => u?.startsWith('h:'))).size;
  if (carriedEntries > 0) {
    warnings.push(
      `${carriedEntries} earlier entries are no longer in ${file} (trimmed or compacted by Q); kept from the archive`,
    );
  }
  if (dropTranscript) warnings.push('transcript not shown: the archive holds the full history it summarizes');
  return {
    source: 'amazon-q',
    sessionId: input.conversationId,
    title: oneLine(promptText) || `Amazon Q conversation ${input.conversationId.slice(0, 8)}`,
    cwd: row.key ?? input.cwd ?? envCwd(elements) ?? (row.kind === 'json' ? path.dirname(file) : ''),
    startedAt: times[0] ?? '',
    endedAt: times[times.length - 1] ?? '',
    models: [...models].sort(),
    ...(row.product === 'Kiro CLI' ? { cliVersion: 'Kiro CLI' } : {}),
    files: [file],
    messages,
    subagents: [],
    warnings,
  };
}

function modelOf(state: QConversationState): string | undefined {
  const info = isObject(state.model_info) ? state.model_info : undefined;
  const model = info?.model_id ?? state.model;
  return typeof model === 'string' && model ? model : undefined;
}

function envCwd(elements: ElementParts[]): string | undefined {
  for (const parts of elements) {
    const cwd = parts.user?.env_context?.env_state?.current_working_directory;
    if (typeof cwd === 'string' && cwd) return cwd;
  }
  return undefined;
}

function uniqueIds(messages: NormalizedMessage[]): void {
  const seen = new Set<string>();
  for (const m of messages) {
    let id = m.id;
    for (let n = 2; seen.has(id); n += 1) id = `${m.id}-${n}`;
    m.id = id;
    seen.add(id);
  }
}
