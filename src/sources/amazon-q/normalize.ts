import { createHash } from 'node:crypto';
import { saneIsoFromMs, saneIsoFromText } from '../../util/time.ts';
import path from 'node:path';
import type {
  MessageKind,
  MessageMetadata,
  MessageSegment,
  NormalizedMessage,
  RawRef,
  ToolCall,
  ToolStatus,
} from '../../model/message.ts';
import type { Session } from '../../model/session.ts';
import type { ConversationRow } from './reader.ts';
import type {
  QAssistantMessage,
  QConversationState,
  QImage,
  QRequestMetadata,
  QToolUseResult,
  QUserMessage,
} from './schema.ts';

/** Images up to this size are kept inline as data URIs; larger ones only by size (the same bound as the pages). */
export const INLINE_IMAGE_MAX_BYTES = 1_000_000;
/** Injected context (context files, hook output) repeats with every prompt; the data keeps its start. */
export const INJECTED_CONTEXT_MAX_CHARS = 20_000;
/** The assistant message Q itself pushes when the user interrupts tool use. */
export const INTERRUPT_MARKER = 'Tool uses were interrupted, waiting for the next user prompt';

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};
const TRANSCRIPT_TOOLS = /\n?\[Tool uses: ([^\]\n]*)\]\s*$/;
const SLASH_COMMAND = /^\/[A-Za-z][\w-]*(\s|$)/;
const APPROVAL = /^[ynt]$/i;
const NOTICE_UNIT = 't:notice';
const NEXT_UNIT = 'n:next';

interface ElementParts {
  form: 'tuple' | 'object' | 'unknown';
  user?: QUserMessage;
  assistant?: QAssistantMessage;
  metadata?: QRequestMetadata;
  raw: unknown;
}

/** A message before its time is known: the id is `<time>#<local>` once times are resolved. */
interface Draft {
  message: NormalizedMessage;
  /** The stored unit it belongs to (one history element, the summary, one transcript entry, next_message). */
  unit: string;
  part: number;
  local: string;
  dataTime?: string;
}

export interface NormalizeInput {
  state: QConversationState;
  row: ConversationRow;
  conversationId: string;
  /** The directory (row key) when the winning copy has none, e.g. a `/save` file also found in a database. */
  cwd?: string;
  /** This conversation as an earlier run stored it: times first seen, and entries Q has since dropped. */
  archived?: Session;
}

/** Reads an element in either serde form: `[user, assistant]` or `{ user, assistant, request_metadata }`. */
export function elementParts(raw: unknown): ElementParts {
  if (Array.isArray(raw) && raw.length === 2 && isObject(raw[0]) && isObject(raw[1])) {
    return { form: 'tuple', user: raw[0] as QUserMessage, assistant: raw[1] as QAssistantMessage, raw };
  }
  if (isObject(raw) && (isObject(raw.user) || isObject(raw.assistant))) {
    return {
      form: 'object',
      user: isObject(raw.user) ? (raw.user as QUserMessage) : undefined,
      assistant: isObject(raw.assistant) ? (raw.assistant as QAssistantMessage) : undefined,
      metadata: isObject(raw.request_metadata) ? (raw.request_metadata as QRequestMetadata) : undefined,
      raw,
    };
  }
  return { form: 'unknown', raw };
}

/** A copy of a stored value without the bulky parts: image byte arrays and per-chunk timings. */
export function sanitize(value: unknown): unknown {
  if (value === undefined) return undefined;
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) => {
      if (key === 'Bytes' && Array.isArray(v)) return `[${v.length} bytes omitted]`;
      if (key === 'time_between_chunks' && Array.isArray(v)) return `[${v.length} timings omitted]`;
      return v;
    }),
  );
}

function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 16);
}

function responseMessageId(assistant: QAssistantMessage | undefined): string | undefined {
  const id = assistant?.Response?.message_id ?? assistant?.ToolUse?.message_id;
  return typeof id === 'string' && id ? id : undefined;
}

/** A key per history element that survives trimming (indexes shift when Q drops the oldest entries). */
function baseElementKey(parts: ElementParts): string {
  const id = responseMessageId(parts.assistant) ?? parts.metadata?.message_id;
  if (typeof id === 'string' && id) return `h:${id}`;
  return `h:#${hash(JSON.stringify(sanitize(parts.raw)) ?? 'null')}`;
}

