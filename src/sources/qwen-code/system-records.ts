import type { MessageKind, MessageMetadata, MessageSegment } from '../../model/message.ts';
import { isObject, str, type Draft, type Findings, type QwenRecord } from './schema.ts';

/**
 * A `system` record (`subtype` names it): a title, a compression checkpoint, a slash command and its output, an
 * `@` file read, a rewind; the rest (telemetry, snapshots, bookkeeping) are kept as events without text.
 */
export function systemDrafts(r: QwenRecord, findings: Findings): Draft[] {
  const subtype = str(r.subtype) ?? 'system';
  const payload = isObject(r.systemPayload) ? r.systemPayload : {};
  let kind: MessageKind = 'system_event';
  let role: Draft['role'] = 'meta';
  let text: string | undefined;
  const metadata: MessageMetadata = { subtype };
  if (subtype === 'custom_title') {
    const title = str(payload.customTitle);
    if (title) findings.customTitle = title;
    kind = 'title';
    metadata.title = title;
    if (str(payload.titleSource)) metadata.title_source = payload.titleSource;
  } else if (subtype === 'chat_compression') {
    kind = 'compact_boundary';
    role = 'system';
    const info = isObject(payload.info) ? payload.info : {};
    metadata.compact = {
      ...(typeof info.originalTokenCount === 'number' ? { pre_tokens: info.originalTokenCount } : {}),
    };
    if (typeof info.newTokenCount === 'number') metadata.post_tokens = info.newTokenCount;
  } else if (subtype === 'slash_command') {
    const command = str(payload.rawCommand);
    if (payload.phase === 'result') {
      kind = 'command_output';
      text = outputText(payload.outputHistoryItems) || undefined;
    } else {
      kind = 'command';
      role = 'user';
      text = command;
    }
    if (command) metadata.command = command;
  } else if (subtype === 'at_command') {
    role = 'system';
    const files = Array.isArray(payload.filesRead) ? payload.filesRead.filter((f) => typeof f === 'string') : [];
    text = [str(payload.userText), str(payload.message), files.length ? `Files read: ${files.join(', ')}` : undefined]
      .filter(Boolean)
      .join('\n');
    if (payload.status === 'error') metadata.is_error = true;
  } else if (subtype === 'info' || subtype === 'warning' || subtype === 'error') {
    // The older layout's info / warning / error messages.
    role = 'system';
    if (subtype === 'error') kind = 'api_error';
    text = str(payload.displayText);
  } else if (subtype === 'background_task_completed' || subtype === 'notification') {
    role = 'system';
    text = str(payload.displayText);
  }
  const segments: MessageSegment[] = text
    ? [{ channel: role === 'user' ? 'input' : 'system', type: 'text', format: subtype, text }]
    : [];
  metadata.kind = kind;
  return [{ role, source_type: role === 'user' ? 'message' : 'meta', segments, metadata }];
}

/** The text of the history items a slash command showed (`[{type, text}]`). */
function outputText(items: unknown): string {
  if (!Array.isArray(items)) return '';
  return items
    .map((i) => (isObject(i) && typeof i.text === 'string' ? i.text : ''))
    .filter(Boolean)
    .join('\n');
}
