import type {
  MessageKind,
  MessageMetadata,
  MessageSegment,
  NormalizedMessage,
  TokenUsage,
  ToolCall,
} from '../../model/message.ts';
import { saneIsoFromText } from '../../util/time.ts';
import { type LineDraft, LineThread } from '../line-thread.ts';
import { contextDirectories, partsText, toolOutput } from './content.ts';
import type { Conversation, MessageItem } from './replay.ts';
import { isObject, num, str, type GeminiMessage, type GeminiTokens, type GeminiToolCall } from './schema.ts';
import { argPaths, statusOf } from './tool-calls.ts';

type Draft = LineDraft;

/**
 * A request's usage. `input` (promptTokenCount) includes `cached`; `thoughts` are billed as output but are not in
 * `output` (candidatesTokenCount); `tool` (toolUsePromptTokenCount) is billed as input. So input = input − cached
 * + tool, output = output + thoughts, cacheRead = cached: the four add up to `total`.
 */
export function usageOf(tokens: GeminiTokens | null | undefined): TokenUsage | undefined {
  if (!isObject(tokens)) return undefined;
  const t = tokens as GeminiTokens;
  const cached = num(t.cached);
  const usage = {
    input: Math.max(0, num(t.input) - cached) + num(t.tool),
    output: num(t.output) + num(t.thoughts),
    cacheRead: cached,
    cacheCreation: 0,
  };
  return usage.input + usage.output + usage.cacheRead > 0 ? usage : undefined;
}

/** What the normalizer learnt about the session besides its messages. */
export interface Findings {
  models: string[];
  firstPrompt?: string;
  /** Absolute paths the tool calls named, and folders a `<session_context>` named: for the project's folder. */
  toolPaths: string[];
  contextDirs: string[];
}

/** Turns a replayed conversation into normalized messages, in file order. `idPrefix` marks a subagent's lines. */
export class GeminiNormalizer {
  readonly findings: Findings = { models: [], toolPaths: [], contextDirs: [] };
  private readonly thread: LineThread;

  constructor(file: string, idPrefix = '') {
    this.thread = new LineThread(file, idPrefix);
  }

  run(conversation: Conversation, fallbackTime: string): NormalizedMessage[] {
    for (const item of conversation.items) {
      if (item.kind === 'unknown') {
        this.thread.push([unknownDraft()], item.line, undefined, 'unknown', item.record);
        continue;
      }
      const r = item.record;
      const time = saneIsoFromText(r.timestamp);
      const drafts = this.drafts(item);
      if (item.rewound) for (const d of drafts) d.metadata = { ...d.metadata, rewound: true };
      this.thread.push(drafts, item.line, time, typeof r.type === 'string' ? r.type : 'message', r, drafts[0]?.unknown);
    }
    return this.thread.finish(saneIsoFromText(conversation.meta.startTime) ?? fallbackTime);
  }

  private drafts(item: MessageItem): Draft[] {
    const r = item.record;
    if (r.type === 'user') return this.user(r, item.fromCheckpoint === true);
    if (r.type === 'gemini') return this.gemini(r);
    if (r.type === 'info' || r.type === 'warning' || r.type === 'error') {
      const kind: MessageKind = r.type === 'error' ? 'api_error' : 'system_event';
      const text = partsText(r.content);
      return [
        {
          role: 'system',
          source_type: 'meta',
          segments: text ? [{ channel: 'system', type: 'text', format: 'text', text }] : [],
          metadata: { kind, subtype: r.type },
        },
      ];
    }
    return [unknownDraft(str(r.type))];
  }

