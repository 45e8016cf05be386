import type { MessageMetadata, MessageSegment, NormalizedMessage, TokenUsage } from '../../model/message.ts';
import type { Session } from '../../model/session.ts';
import { saneIsoFromMs } from '../../util/time.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { actionText, imageSegment, noteDraft, toolOutputText, unknownDraft, type Draft } from './content.ts';
import {
  createdMs,
  isObject,
  str,
  type GooseContent,
  type GooseMessageRecord,
  type GooseSessionRow,
} from './schema.ts';

/** Goose's placeholder names until it (or the user) names a session. */
const PLACEHOLDER_NAME = /^(New (session|chat)( \d+)?|CLI Session|ACP Session)$/i;

/**
 * Turns one Goose session's messages (in order) into normalized messages. An assistant message is one model
 * response (`response_id`): its text, thinking and tool requests; a user message is a prompt and/or the results of
 * the previous response's tool requests (joined to their calls by id). Goose keeps tokens per session only (the
 * `accumulated_*` columns, or the JSONL metadata line), so they are counted once, on the session's last response.
 * Content items we do not know are kept as `kind: 'unknown'` with the item in `raw.record`.
 */
export class GooseNormalizer {
  readonly messages: NormalizedMessage[] = [];
  firstPrompt?: string;
  private readonly calls = new Map<string, NormalizedMessage>();
  private seq = 0;
  private lastTime?: number;

  constructor(
    private readonly sessionId: string,
    private readonly warn: WarningSink,
    /** The session's own fields (the row, or the JSONL metadata line); set before messages are added. */
    public info: GooseSessionRow,
  ) {}

  /** One stored message. A record that is not a message costs that record only. */
  add(record: GooseMessageRecord): void {
    try {
      this.addRecord(record);
    } catch (error) {
      const { ref } = record;
      this.warn({
        file: ref.file,
        line: ref.line,
        message: `message ${ref.id ?? ''} not understood (${(error as Error).message}); skipped`,
      });
    }
  }

  private addRecord(record: GooseMessageRecord): void {
    const { ref } = record;
    const where = { file: ref.file, line: ref.line };
    const content = this.parseContent(record.content, ref);
    if (!content) return;
    const metadata = parseMetadata(record.metadata);
    const own = createdMs(record.created);
    const time = own ?? this.lastTime ?? this.info.createdAt;
    const role = record.role;
    const drafts: Draft[] = [];
    if (role === 'user') this.user(content, metadata, drafts);
    else if (role === 'assistant') this.assistant(content, metadata, drafts, ref);
    else {
      this.warn({ ...where, message: `message ${ref.id ?? ''}: unknown role ${JSON.stringify(role)}; kept as meta` });
      drafts.push({ ...unknownDraft({ role, content, metadata }), event: String(role ?? 'message') });
    }
    for (const d of drafts) this.push(d, time, ref, own === undefined);
    if (own !== undefined) this.lastTime = own;
  }

  private parseContent(value: unknown, ref: GooseMessageRecord['ref']): unknown[] | undefined {
    let parsed = value;
    if (typeof value === 'string') {
      try {
        parsed = JSON.parse(value);
      } catch (error) {
        this.warn({
          file: ref.file,
          line: ref.line,
          message: `message ${ref.id ?? ''}: content is not valid JSON (${(error as Error).message}); skipped`,
        });
        return undefined;
      }
    }
    if (Array.isArray(parsed)) return parsed;
    if (isObject(parsed) && typeof parsed.type === 'string') return [parsed];
    this.warn({ file: ref.file, line: ref.line, message: `message ${ref.id ?? ''}: content is not a list; skipped` });
    return undefined;
  }

  private user(content: unknown[], visibility: Visibility, out: Draft[]): void {
    const segments: MessageSegment[] = [];
    const texts: string[] = [];
    for (const raw of content) {
      const item = (isObject(raw) ? raw : {}) as GooseContent;
      if (item.type === 'text') {
        const text = str(item.text) ?? '';
        texts.push(text);
        segments.push({ channel: 'input', type: 'text', format: 'text', text });
      } else if (item.type === 'image') segments.push(imageSegment(item, 'input'));
      else if (item.type === 'toolResponse') out.push(this.result(item));
      else this.other(raw, out);
    }
    if (segments.length === 0) return;
    const injected = visibility.userVisible === false;
    const prompt = texts.join('\n');
    if (!injected && prompt.trim() && this.firstPrompt === undefined) this.firstPrompt = prompt;
    out.unshift({
      role: 'user',
      source_type: 'message',
      segments,
      metadata: { kind: injected ? 'injected' : 'prompt', ...(injected ? { subtype: 'agent_only' } : {}) },
      event: 'text',
    });
  }