function uniqueKeys(keys: string[]): string[] {
  const seen = new Map<string, number>();
  return keys.map((key) => {
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n === 1 ? key : `${key}#${n}`;
  });
}

/** Times outside the sane range (util/time.ts) are treated as absent. */
export function isoFromMs(ms: unknown): string | undefined {
  return saneIsoFromMs(ms);
}

export function isoFromText(text: unknown): string | undefined {
  return saneIsoFromText(text);
}

function summaryOf(state: QConversationState): { text: string; metadata?: QRequestMetadata } | undefined {
  const s = state.latest_summary;
  if (typeof s === 'string' && s.trim()) return { text: s };
  if (Array.isArray(s) && typeof s[0] === 'string' && s[0].trim()) {
    return { text: s[0], metadata: isObject(s[1]) ? (s[1] as QRequestMetadata) : undefined };
  }
  return undefined;
}

/** The newest time the data itself records, to pick the freshest of several copies of one conversation. */
export function latestDataTime(state: QConversationState): number | undefined {
  let latest: number | undefined;
  const see = (iso: string | undefined) => {
    if (!iso) return;
    const t = Date.parse(iso);
    if (latest === undefined || t > latest) latest = t;
  };
  for (const raw of Array.isArray(state.history) ? state.history : []) {
    const parts = elementParts(raw);
    see(isoFromText(parts.user?.timestamp));
    see(isoFromMs(parts.metadata?.stream_end_timestamp_ms));
    see(isoFromMs(parts.metadata?.request_start_timestamp_ms));
  }
  see(isoFromText(state.next_message?.timestamp));
  const summary = summaryOf(state);
  see(isoFromMs(summary?.metadata?.stream_end_timestamp_ms));
  return latest;
}

function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function textSegment(channel: MessageSegment['channel'], text: string, format = 'text'): MessageSegment {
  return { channel, type: 'text', format, text };
}

export function imageSegment(image: QImage): MessageSegment {
  const format = typeof image?.format === 'string' ? image.format : 'unknown';
  const mediaType = IMAGE_TYPES[format.toLowerCase()] ?? 'application/octet-stream';
  const bytes = image?.source?.Bytes;
  if (!Array.isArray(bytes)) {
    return {
      channel: 'input',
      type: 'image',
      format: 'image',
      media: { media_type: mediaType, omitted: 'image not stored as bytes' },
    };
  }
  if (bytes.length > INLINE_IMAGE_MAX_BYTES) {
    return {
      channel: 'input',
      type: 'image',
      format: 'image',
      media: {
        media_type: mediaType,
        size_bytes: bytes.length,
        omitted: `image of ${bytes.length} bytes is larger than 1 MB; not kept`,
      },
    };
  }
  const data = Buffer.from(Uint8Array.from(bytes as number[])).toString('base64');
  return {
    channel: 'input',
    type: 'image',
    format: 'image',
    media: { media_type: mediaType, size_bytes: bytes.length, data_uri: `data:${mediaType};base64,${data}` },
  };
}

/** A tool result's blocks as text: `{Text}` as is, MCP `{Json:{content:[{type:'text',text}]}}` by its texts. */
function resultOutput(result: QToolUseResult): { output: string; json?: unknown } {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const texts: string[] = [];
  const json: unknown[] = [];
  for (const block of blocks) {
    if (typeof block?.Text === 'string') texts.push(block.Text);
    else if (isObject(block) && 'Json' in block) {
      json.push(block.Json);
      const content = isObject(block.Json) ? block.Json.content : undefined;
      const mcpTexts = Array.isArray(content)
        ? content.filter((c) => isObject(c) && typeof c.text === 'string').map((c) => (c as { text: string }).text)
        : [];
      texts.push(mcpTexts.length > 0 ? mcpTexts.join('\n') : JSON.stringify(block.Json, null, 2));
    } else texts.push(JSON.stringify(block));
  }
  return { output: texts.join('\n'), ...(json.length > 0 ? { json: json.length === 1 ? json[0] : json } : {}) };
}