  private user(r: GeminiMessage, fromCheckpoint: boolean): Draft[] {
    const parts = Array.isArray(r.content) ? (r.content as unknown[]) : [];
    const responses = parts.filter((p) => isObject(p) && isObject(p.functionResponse));
    if (responses.length > 0 && responses.length === parts.length) {
      // Tool responses sent back as a user turn: results, unless the call already carries its own.
      const out: Draft[] = [];
      for (const p of responses) {
        const fr = (p as { functionResponse: Record<string, unknown> }).functionResponse;
        const callId = str(fr.id) ?? '';
        if (this.thread.hasResult(callId)) continue;
        out.push(this.result(callId, str(fr.name) ?? 'unknown', [p], undefined, 'completed'));
      }
      if (out.length) return out;
      // Every response is already shown with its call: the turn itself is only noted.
      return [
        {
          role: 'meta',
          source_type: 'meta',
          segments: [],
          metadata: { kind: 'system_event', subtype: 'tool responses' },
        },
      ];
    }
    const content = partsText(r.content);
    const shown = r.displayContent !== undefined ? partsText(r.displayContent) : '';
    const text = shown || content;
    const trimmed = content.trimStart();
    let kind: MessageKind = 'prompt';
    if (trimmed.startsWith('<session_context>') || trimmed.startsWith('<hook_context>')) {
      kind = 'injected';
      this.findings.contextDirs.push(...contextDirectories(content));
    } else if (fromCheckpoint) kind = 'injected';
    else if (trimmed.startsWith('/')) kind = 'command';
    if (kind === 'prompt' && this.findings.firstPrompt === undefined && text.trim()) {
      // `@file` references are sent with the files' text after this marker; the title is what was typed.
      this.findings.firstPrompt = text.split('\n--- Content from referenced files ---')[0];
    }
    return [
      {
        role: kind === 'injected' ? 'system' : 'user',
        source_type: 'message',
        segments: [{ channel: kind === 'injected' ? 'system' : 'input', type: 'text', format: 'text', text }],
        metadata: { kind, ...(shown && shown !== content ? { sent_text: content } : {}) },
      },
    ];
  }

  private gemini(r: GeminiMessage): Draft[] {
    const model = str(r.model);
    if (model && !this.findings.models.includes(model)) this.findings.models.push(model);
    const meta = (): MessageMetadata => ({ kind: 'response', response_id: r.id, ...(model ? { model } : {}) });
    const segments: MessageSegment[] = [];
    for (const t of Array.isArray(r.thoughts) ? r.thoughts : []) {
      if (!isObject(t)) continue;
      const text = [str(t.subject), str(t.description)].filter(Boolean).join('\n\n');
      if (text) segments.push({ channel: 'output', type: 'text', format: 'thinking', text });
    }
    const text = partsText(r.content);
    if (text) segments.push({ channel: 'output', type: 'text', format: 'text', text });
    const out: Draft[] = [];
    if (segments.length) out.push({ role: 'assistant', source_type: 'message', segments, metadata: meta() });
    for (const c of Array.isArray(r.toolCalls) ? r.toolCalls : []) {
      if (!isObject(c)) continue;
      const call = c as GeminiToolCall;
      const name = str(call.name) ?? 'unknown';
      const id = str(call.id) ?? '';
      const args = call.args ?? {};
      this.findings.toolPaths.push(...argPaths(args));
      const done = statusOf(call.status);
      out.push({
        role: 'tool',
        source_type: 'tool_call',
        segments: [],
        tool_call: {
          call_id: id,
          name,
          status: done ?? 'unanswered',
          arguments: typeof args === 'string' ? args : JSON.stringify(args, null, 2),
          arguments_json: args,
        },
        metadata: { ...meta(), ...(str(call.description) ? { description: call.description } : {}) },
      });
      if (done || call.result !== undefined) {
        out.push(this.result(id, name, call.result, call.resultDisplay, done ?? 'completed', call.timestamp));
      }
    }
    if (out.length === 0) out.push({ role: 'assistant', source_type: 'message', segments: [], metadata: meta() });
    const usage = usageOf(r.tokens);
    if (usage) out[0]!.metadata = { ...out[0]!.metadata, usage };
    return out;
  }

  private result(
    callId: string,
    name: string,
    result: unknown,
    display: unknown,
    status: ToolCall['status'],
    time?: string,
  ): Draft {
    const fr = Array.isArray(result) ? result.find((p) => isObject(p) && isObject(p.functionResponse)) : undefined;
    const response = fr ? (fr as { functionResponse: { response?: unknown } }).functionResponse.response : undefined;
    return {
      role: 'tool',
      source_type: 'tool_result',
      segments: [],
      tool_call: {
        call_id: callId,
        name,
        status,
        output: toolOutput(result, display),
        ...(isObject(response) ? { output_json: response } : {}),
      },
      ...(saneIsoFromText(time) ? { time: saneIsoFromText(time) } : {}),
    };
  }
}

function unknownDraft(subtype?: string): Draft {
  return {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: { kind: 'unknown', ...(subtype ? { subtype } : {}) },
    unknown: true,
  };
}