  private assistant(content: unknown[], visibility: Visibility, out: Draft[], ref: GooseMessageRecord['ref']): void {
    const meta = (kind: MessageMetadata['kind']): MessageMetadata => ({
      kind,
      response_id: `${this.sessionId}:${ref.id ?? ref.line}`,
      ...(this.info.model ? { model: this.info.model } : {}),
      ...(this.info.providerName ? { provider: this.info.providerName } : {}),
      ...(visibility.userVisible === false ? { goose_visibility: 'agent_only' } : {}),
    });
    for (const raw of content) {
      const item = (isObject(raw) ? raw : {}) as GooseContent;
      if (item.type === 'text') {
        out.push(prose('text', str(item.text) ?? '', meta('response'), 'text'));
      } else if (item.type === 'thinking') {
        out.push(prose('thinking', str(item.thinking) ?? '', meta('thinking'), 'thinking'));
      } else if (item.type === 'redactedThinking') {
        // The redacted data is encrypted model state, not text: never stored.
        out.push(prose('redacted_thinking', '', meta('thinking'), 'redactedThinking'));
      } else if (item.type === 'jsonRenderSpec') {
        out.push(prose('json_render_spec', str(item.spec) ?? '', meta('response'), 'jsonRenderSpec'));
      } else if (item.type === 'image') {
        out.push({
          role: 'assistant',
          source_type: 'message',
          segments: [imageSegment(item, 'output')],
          metadata: meta('response'),
          event: 'image',
        });
      } else if (item.type === 'toolRequest' || item.type === 'frontendToolRequest') {
        out.push(...this.call(item, meta('response')));
      } else if (item.type === 'toolResponse') out.push(this.result(item));
      else this.other(raw, out);
    }
  }

  /** Items that are neither prose nor tools: notes Goose showed, or unknown ones kept whole. */
  private other(raw: unknown, out: Draft[]): void {
    const item = (isObject(raw) ? raw : {}) as GooseContent;
    if (item.type === 'toolConfirmationRequest')
      out.push(
        noteDraft(
          item,
          'tool_confirmation',
          `Confirm ${str(item.toolName) ?? 'tool'}${str(item.prompt) ? `: ${str(item.prompt)}` : ''}`,
        ),
      );
    else if (item.type === 'actionRequired') {
      const { subtype, text } = actionText(item);
      out.push(noteDraft(item, subtype, text));
    } else if (item.type === 'systemNotification')
      out.push(noteDraft(item, str(item.notificationType) ?? 'notification', str(item.msg) ?? ''));
    else if (item.type === 'conversationCompacted') {
      // Before Goose 1.14: a marker where the conversation was summarized.
      out.push({
        role: 'system',
        source_type: 'meta',
        segments: str(item.msg) ? [{ channel: 'system', type: 'text', format: 'text', text: str(item.msg) }] : [],
        metadata: { kind: 'compact_boundary', subtype: 'conversationCompacted' },
        event: 'conversationCompacted',
      });
    } else out.push(unknownDraft(raw));
  }

  private call(item: GooseContent, metadata: MessageMetadata): Draft[] {
    const request = isObject(item.toolCall) ? item.toolCall : {};
    const value = isObject(request.value) ? request.value : {};
    const callId = str(item.id) ?? `call-${this.seq + 1}`;
    const name = str(value.name) ?? 'invalid_tool_call';
    const args = value.arguments ?? {};
    const invalid = request.status === 'error';
    const call: Draft = {
      role: 'tool',
      source_type: 'tool_call',
      segments: [],
      tool_call: {
        call_id: callId,
        name,
        status: invalid ? 'error' : 'unanswered',
        arguments: JSON.stringify(args, null, 2),
        arguments_json: args,
      },
      metadata: { ...metadata, ...(item.type === 'frontendToolRequest' ? { subtype: 'frontend' } : {}) },
      event: String(item.type),
    };
    if (!invalid) return [call];
    // A call the model made that Goose could not parse: its error is its result.
    return [
      call,
      {
        role: 'tool',
        source_type: 'tool_result',
        segments: [],
        tool_call: { call_id: callId, name, status: 'error', output: str(request.error) ?? 'invalid tool call' },
        event: 'toolRequest',
      },
    ];
  }

