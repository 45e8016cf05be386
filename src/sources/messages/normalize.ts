import type {
  MessageDraft,
  MessageKind,
  MessageMetadata,
  MessageSegment,
  NormalizedMessage,
  TokenUsage,
} from '../../model/message.ts';
import type { Session } from '../../model/session.ts';
import type { WarningSink } from '../../util/warnings.ts';

/**
 * Plain message lists as custom agents keep them (seed 002): Anthropic style (`role`, `content` as a string or
 * blocks `text` / `thinking` / `tool_use` / `tool_result`, with `tool_name` on results) and OpenAI style
 * (`tool_calls` on assistant messages, `role: "tool"` results with `tool_call_id`). Optional per message:
 * `timestamp` (ISO-8601 or epoch seconds/milliseconds), `model`, `usage`. A record `{"type": "session", …}` (or
 * the object around a JSON `messages` array) may name the session's `cwd`, `title`, `model` and `id`.
 */

export interface RawMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: unknown;
  tool_call_id?: unknown;
  name?: unknown;
  timestamp?: unknown;
  created_at?: unknown;
  time?: unknown;
  model?: unknown;
  usage?: unknown;
  type?: unknown;
  [key: string]: unknown;
}

export interface SessionMeta {
  id?: string;
  cwd?: string;
  title?: string;
  model?: string;
}

type Block = Record<string, unknown>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** A `{"type": "session"}` record (or the object around `messages`): session fields, not a message. */
export function sessionMetaOf(value: Record<string, unknown>): SessionMeta {
  return {
    id: str(value.id) ?? str(value.session_id),
    cwd: str(value.cwd),
    title: str(value.title),
    model: str(value.model),
  };
}

export function isSessionRecord(value: unknown): value is Record<string, unknown> {
  return isObject(value) && value.type === 'session' && value.role === undefined;
}

/** ISO-8601 UTC of a message's time field, when it has one. */
export function timeOf(m: RawMessage): string | undefined {
  const t = m.timestamp ?? m.created_at ?? m.time;
  let ms: number | undefined;
  if (typeof t === 'number' && Number.isFinite(t)) ms = t > 1e12 ? t : t * 1000;
  else if (typeof t === 'string' && t) ms = Date.parse(t);
  return ms !== undefined && Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (typeof b === 'string' ? b : isObject(b) && typeof b.text === 'string' ? b.text : ''))
      .filter(Boolean)
      .join('\n');
  }
  if (content === undefined || content === null) return '';
  return JSON.stringify(content, null, 2);
}

