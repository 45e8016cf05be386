import type { MessageMetadata, MessageSegment, NormalizedMessage, ToolStatus } from '../../model/message.ts';
import { isObject, sanitize, textSegment } from './content.ts';
import { timeOf } from './kiro-meta.ts';

/** What one JSONL line becomes, before its time is known: messages in order, the line's own time if any. */
export interface KiroLine {
  line: number;
  kind: string;
  messageId?: string;
  time?: string;
  messages: NormalizedMessage[];
}

type Fields = Pick<NormalizedMessage, 'role' | 'source_type' | 'segments'> &
  Partial<Pick<NormalizedMessage, 'tool_call'>> & { metadata: MessageMetadata };

/**
 * One `{version, kind, data}` line of `<id>.jsonl` (kiro-cli's `LogEntryV1`): `Prompt`, `AssistantMessage`,
 * `ToolResults`, `Compaction`, `ResetTo`, `Clear`; any other kind is kept as `unknown` with its record.
 * Returns a message naming what is wrong when the line is not an envelope at all.
 */
export function kiroLine(file: string, line: number, value: unknown): KiroLine | string {
  if (!isObject(value) || typeof value.kind !== 'string') return 'not a Kiro session record (no "kind"); skipped';
  const kind = value.kind;
  const data = isObject(value.data) ? value.data : undefined;
  const messageId = typeof data?.message_id === 'string' ? data.message_id : undefined;
  const out: NormalizedMessage[] = [];
  const add = (event: string, fields: Fields, record?: unknown) => {
    out.push({
      id: '',
      timestamp: '',
      role: fields.role,
      source_type: fields.source_type,
      segments: fields.segments,
      ...(fields.tool_call ? { tool_call: fields.tool_call } : {}),
      raw: {
        event_type: kind,
        payload_type: event,
        file_path: file,
        line_index: line,
        ...(messageId ? { uuid: messageId } : {}),
        ...(record !== undefined ? { record } : {}),
      },
      metadata: fields.metadata,
    });
  };
  const unknown = () =>
    add('unknown', { role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown' } }, sanitize(value));
  const content = Array.isArray(data?.content) ? data.content : undefined;

  if (kind === 'Prompt' && content) {
    const segments: MessageSegment[] = [];
    for (const block of content) {
      if (isObject(block) && block.kind === 'text' && typeof block.data === 'string')
        segments.push(textSegment('input', block.data));
      else if (isObject(block) && block.kind === 'image') segments.push(imageBlock(block.data));
      else unknownBlock(add, block);
    }
    add('Prompt', { role: 'user', source_type: 'message', segments, metadata: { kind: 'prompt' } });
    const meta = isObject(data?.meta) ? data.meta : undefined;
    return { line, kind, messageId, time: timeOf(meta?.timestamp), messages: out };
  }
  if (kind === 'AssistantMessage' && content) {
    const base: MessageMetadata = { kind: 'response', response_id: messageId ?? `line-${line}` };
    content.forEach((block, k) => {
      if (!isObject(block)) return unknownBlock(add, block);
      if (block.kind === 'text' && typeof block.data === 'string') {
        if (!block.data.trim()) return;
        add('text', {
          role: 'assistant',
          source_type: 'message',
          segments: [textSegment('output', block.data)],
          metadata: { ...base },
        });
      } else if (block.kind === 'thinking' && isObject(block.data)) {
        const t = block.data;
        const text = typeof t.text === 'string' ? t.text : '';
        const model = typeof t.modelId === 'string' && t.modelId ? t.modelId : undefined;
        // The signature and redacted content are encrypted model state, not text: never stored.
        add('thinking', {
          role: 'assistant',
          source_type: 'message',
          segments: text ? [{ channel: 'output', type: 'text', format: 'thinking', text }] : [],
          metadata: { ...base, kind: 'thinking', ...(model ? { model } : {}) },
        });
      } else if (block.kind === 'toolUse' && isObject(block.data)) {
        const u = block.data;
        const input = u.input ?? {};
        add('toolUse', {
          role: 'tool',
          source_type: 'tool_call',
          segments: [],
          tool_call: {
            call_id: typeof u.toolUseId === 'string' && u.toolUseId ? u.toolUseId : `${base.response_id}:tool-${k}`,
            name: typeof u.name === 'string' && u.name ? u.name : 'unknown',
            status: 'unanswered',
            arguments: typeof input === 'string' ? input : JSON.stringify(input, null, 2),
            arguments_json: input,
          },
          metadata: { ...base },
        });
      } else unknownBlock(add, block);
    });
    if (out.length === 0)
      add('empty', { role: 'assistant', source_type: 'message', segments: [], metadata: { ...base } });
    return { line, kind, messageId, messages: out };
  }
  if (kind === 'ToolResults' && content) {
    const results = isObject(data?.results) ? data.results : {};
    for (const block of content) {
      if (!isObject(block) || block.kind !== 'toolResult' || !isObject(block.data)) {
        unknownBlock(add, block);
        continue;
      }
      const r = block.data;
      const callId = typeof r.toolUseId === 'string' ? r.toolUseId : '';
      const detail = isObject(results[callId]) ? results[callId] : undefined;
      const status: ToolStatus =
        detail?.result === 'Cancelled'
          ? 'rejected'
          : r.status === 'error' || r.status === 'Error'
            ? 'error'
            : 'completed';
      const { output, json } = resultOutput(r.content);
      add('toolResult', {
        role: 'tool',
        source_type: 'tool_result',
        segments: [],
        tool_call: {
          call_id: callId,
          name: 'unknown',
          status,
          output,
          ...(json !== undefined ? { output_json: json } : {}),
        },
        metadata: {},
      });
    }
    return { line, kind, messageId, messages: out };
  }
  if (kind === 'Compaction' && data) {
    const summary = typeof data.summary === 'string' ? data.summary : '';
    const snapshot = Array.isArray(data.messages_snapshot) ? data.messages_snapshot.length : undefined;
    add('Compaction', {
      role: 'system',
      source_type: 'message',
      segments: summary ? [textSegment('system', summary)] : [],
      metadata: { kind: 'compact_summary', ...(snapshot !== undefined ? { snapshot_messages: snapshot } : {}) },
    });
    return { line, kind, messageId, messages: out };
  }
  if (kind === 'ResetTo' || kind === 'Clear') {
    const target = typeof data?.target_index === 'number' ? data.target_index : undefined;
    const text =
      kind === 'Clear'
        ? 'Conversation cleared (/clear): the model no longer sees what came before.'
        : `Conversation rewound to entry ${target ?? '?'}: the model no longer sees the entries after it.`;
    add(kind, {
      role: 'system',
      source_type: 'meta',
      segments: [textSegment('system', text)],
      metadata: { kind: 'system_event', subtype: kind, ...(target !== undefined ? { target_index: target } : {}) },
    });
    return { line, kind, messageId, messages: out };
  }
  unknown();
  return { line, kind, messageId, messages: out };
}

function unknownBlock(add: (event: string, fields: Fields, record?: unknown) => void, block: unknown): void {
  add('unknown', { role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown' } }, sanitize(block));
}

/** A tool result's blocks as text: `text` as is; `json` (shell's `{exit_status, stdout, stderr}`, MCP output)
 * by its streams when it has them, else as indented JSON. */
function resultOutput(content: unknown): { output: string; json?: unknown } {
  const texts: string[] = [];
  const json: unknown[] = [];
  for (const block of Array.isArray(content) ? content : []) {
    if (isObject(block) && block.kind === 'text' && typeof block.data === 'string') texts.push(block.data);
    else if (isObject(block) && block.kind === 'json') {
      json.push(block.data);
      const d = isObject(block.data) ? block.data : undefined;
      if (d && (typeof d.stdout === 'string' || typeof d.stderr === 'string')) {
        const parts = [d.stdout, d.stderr].filter((s): s is string => typeof s === 'string' && s.length > 0);
        if (typeof d.exit_status === 'string' && d.exit_status !== 'exit status: 0') parts.push(d.exit_status);
        texts.push(parts.join('\n'));
      } else texts.push(JSON.stringify(block.data, null, 2));
    } else texts.push(JSON.stringify(block));
  }
  return { output: texts.join('\n'), ...(json.length > 0 ? { json: json.length === 1 ? json[0] : json } : {}) };
}

/** A prompt image: `{source: {type: 'base64', media_type, data}}` kept inline up to 1 MB, else by size. */
function imageBlock(data: unknown): MessageSegment {
  const source = isObject(data) && isObject(data.source) ? data.source : undefined;
  const mediaType = typeof source?.media_type === 'string' ? source.media_type : 'application/octet-stream';
  const b64 = typeof source?.data === 'string' ? source.data : undefined;
  if (!b64)
    return {
      channel: 'input',
      type: 'image',
      format: 'image',
      media: { media_type: mediaType, omitted: 'image not stored as bytes' },
    };
  const size = Math.floor((b64.length * 3) / 4);
  if (size > 1_000_000)
    return {
      channel: 'input',
      type: 'image',
      format: 'image',
      media: {
        media_type: mediaType,
        size_bytes: size,
        omitted: `image of ${size} bytes is larger than 1 MB; not kept`,
      },
    };
  return {
    channel: 'input',
    type: 'image',
    format: 'image',
    media: { media_type: mediaType, size_bytes: size, data_uri: `data:${mediaType};base64,${b64}` },
  };
}
