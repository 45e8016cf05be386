import type { MessageKind, MessageMetadata, MessageSegment, NormalizedMessage } from '../../model/message.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { ClaudeRecord } from './schema.ts';
import { commandLine, stripAnsi } from './classify.ts';
import type { MessageWriter } from './message-writer.ts';

/** Record types that carry nothing to show and can be large; kept as a one-line meta event. */
const BOOKKEEPING_TYPES = new Set([
  'file-history-snapshot',
  'file-history-delta',
  'attribution-snapshot',
  'queue-operation',
  'speculation-accept',
  'content-replacement',
  'context-collapse-commit',
  'context-collapse-snapshot',
  'mode',
  'permission-mode',
  'agent-name',
  'agent-color',
  'agent-setting',
  'last-prompt',
  'tag',
  'task-summary',
  'worktree-state',
  'pr-link',
  'frame-link',
]);
const TITLE_TYPES = new Set(['summary', 'custom-title', 'ai-title']);

export interface TitleState {
  custom?: string;
  auto?: string;
}

/** A `summary` record's title, which counts only once its `leafUuid` turns out to be the thread's own. */
export interface PendingSummary {
  title: string;
  leafUuid?: string;
}

/** Record types not known here, by type: the first line and how many lines had it (warned once per file). */
export type UnknownTypes = Map<string, { line: number; count: number }>;

/** A `system` record: a compact boundary, a local command or its output, an API error, a notice, or an event. */
export function addSystem(writer: MessageWriter, record: ClaudeRecord, line: number): void {
  const subtype = record.subtype ?? 'unknown';
  const text = typeof record.content === 'string' ? record.content : undefined;
  let kind: MessageKind = 'system_event';
  let role: NormalizedMessage['role'] = 'meta';
  let segments: MessageSegment[] = [];
  const metadata: MessageMetadata = { subtype };
  if (subtype === 'compact_boundary') {
    kind = 'compact_boundary';
    role = 'system';
    metadata.compact = { trigger: record.compactMetadata?.trigger, pre_tokens: record.compactMetadata?.preTokens };
  } else if (subtype === 'local_command' && text) {
    kind = commandLine(text) ? 'command' : 'command_output';
    role = kind === 'command' ? 'user' : 'meta';
    segments = [
      { channel: 'system', type: 'text', format: 'local_command', text: commandLine(text) ?? stripAnsi(text) },
    ];
  } else if (subtype === 'api_error') {
    kind = 'api_error';
    role = 'system';
    segments = [{ channel: 'system', type: 'text', format: subtype, text: apiErrorText(record) }];
  } else if ((subtype === 'informational' || subtype === 'warning' || subtype === 'error') && text) {
    role = 'system';
    segments = [{ channel: 'system', type: 'text', format: subtype, text }];
  }
  metadata.kind = kind;
  writer.push(line, record, { role, source_type: 'meta', segments, metadata });
}

function apiErrorText(record: ClaudeRecord): string {
  const error = record.error as { message?: string; status?: number } | undefined;
  const parts = ['API error'];
  if (error?.status) parts.push(String(error.status));
  if (error?.message) parts.push(error.message);
  return parts.join(': ');
}

export function addProgress(writer: MessageWriter, record: ClaudeRecord, line: number): void {
  writer.push(line, record, {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: { kind: 'system_event', subtype: `progress:${record.data?.type ?? 'unknown'}` },
  });
}

export function isTitleRecord(type: string | undefined): boolean {
  return !!type && TITLE_TYPES.has(type);
}

/** A `custom-title`, `ai-title` or `summary` record: noted as the thread's title, and kept as a meta event. */
export function addTitle(
  writer: MessageWriter,
  record: ClaudeRecord,
  line: number,
  titles: TitleState,
  pendingSummaries: PendingSummary[],
): void {
  if (record.type === 'custom-title' && record.customTitle) titles.custom = record.customTitle;
  else if (record.type === 'ai-title' && record.aiTitle) titles.auto = record.aiTitle;
  else if (record.type === 'summary' && record.summary) {
    pendingSummaries.push({ title: record.summary, leafUuid: record.leafUuid });
  }
  writer.push(line, record, {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: {
      kind: 'title',
      subtype: record.type,
      title: record.customTitle ?? record.aiTitle ?? record.summary,
    },
  });
}

export function isBookkeepingRecord(type: string | undefined): boolean {
  return !!type && BOOKKEEPING_TYPES.has(type);
}

export function addBookkeeping(writer: MessageWriter, record: ClaudeRecord, line: number): void {
  writer.push(line, record, {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: { kind: 'system_event', subtype: record.type },
  });
}

/** A record of a type not known here: kept whole as meta, and counted for one warning per type. */
export function addUnknown(
  writer: MessageWriter,
  record: ClaudeRecord,
  line: number,
  unknownTypes: UnknownTypes,
): void {
  const type = String(record.type ?? 'untyped');
  const seen = unknownTypes.get(type);
  if (seen) seen.count += 1;
  else unknownTypes.set(type, { line, count: 1 });
  writer.push(line, record, {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: { kind: 'unknown', subtype: type },
    record,
  });
}

export function warnUnknownTypes(unknownTypes: UnknownTypes, file: string, warn: WarningSink | undefined): void {
  for (const [type, { line, count }] of unknownTypes) {
    warn?.({
      file,
      line,
      message: `unknown record type "${type}"${count > 1 ? ` (${count} lines)` : ''}; kept as meta`,
    });
  }
}