/** Turns one stored `ConversationState` into a Session (see fixtures/AMAZONQ.md for the mapping). */
export function normalizeConversation(input: NormalizeInput): Session | undefined {
  return new ConversationNormalizer(input).run();
}

class ConversationNormalizer {
  private readonly state: QConversationState;
  private readonly row: ConversationRow;
  private readonly file: string;
  private readonly stateModel?: string;

  constructor(private readonly input: NormalizeInput) {
    this.state = input.state;
    this.row = input.row;
    this.file = input.row.file;
    const info = isObject(this.state.model_info) ? this.state.model_info : undefined;
    const model = info?.model_id ?? this.state.model;
    this.stateModel = typeof model === 'string' && model ? model : undefined;
  }

  run(): Session | undefined {
    const history = Array.isArray(this.state.history) ? this.state.history : [];
    const elements = history.map(elementParts);
    const keys = uniqueKeys(elements.map(baseElementKey));
    const transcript = Array.isArray(this.state.transcript) ? this.state.transcript : [];
    const summary = summaryOf(this.state);
    const next = isObject(this.state.next_message) ? (this.state.next_message as QUserMessage) : undefined;

    // Planned units of this copy, in page order: transcript fallback, summary, history, next_message.
    const useTranscript = elements.length === 0 && transcript.length > 0;
    const transcriptKeys = useTranscript ? uniqueKeys(transcript.map((t) => `t:${hash(JSON.stringify(t))}`)) : [];
    const summaryKey = summary ? `s:${hash(summary.text)}` : undefined;
    const currentUnits = [
      ...(useTranscript ? [NOTICE_UNIT, ...transcriptKeys] : []),
      ...(summaryKey ? [summaryKey] : []),
      ...keys,
    ];
    const carry = planCarry(this.input.archived, currentUnits, keys);
    const dropTranscript = useTranscript && carry.carried.some((m) => unitOf(m)?.startsWith('h:'));

    const drafts: Draft[] = [];
    if (useTranscript && !dropTranscript) drafts.push(...this.transcriptDrafts(transcript, transcriptKeys));
    if (summary && summaryKey) drafts.push(this.summaryDraft(summary, summaryKey, carry.offset));
    const mainKeys = this.tangentMainKeys();
    elements.forEach((parts, i) => {
      drafts.push(...this.elementDrafts(parts, keys[i]!, i, carry.offset + i, mainKeys));
    });
    if (next) drafts.push(...this.nextDrafts(next, carry.offset + elements.length, elements.length));

    if (drafts.length === 0 && carry.carried.length === 0) return undefined;
    this.resolveTimes(drafts, this.input.archived);
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
    if (this.stateModel) models.add(this.stateModel);
    const warnings: string[] = [];
    const carriedEntries = new Set(carry.carried.map(unitOf).filter((u) => u?.startsWith('h:'))).size;
    if (carriedEntries > 0) {
      warnings.push(
        `${carriedEntries} earlier entries are no longer in ${this.file} (trimmed or compacted by Q); kept from the archive`,
      );
    }
    if (dropTranscript) warnings.push('transcript not shown: the archive holds the full history it summarizes');
    return {
      source: 'amazon-q',
      sessionId: this.input.conversationId,
      title: oneLine(promptText) || `Amazon Q conversation ${this.input.conversationId.slice(0, 8)}`,
      cwd:
        this.row.key ??
        this.input.cwd ??
        this.envCwd(elements) ??
        (this.row.kind === 'json' ? path.dirname(this.file) : ''),
      startedAt: times[0] ?? '',
      endedAt: times[times.length - 1] ?? '',
      models: [...models].sort(),
      ...(this.row.product === 'Kiro CLI' ? { cliVersion: 'Kiro CLI' } : {}),
      files: [this.file],
      messages,
      subagents: [],
      warnings,
    };
  }

  private envCwd(elements: ElementParts[]): string | undefined {
    for (const parts of elements) {
      const cwd = parts.user?.env_context?.env_state?.current_working_directory;
      if (typeof cwd === 'string' && cwd) return cwd;
    }
    return undefined;
  }

