import type { MessageKind, MessageMetadata, RawRef } from '../../model/message.ts';
import type { QUserMessage } from './schema.ts';
import { INTERRUPT_MARKER, isObject, sanitize, textSegment } from './content.ts';
import { NEXT_UNIT, type Draft, type MakeDraft } from './draft.ts';
import { responseMessageId, type ElementParts, type Summary } from './history-elements.ts';
import { isoFromMs, isoFromText } from './times.ts';
import { toolCallFields } from './tool-uses.ts';
import { userDrafts } from './user-turn.ts';

/** The messages of one `history` element: its user side, then the assistant's response or tool calls. */
export function elementDrafts(
  draft: MakeDraft,
  parts: ElementParts,
  key: string,
  index: number,
  position: number,
  mainKeys: Set<string> | undefined,
): Draft[] {
  const drafts: Draft[] = [];
  const lineIndex = index + 1;
  const tangent = mainKeys !== undefined && !mainKeys.has(key.replace(/#\d+$/, ''));
  const extra: MessageMetadata = tangent ? { tangent: true } : {};
  const messageId = responseMessageId(parts.assistant);
  const rawBase = {
    line_index: lineIndex,
    payload_type: parts.form,
    ...(messageId ? { uuid: messageId } : {}),
  };
  if (parts.form === 'unknown') {
    drafts.push(
      draft(
        key,
        `h${position}.0`,
        0,
        undefined,
        { ...rawBase, event_type: 'unknown', record: sanitize(parts.raw) },
        { role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', ...extra } },
      ),
    );
    return drafts;
  }
  const rm = parts.metadata;
  const userTime = isoFromText(parts.user?.timestamp) ?? isoFromMs(rm?.request_start_timestamp_ms);
  const assistantTime = isoFromMs(rm?.stream_end_timestamp_ms) ?? isoFromMs(rm?.request_start_timestamp_ms);
  for (const d of [
    ...userDrafts(draft, parts.user, key, userTime, rawBase, extra),
    ...assistantDrafts(draft, parts, key, assistantTime, rawBase, extra),
  ]) {
    d.part = drafts.length;
    d.local = `h${position}.${d.part}`;
    drafts.push(d);
  }
  return drafts;
}

/** The assistant side of an element: a `Response`, or a `ToolUse` (its prose, then one message per call). */
function assistantDrafts(
  draft: MakeDraft,
  parts: ElementParts,
  key: string,
  time: string | undefined,
  rawBase: Omit<RawRef, 'file_path' | 'event_type'>,
  extra: MessageMetadata,
): Draft[] {
  const rm = parts.metadata;
  const model = typeof rm?.model_id === 'string' && rm.model_id ? rm.model_id : undefined;
  const assistant = parts.assistant;
  const responseMeta: MessageMetadata = {
    kind: 'response',
    response_id: key,
    ...(model ? { model } : {}),
    ...extra,
  };
  if (assistant?.Response && isObject(assistant.Response)) {
    const text = typeof assistant.Response.content === 'string' ? assistant.Response.content : '';
    const interrupted = text.trim() === INTERRUPT_MARKER;
    return [
      draft(
        key,
        '',
        0,
        time,
        { ...rawBase, event_type: 'Response' },
        {
          role: 'assistant',
          source_type: 'message',
          segments: text ? [textSegment('output', text)] : [],
          metadata: { ...responseMeta, ...(interrupted ? { kind: 'interrupt' as MessageKind } : {}) },
        },
      ),
    ];
  }
  if (assistant?.ToolUse && isObject(assistant.ToolUse)) {
    const drafts: Draft[] = [];
    const toolUse = assistant.ToolUse;
    const text = typeof toolUse.content === 'string' ? toolUse.content : '';
    if (text.trim()) {
      drafts.push(
        draft(
          key,
          '',
          0,
          time,
          { ...rawBase, event_type: 'ToolUse' },
          {
            role: 'assistant',
            source_type: 'message',
            segments: [textSegment('output', text)],
            metadata: responseMeta,
          },
        ),
      );
    }
    const uses = Array.isArray(toolUse.tool_uses) ? toolUse.tool_uses : [];
    for (const fields of toolCallFields(uses, key, responseMeta)) {
      drafts.push(
        draft(key, '', 0, time, { ...rawBase, event_type: 'ToolUse', payload_type: `${parts.form}:tool_use` }, fields),
      );
    }
    if (uses.length === 0 && !text.trim()) {
      drafts.push(
        draft(
          key,
          '',
          0,
          time,
          { ...rawBase, event_type: 'ToolUse' },
          { role: 'assistant', source_type: 'message', segments: [], metadata: responseMeta },
        ),
      );
    }
    return drafts;
  }
  if (assistant !== undefined) {
    return [
      draft(
        key,
        '',
        0,
        time,
        { ...rawBase, event_type: 'unknown', record: sanitize(assistant) },
        { role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', ...extra } },
      ),
    ];
  }
  return [];
}

/** The prompt (or results) waiting to be sent: `next_message`, after the last history element. */
export function nextDrafts(draft: MakeDraft, next: QUserMessage, position: number, historyLength: number): Draft[] {
  const drafts: Draft[] = [];
  const pending = userDrafts(
    draft,
    next,
    NEXT_UNIT,
    isoFromText(next.timestamp),
    { line_index: historyLength + 1, payload_type: 'next_message' },
    { pending: true },
  );
  for (const d of pending) {
    d.part = drafts.length;
    d.local = `n${position}.${drafts.length}`;
    drafts.push(d);
  }
  return drafts;
}

/** The summary `/compact` leaves (`latest_summary`), before the history that follows it. */
export function summaryDraft(draft: MakeDraft, summary: Summary, key: string, position: number): Draft {
  const rm = summary.metadata;
  const model = typeof rm?.model_id === 'string' && rm.model_id ? rm.model_id : undefined;
  return draft(
    key,
    `s${position}`,
    0,
    isoFromMs(rm?.stream_end_timestamp_ms) ?? isoFromMs(rm?.request_start_timestamp_ms),
    { event_type: 'latest_summary', line_index: 1, ...(rm?.message_id ? { uuid: rm.message_id } : {}) },
    {
      role: 'system',
      source_type: 'message',
      segments: [textSegment('system', summary.text)],
      metadata: { kind: 'compact_summary', ...(model ? { model } : {}) },
    },
  );
}