function usageOf(u: unknown): TokenUsage | undefined {
  if (!isObject(u)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
  if (u.input_tokens !== undefined || u.output_tokens !== undefined) {
    const details = isObject(u.cache_creation) ? u.cache_creation : undefined;
    const oneHour = n(details?.ephemeral_1h_input_tokens);
    return {
      input: n(u.input_tokens),
      output: n(u.output_tokens),
      cacheRead: n(u.cache_read_input_tokens),
      cacheCreation: n(u.cache_creation_input_tokens),
      ...(oneHour > 0 ? { cacheCreation1h: oneHour } : {}),
    };
  }
  if (u.prompt_tokens !== undefined || u.completion_tokens !== undefined) {
    // OpenAI: cached ⊂ prompt, reasoning ⊂ completion.
    const cached = n(isObject(u.prompt_tokens_details) ? u.prompt_tokens_details.cached_tokens : 0);
    return {
      input: Math.max(0, n(u.prompt_tokens) - cached),
      output: n(u.completion_tokens),
      cacheRead: cached,
      cacheCreation: 0,
    };
  }
  return undefined;
}

type Draft = MessageDraft;

/** Builds one session from the messages of one file, fed in order. */
export class MessageListNormalizer {
  private readonly messages: NormalizedMessage[] = [];
  private readonly undated: NormalizedMessage[] = [];
  private lastTime?: string;
  private responses = 0;
  private readonly calls = new Map<string, NormalizedMessage>();
  private readonly models = new Set<string>();
  meta: SessionMeta = {};

  constructor(
    private readonly file: string,
    private readonly warn: WarningSink,
  ) {}

  add(value: unknown, line: number): void {
    if (isSessionRecord(value)) {
      this.meta = { ...this.meta, ...Object.fromEntries(Object.entries(sessionMetaOf(value)).filter(([, v]) => v)) };
      return;
    }
    if (!isObject(value) || typeof value.role !== 'string') {
      this.warn({ file: this.file, line, message: 'not a message (an object with a "role"); skipped' });
      return;
    }
    const m = value as RawMessage;
    const time = timeOf(m);
    const model = str(m.model) ?? this.meta.model;
    const role = m.role as string;
    const drafts: Draft[] = [];
    if (role === 'user') drafts.push(...this.user(m));
    else if (role === 'assistant') drafts.push(...this.assistant(m, model));
    else if (role === 'tool') drafts.push(this.toolResult(m.tool_call_id, str(m.name), m.content, m.is_error === true));
    else if (role === 'system' || role === 'developer') {
      drafts.push({
        role: 'system',
        source_type: 'message',
        segments: [{ channel: 'system', type: 'text', format: 'text', text: textOf(m.content) }],
        metadata: { kind: 'injected' },
      });
    } else {
      this.warn({ file: this.file, line, message: `unknown role "${role}"; kept as meta` });
      drafts.push({ role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', subtype: role } });
    }
    drafts.forEach((d, part) => this.push(d, line, drafts.length > 1 ? part : undefined, time, value));
  }

  private user(m: RawMessage): Draft[] {
    if (!Array.isArray(m.content)) return [this.prompt(textOf(m.content))];
    const out: Draft[] = [];
    let text: string[] = [];
    const flush = () => {
      if (text.length) out.push(this.prompt(text.join('\n')));
      text = [];
    };
    for (const b of m.content as unknown[]) {
      if (isObject(b) && b.type === 'tool_result') {
        flush();
        out.push(this.toolResult(b.tool_use_id, str(b.tool_name) ?? str(b.name), b.content, b.is_error === true));
      } else text.push(textOf([b]));
    }
    flush();
    return out;
  }

  private prompt(text: string): Draft {
    return {
      role: 'user',
      source_type: 'message',
      segments: [{ channel: 'input', type: 'text', format: 'text', text }],
      metadata: { kind: 'prompt' satisfies MessageKind },
    };
  }

  private assistant(m: RawMessage, model: string | undefined): Draft[] {
    const responseId = `response-${++this.responses}`;
    const usage = usageOf(m.usage);
    if (model) this.models.add(model);
    const meta = (): MessageMetadata => ({ kind: 'response', response_id: responseId, ...(model ? { model } : {}) });
    const out: Draft[] = [];
    let prose: MessageSegment[] = [];
    const flush = () => {
      if (prose.length) out.push({ role: 'assistant', source_type: 'message', segments: prose, metadata: meta() });
      prose = [];
    };
    const blocks: unknown[] = Array.isArray(m.content)
      ? (m.content as unknown[])
      : typeof m.content === 'string' && m.content
        ? [{ type: 'text', text: m.content }]
        : [];
    for (const b of blocks) {
      if (!isObject(b)) {
        if (typeof b === 'string') prose.push({ channel: 'output', type: 'text', format: 'text', text: b });
        continue;
      }
      if (b.type === 'tool_use') {
        flush();
        out.push(this.call(str(b.id) ?? '', str(b.name) ?? 'unknown', b.input ?? {}, meta()));
      } else if (b.type === 'thinking') {
        prose.push({ channel: 'output', type: 'text', format: 'thinking', text: textOf(b.thinking) });
      } else {
        prose.push({
          channel: 'output',
          type: 'text',
          format: String(b.type ?? 'text'),
          text: textOf([b]) || JSON.stringify(b),
        });
      }
    }
    flush();
    for (const c of Array.isArray(m.tool_calls) ? (m.tool_calls as unknown[]) : []) {
      if (!isObject(c)) continue;
      const fn = isObject(c.function) ? c.function : {};
      let input: unknown = fn.arguments ?? {};
      if (typeof input === 'string') {
        try {
          input = JSON.parse(input);
        } catch {
          // Arguments that are not JSON are shown as the model wrote them.
        }
      }
      out.push(this.call(str(c.id) ?? '', str(fn.name) ?? str(c.name) ?? 'unknown', input, meta()));
    }
    if (out.length === 0) out.push({ role: 'assistant', source_type: 'message', segments: [], metadata: meta() });
    if (usage) out[0]!.metadata = { ...out[0]!.metadata, usage };
    return out;
  }

  private call(id: string, name: string, input: unknown, metadata: MessageMetadata): Draft {
    return {
      role: 'tool',
      source_type: 'tool_call',
      segments: [],
      tool_call: {
        call_id: id,
        name,
        status: 'unanswered',
        arguments: typeof input === 'string' ? input : JSON.stringify(input, null, 2),
        arguments_json: input,
      },
      metadata,
    };
  }

  private toolResult(callId: unknown, name: string | undefined, content: unknown, isError: boolean): Draft {
    return {
      role: 'tool',
      source_type: 'tool_result',
      segments: [],
      tool_call: {
        call_id: typeof callId === 'string' ? callId : '',
        name: name ?? 'unknown',
        status: isError ? 'error' : 'completed',
        output: textOf(content),
      },
    };
  }

  private push(d: Draft, line: number, part: number | undefined, time: string | undefined, record: unknown): void {
    const local = part === undefined ? `${line}` : `${line}.${part}`;
    const m: NormalizedMessage = {
      id: `#${local}`,
      timestamp: time ?? '',
      role: d.role,
      source_type: d.source_type,
      segments: d.segments,
      ...(d.tool_call ? { tool_call: d.tool_call } : {}),
      raw: {
        event_type: String((record as RawMessage).role ?? 'message'),
        file_path: this.file,
        line_index: line,
        ...(d.metadata?.kind === 'unknown' ? { record } : {}),
      },
      ...(d.metadata ? { metadata: d.metadata } : {}),
    };
    const call = m.tool_call;
    if (m.source_type === 'tool_call' && call?.call_id) this.calls.set(call.call_id, m);
    if (m.source_type === 'tool_result' && call) {
      const linked = this.calls.get(call.call_id);
      if (linked?.tool_call) {
        if (call.name === 'unknown') call.name = linked.tool_call.name;
        linked.tool_call.status = call.status;
        linked.tool_call.result_id = local;
      }
    }
    if (time) {
      for (const u of this.undated.splice(0)) this.date(u, time, true);
      this.date(m, time, false);
      this.lastTime = time;
    } else if (this.lastTime) this.date(m, this.lastTime, true);
    else this.undated.push(m);
    this.messages.push(m);
  }

  private date(m: NormalizedMessage, time: string, estimated: boolean): void {
    m.timestamp = time;
    m.id = `${time}${m.id.slice(m.id.indexOf('#'))}`;
    if (estimated) m.timestamp_estimated = true;
  }

  /** The session, once every message was added. `mtime`: the time of messages no timestamp dates. */
  finish(sessionId: string, fallbackCwd: string, mtime: string): Session | undefined {
    for (const u of this.undated.splice(0)) this.date(u, mtime, true);
    if (this.messages.length === 0) return undefined;
    // Result ids were noted by line; now that every id carries its time, point calls at the full id.
    const byLocal = new Map(this.messages.map((m) => [m.id.slice(m.id.indexOf('#') + 1), m.id]));
    for (const m of this.messages) {
      const call = m.tool_call;
      if (m.source_type === 'tool_call' && call?.result_id) call.result_id = byLocal.get(call.result_id);
    }
    const times = this.messages.map((m) => m.timestamp).sort();
    const first = this.messages.find((m) => m.metadata?.kind === 'prompt')?.segments[0]?.text ?? '';
    const line =
      first
        .split('\n')
        .find((l) => l.trim())
        ?.trim() ?? '';
    return {
      source: 'messages',
      sessionId: this.meta.id ?? sessionId,
      title: this.meta.title ?? (line ? (line.length > 80 ? `${line.slice(0, 79)}…` : line) : sessionId),
      cwd: this.meta.cwd ?? fallbackCwd,
      startedAt: times[0]!,
      endedAt: times.at(-1)!,
      models: [...this.models].sort(),
      files: [this.file],
      messages: this.messages,
      subagents: [],
      warnings: [],
    };
  }
}