  /** Keys of `tangent_state.main_history`: history elements outside it belong to a `/tangent` side thread. */
  private tangentMainKeys(): Set<string> | undefined {
    const main = this.state.tangent_state?.main_history;
    if (!Array.isArray(main)) return undefined;
    return new Set(main.map((raw) => baseElementKey(elementParts(raw))));
  }

  private draft(
    unit: string,
    local: string,
    part: number,
    dataTime: string | undefined,
    raw: Omit<RawRef, 'file_path'>,
    fields: Pick<NormalizedMessage, 'role' | 'source_type' | 'segments'> &
      Partial<Pick<NormalizedMessage, 'tool_call'>> & { metadata: MessageMetadata },
  ): Draft {
    const message: NormalizedMessage = {
      id: '',
      timestamp: '',
      role: fields.role,
      source_type: fields.source_type,
      segments: fields.segments,
      ...(fields.tool_call ? { tool_call: fields.tool_call } : {}),
      raw: { ...raw, file_path: this.file },
      metadata: { ...fields.metadata, q_unit: unit },
    };
    return { message, unit, part, local, dataTime };
  }

  private elementDrafts(
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
        this.draft(
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
    const push = (d: Draft) => {
      d.part = drafts.length;
      d.local = `h${position}.${d.part}`;
      drafts.push(d);
    };
    for (const d of this.userDrafts(parts.user, key, userTime, rawBase, extra)) push(d);

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
      push(
        this.draft(
          key,
          '',
          0,
          assistantTime,
          { ...rawBase, event_type: 'Response' },
          {
            role: 'assistant',
            source_type: 'message',
            segments: text ? [textSegment('output', text)] : [],
            metadata: { ...responseMeta, ...(interrupted ? { kind: 'interrupt' as MessageKind } : {}) },
          },
        ),
      );
    } else if (assistant?.ToolUse && isObject(assistant.ToolUse)) {
      const toolUse = assistant.ToolUse;
      const text = typeof toolUse.content === 'string' ? toolUse.content : '';
      if (text.trim()) {
        push(
          this.draft(
            key,
            '',
            0,
            assistantTime,
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
      uses.forEach((use, k) => {
        const args = use?.args;
        const name = typeof use?.name === 'string' && use.name ? use.name : 'unknown';
        const origName = typeof use?.orig_name === 'string' && use.orig_name !== name ? use.orig_name : undefined;
        push(
          this.draft(
            key,
            '',
            0,
            assistantTime,
            { ...rawBase, event_type: 'ToolUse', payload_type: `${parts.form}:tool_use` },
            {
              role: 'tool',
              source_type: 'tool_call',
              segments: [],
              tool_call: {
                call_id: typeof use?.id === 'string' && use.id ? use.id : `${key}:tool-${k}`,
                name,
                status: 'unanswered',
                arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}, null, 2),
                arguments_json: args ?? {},
              },
              metadata: { ...responseMeta, ...(origName ? { orig_name: origName } : {}) },
            },
          ),
        );
      });
      if (uses.length === 0 && !text.trim()) {
        push(
          this.draft(
            key,
            '',
            0,
            assistantTime,
            { ...rawBase, event_type: 'ToolUse' },
            { role: 'assistant', source_type: 'message', segments: [], metadata: responseMeta },
          ),
        );
      }
    } else if (assistant !== undefined) {
      push(
        this.draft(
          key,
          '',
          0,
          assistantTime,
          { ...rawBase, event_type: 'unknown', record: sanitize(assistant) },
          { role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', ...extra } },
        ),
      );
    }
    return drafts;
  }

  /** The user side of an element (or `next_message`): injected context, tool results, the prompt and its images. */
  private userDrafts(
    user: QUserMessage | undefined,
    unit: string,
    time: string | undefined,
    rawBase: Omit<RawRef, 'file_path' | 'event_type'>,
    extra: MessageMetadata,
  ): Draft[] {
    if (!user) return [];
    const out: Draft[] = [];
    const add = (event: string, fields: Parameters<ConversationNormalizer['draft']>[5], record?: unknown): void => {
      const d = this.draft(unit, '', 0, time, { ...rawBase, event_type: event, ...(record ? { record } : {}) }, fields);
      out.push(d);
    };
    const content = isObject(user.content) ? user.content : undefined;
    const variant = content ? Object.keys(content)[0] : undefined;
    const context = typeof user.additional_context === 'string' ? user.additional_context.trim() : '';
    if (context && context !== 'N/A') {
      const kept = context.slice(0, INJECTED_CONTEXT_MAX_CHARS);
      add(variant ?? 'unknown', {
        role: 'meta',
        source_type: 'meta',
        segments: [textSegment('system', kept, 'additional_context')],
        metadata: {
          kind: 'injected',
          subtype: 'additional_context',
          ...(context.length > kept.length ? { omitted_chars: context.length - kept.length } : {}),
          ...extra,
        },
      });
    }
    const images = Array.isArray(user.images) ? user.images.map(imageSegment) : [];
    const results = (list: QToolUseResult[] | undefined, cancelled: boolean, event: string) => {
      (Array.isArray(list) ? list : []).forEach((result, k) => {
        const { output, json } = resultOutput(result ?? {});
        const status: ToolStatus = cancelled ? 'rejected' : result?.status === 'Error' ? 'error' : 'completed';
        add(event, {
          role: 'tool',
          source_type: 'tool_result',
          segments: k === 0 && !prompt ? images : [],
          tool_call: {
            call_id: typeof result?.tool_use_id === 'string' ? result.tool_use_id : '',
            name: 'unknown',
            status,
            output,
            ...(json !== undefined ? { output_json: json } : {}),
          },
          metadata: { ...extra },
        });
      });
    };
    const promptMessage = (text: string, event: string) =>
      add(event, {
        role: 'user',
        source_type: 'message',
        segments: [...(text ? [textSegment('input', text)] : []), ...images],
        metadata: { kind: 'prompt', ...extra },
      });
    let prompt: string | undefined;
    if (content && isObject(content.Prompt)) {
      prompt = typeof content.Prompt.prompt === 'string' ? content.Prompt.prompt : '';
      promptMessage(prompt, 'Prompt');
    } else if (content && isObject(content.ToolUseResults)) {
      results(content.ToolUseResults.tool_use_results, false, 'ToolUseResults');
    } else if (content && isObject(content.CancelledToolUses)) {
      const cancelled = content.CancelledToolUses;
      prompt = typeof cancelled.prompt === 'string' && cancelled.prompt.trim() ? cancelled.prompt : undefined;
      results(cancelled.tool_use_results, true, 'CancelledToolUses');
      if (prompt !== undefined || (images.length > 0 && !out.some((d) => d.message.source_type === 'tool_result')))
        promptMessage(prompt ?? '', 'CancelledToolUses');
    } else {
      add(
        variant ?? 'unknown',
        { role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', ...extra } },
        sanitize(user),
      );
    }
    return out;
  }

  private nextDrafts(next: QUserMessage, position: number, historyLength: number): Draft[] {
    const drafts: Draft[] = [];
    const userDrafts = this.userDrafts(
      next,
      NEXT_UNIT,
      isoFromText(next.timestamp),
      { line_index: historyLength + 1, payload_type: 'next_message' },
      { pending: true },
    );
    for (const d of userDrafts) {
      d.part = drafts.length;
      d.local = `n${position}.${drafts.length}`;
      drafts.push(d);
    }
    return drafts;
  }

  private summaryDraft(summary: { text: string; metadata?: QRequestMetadata }, key: string, position: number): Draft {
    const rm = summary.metadata;
    const model = typeof rm?.model_id === 'string' && rm.model_id ? rm.model_id : undefined;
    return this.draft(
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

  /** After `/compact` the transcript (Q's display log) is the only readable record left: one message per entry. */
  private transcriptDrafts(transcript: unknown[], keys: string[]): Draft[] {
    const drafts: Draft[] = [
      this.draft(
        NOTICE_UNIT,
        'tn',
        0,
        undefined,
        { event_type: 'transcript', payload_type: 'transcript', line_index: 1 },
        {
          role: 'system',
          source_type: 'meta',
          segments: [
            textSegment(
              'system',
              'Q keeps no structured history of this conversation any more (it was compacted). What follows is ' +
                'its display transcript: prompts and answers as shown in the terminal, tool names without inputs or results.',
            ),
          ],
          metadata: { kind: 'system_event', subtype: 'Transcript fallback', transcript_fallback: true },
        },
      ),
    ];
    let previousHadTools = false;
    transcript.forEach((entry, i) => {
      const unit = keys[i]!;
      const raw = { event_type: 'transcript', payload_type: 'transcript', line_index: i + 1 };
      const meta: MessageMetadata = { transcript_fallback: true };
      let part = 0;
      const add = (fields: Parameters<ConversationNormalizer['draft']>[5], record?: unknown) => {
        drafts.push(
          this.draft(unit, `t${i}.${part}`, part, undefined, { ...raw, ...(record ? { record } : {}) }, fields),
        );
        part += 1;
      };
      if (typeof entry !== 'string') {
        add({ role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', ...meta } }, entry);
        previousHadTools = false;
        return;
      }
      if (entry.startsWith('> ') || entry === '>') {
        // Q writes `"> " + prompt.replace("\n", "> \n")`.
        const text = entry.slice(2).replaceAll('> \n', '\n');
        const trimmed = text.trim();
        if (SLASH_COMMAND.test(trimmed)) {
          add({
            role: 'user',
            source_type: 'message',
            segments: [textSegment('input', trimmed, 'command')],
            metadata: { kind: 'command', ...meta },
          });
        } else if (APPROVAL.test(trimmed) && previousHadTools) {
          add({
            role: 'user',
            source_type: 'message',
            segments: [textSegment('input', trimmed, 'tool_approval')],
            metadata: { kind: 'command', subtype: 'tool_approval', ...meta },
          });
        } else {
          add({
            role: 'user',
            source_type: 'message',
            segments: [textSegment('input', text)],
            metadata: { kind: 'prompt', ...meta },
          });
        }
        previousHadTools = false;
        return;
      }
      const tools = TRANSCRIPT_TOOLS.exec(entry);
      if (!tools) {
        add({
          role: 'system',
          source_type: 'meta',
          segments: [textSegment('system', entry)],
          metadata: { kind: 'command_output', ...meta },
        });
        previousHadTools = false;
        return;
      }
      const prose = entry.slice(0, tools.index);
      const names =
        tools[1]!.trim() === 'none'
          ? []
          : tools[1]!
              .split(',')
              .map((n) => n.trim())
              .filter(Boolean);
      const responseMeta: MessageMetadata = { kind: 'response', response_id: unit, ...meta };
      if (prose.trim() || names.length === 0) {
        add({
          role: 'assistant',
          source_type: 'message',
          segments: prose.trim() ? [textSegment('output', prose)] : [],
          metadata: {
            ...responseMeta,
            ...(prose.trim() === INTERRUPT_MARKER ? { kind: 'interrupt' as MessageKind } : {}),
          },
        });
      }
      names.forEach((name, k) => {
        add({
          role: 'tool',
          source_type: 'tool_call',
          segments: [],
          // The transcript names the tools only: no inputs, no results. Their status is not recorded either;
          // the conversation went on after them, so they count as completed.
          tool_call: { call_id: `transcript-${i}.${k}`, name, status: 'completed' },
          metadata: { ...responseMeta, status_inferred: true },
        });
      });
      previousHadTools = names.length > 0;
    });
    return drafts;
  }

  /**
   * Times, best first: the data's own (user `timestamp`, `request_metadata` epoch ms); the time an earlier run
   * gave the same stored unit (kept in the archive: the time first seen); the previous data time; the row's
   * `created_at` for its first unit; the next data time; the row's `updated_at` (Kiro) or the file's mtime.
   */
  private resolveTimes(drafts: Draft[], archived: Session | undefined): void {
    const archivedTimes = new Map<string, string>();
    for (const m of archived?.messages ?? []) {
      const unit = unitOf(m);
      if (!unit || !m.timestamp) continue;
      const part = /\.(\d+)$/.exec(m.id.split('#').slice(1).join('#'))?.[1] ?? '0';
      archivedTimes.set(`${unit}|${part}`, m.timestamp);
      if (!archivedTimes.has(`${unit}|*`)) archivedTimes.set(`${unit}|*`, m.timestamp);
    }
    const fallback = isoFromMs(this.row.updatedAt) ?? isoFromMs(this.row.fileMtimeMs) ?? new Date(0).toISOString();
    const created = isoFromMs(this.row.createdAt);
    // `created_at` is when the first stored unit happened (the transcript notice goes with it).
    const firstUnit = drafts.find((d) => d.unit !== NOTICE_UNIT)?.unit;
    const nextData: (string | undefined)[] = new Array(drafts.length);
    let upcoming: string | undefined;
    for (let i = drafts.length - 1; i >= 0; i -= 1) {
      nextData[i] = upcoming;
      if (drafts[i]!.dataTime) upcoming = drafts[i]!.dataTime;
    }
    let previousData: string | undefined;
    drafts.forEach((d, i) => {
      let time = d.dataTime;
      let estimated = false;
      if (time) previousData = time;
      else {
        estimated = true;
        time =
          archivedTimes.get(`${d.unit}|${d.part}`) ??
          archivedTimes.get(`${d.unit}|*`) ??
          previousData ??
          (created && (d.unit === firstUnit || d.unit === NOTICE_UNIT) ? created : undefined) ??
          nextData[i] ??
          fallback;
      }
      d.message.timestamp = time;
      d.message.id = `${time}#${d.local}`;
      if (estimated) d.message.timestamp_estimated = true;
    });
  }
}

function unitOf(m: NormalizedMessage): string | undefined {
  const unit = m.metadata?.q_unit;
  return typeof unit === 'string' ? unit : undefined;
}

/**
 * What an earlier run stored that this copy no longer holds: the units (history elements, summaries, transcript
 * entries) the archive has *before* the first unit both share, or all of them when none is shared (history cleared
 * by `/compact`). Units after that point that are gone (a discarded tangent, a pending `next_message`) are not kept.
 */
function planCarry(
  archived: Session | undefined,
  currentUnits: string[],
  currentHistoryKeys: string[],
): { carried: NormalizedMessage[]; offset: number } {
  const messages = archived?.messages ?? [];
  if (messages.length === 0) return { carried: [], offset: 0 };
  const current = new Set(currentUnits);
  const order: string[] = [];
  const positions = new Map<string, number>();
  for (const m of messages) {
    const unit = unitOf(m);
    if (!unit) continue;
    if (!order.includes(unit)) order.push(unit);
    const position = /#h(\d+)\.\d+$/.exec(m.id)?.[1];
    if (position !== undefined && !positions.has(unit)) positions.set(unit, Number(position));
  }
  const anchor = order.findIndex((u) => current.has(u) && u !== NOTICE_UNIT && u !== NEXT_UNIT);
  const candidates = anchor === -1 ? order : order.slice(0, anchor);
  const carriedUnits = new Set(candidates.filter((u) => !current.has(u) && u !== NEXT_UNIT));
  const carried = messages
    .filter((m) => carriedUnits.has(unitOf(m) ?? ''))
    .map((m) => ({ ...m, metadata: { ...m.metadata, archived_only: true } }));

  // Positions in message ids count from the first element ever seen, so they stay put when Q trims the front.
  let offset = 0;
  const shared = currentHistoryKeys.findIndex((k) => positions.has(k));
  if (shared !== -1) offset = Math.max(0, positions.get(currentHistoryKeys[shared]!)! - shared);
  else if (carried.length > 0 || positions.size > 0) offset = Math.max(-1, ...positions.values()) + 1;
  return { carried, offset };
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

/** Links results to calls by `tool_use_id` (the next element's ToolUseResults, or `next_message` for the last turn). */
function linkResults(messages: NormalizedMessage[]): void {
  const calls = new Map<string, ToolCall>();
  for (const m of messages) {
    if (m.source_type === 'tool_call' && m.tool_call) calls.set(m.tool_call.call_id, m.tool_call);
  }
  for (const m of messages) {
    if (m.source_type !== 'tool_result' || !m.tool_call) continue;
    const call = calls.get(m.tool_call.call_id);
    if (!call) continue;
    m.tool_call.name = call.name;
    call.status = m.tool_call.status;
    call.result_id = m.id;
  }
}