  private result(item: GooseContent): Draft {
    const callId = str(item.id) ?? '';
    const { text, status } = toolOutputText(item.toolResult);
    const call = this.calls.get(callId);
    return {
      role: 'tool',
      source_type: 'tool_result',
      segments: [],
      tool_call: { call_id: callId, name: call?.tool_call?.name ?? 'unknown', status, output: text },
      event: 'toolResponse',
    };
  }

  private push(d: Draft, time: number | undefined, ref: GooseMessageRecord['ref'], estimated: boolean): void {
    const n = ++this.seq;
    const iso = saneIsoFromMs(time) ?? saneIsoFromMs(this.info.createdAt) ?? new Date(0).toISOString();
    const m: NormalizedMessage = {
      id: `${iso}#${n}`,
      timestamp: iso,
      ...(saneIsoFromMs(time) && !estimated ? {} : { timestamp_estimated: true }),
      role: d.role,
      source_type: d.source_type,
      segments: d.segments,
      ...(d.tool_call ? { tool_call: d.tool_call } : {}),
      raw: {
        event_type: d.event,
        file_path: ref.file,
        line_index: ref.line,
        ...(ref.id ? { uuid: ref.id } : {}),
        ...(d.record !== undefined ? { record: d.record } : {}),
      },
      ...(d.metadata ? { metadata: d.metadata } : {}),
    };
    const tc = m.tool_call;
    if (m.source_type === 'tool_call' && tc) this.calls.set(tc.call_id, m);
    if (m.source_type === 'tool_result' && tc) {
      const call = this.calls.get(tc.call_id);
      if (call?.tool_call && !call.tool_call.result_id) {
        call.tool_call.result_id = m.id;
        call.tool_call.status = tc.status;
      }
    }
    this.messages.push(m);
  }

  /** The session, or undefined when it holds no message. */
  finish(files: string[]): Session | undefined {
    if (this.messages.length === 0) return undefined;
    this.countUsage();
    const times = this.messages.map((m) => m.timestamp).sort();
    const name = this.info.name?.trim();
    return {
      source: 'goose',
      sessionId: this.sessionId,
      title: name && !PLACEHOLDER_NAME.test(name) ? name : (firstLine(this.firstPrompt) ?? name ?? this.sessionId),
      cwd: this.info.workingDir ?? '',
      startedAt: times[0]!,
      endedAt: times.at(-1)!,
      models: this.info.model ? [this.info.model] : [],
      files,
      messages: this.messages,
      subagents: [],
      warnings: [],
    };
  }

  /** The session's tokens (and dollars, when recorded) on its last response, counted once. */
  private countUsage(): void {
    const t = this.info.tokens;
    const input = t.accumulatedInput ?? t.input;
    const output = t.accumulatedOutput ?? t.output;
    const cost = this.info.costUsd;
    if (!input && !output && !cost) return;
    const usage: TokenUsage = {
      input: Math.max(0, input ?? 0),
      output: Math.max(0, output ?? 0),
      cacheRead: 0,
      cacheCreation: 0,
    };
    let target = this.messages.findLast(
      (m) => m.role === 'assistant' || (m.source_type === 'tool_call' && m.metadata?.response_id),
    );
    if (target?.metadata?.response_id) {
      const responseId = target.metadata.response_id;
      target = this.messages.find((m) => m.metadata?.response_id === responseId) ?? target;
    }
    if (!target) return;
    target.metadata = {
      ...target.metadata,
      ...(usage.input + usage.output > 0 ? { usage, usageScope: 'session' } : {}),
      ...(cost && cost > 0 ? { costUsd: cost } : {}),
      ...(this.info.model && !target.metadata?.model ? { model: this.info.model } : {}),
    };
  }
}

interface Visibility {
  userVisible?: boolean;
  agentVisible?: boolean;
}

function parseMetadata(value: unknown): Visibility {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return {};
    }
  }
  if (!isObject(parsed)) return {};
  return {
    ...(typeof parsed.userVisible === 'boolean' ? { userVisible: parsed.userVisible } : {}),
    ...(typeof parsed.agentVisible === 'boolean' ? { agentVisible: parsed.agentVisible } : {}),
  };
}

function prose(format: string, text: string, metadata: MessageMetadata, event: string): Draft {
  return {
    role: 'assistant',
    source_type: 'message',
    segments: [{ channel: 'output', type: 'text', format, text }],
    metadata,
    event,
  };
}

function firstLine(text: string | undefined): string | undefined {
  const line = text
    ?.split('\n')
    .find((l) => l.trim())
    ?.trim();
  if (!line) return undefined;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
