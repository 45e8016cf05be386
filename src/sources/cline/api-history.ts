import type { MessageMetadata, MessageSegment, TokenUsage } from '../../model/message.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { isObject, isoOf, MessageBuilder, num, str, text, type Draft } from './builder.ts';
import { timeOfApi, type ApiRequest, type UiIndex } from './ui-index.ts';
import { addEdits, parseResultHeader, resultStatus, splitAssistantText } from './xml-tools.ts';
import type { ModelAt } from './metadata.ts';

/**
 * `api_conversation_history.json`: the Anthropic messages Cline sends (`ClineStorageMessage` in
 * `src/shared/messages/content.ts`: `role`, `content` blocks, and since 3.3x `ts`, `modelInfo`, `metrics`).
 * Times come from the message's `ts`, else from ui_messages.json (`conversationHistoryIndex`); tokens and dollar
 * cost from ui_messages.json's `api_req_started` entries, each request once, else from `metrics`.
 */
export interface ApiContext {
  file: string;
  /** ui_messages.json, where requests no assistant message answers are dated from. */
  uiFile?: string;
  ui?: UiIndex;
  modelAt: ModelAt;
  warn: WarningSink;
}

type Block = Record<string, unknown>;

export function addUsage(a: TokenUsage | undefined, b: TokenUsage): TokenUsage {
  if (!a) return { ...b };
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheCreation: a.cacheCreation + b.cacheCreation,
  };
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) =>
        isObject(b) && typeof b.text === 'string' ? b.text : isObject(b) && b.type === 'image' ? '[image]' : '',
      )
      .filter(Boolean)
      .join('\n');
  }
  return content === undefined || content === null ? '' : JSON.stringify(content, null, 2);
}

function imageSegment(b: Block, channel: MessageSegment['channel']): MessageSegment {
  const source = isObject(b.source) ? b.source : {};
  const mediaType = str(source.media_type);
  const data = str(source.data);
  return {
    channel,
    type: 'image',
    format: 'image',
    media: {
      ...(mediaType ? { media_type: mediaType } : {}),
      ...(data && mediaType ? { data_uri: `data:${mediaType};base64,${data}` } : {}),
      ...(str(source.url) ? { url: str(source.url) } : {}),
    },
  };
}

/** Which assistant message (0-based) each request's usage goes to; requests matching none are returned apart. */
function assignRequests(list: unknown[], ui: UiIndex | undefined, times: (number | undefined)[]) {
  const byAssistant = new Map<number, { usage?: TokenUsage; costUsd?: number }>();
  const orphans: ApiRequest[] = [];
  const isAssistant = (i: number) => isObject(list[i]) && (list[i] as Block).role === 'assistant';
  for (const r of ui?.requests ?? []) {
    let target = -1;
    const from = r.historyIndex !== undefined ? r.historyIndex + 1 : 0;
    for (let i = Math.max(0, from); i < list.length; i++) {
      if (!isAssistant(i)) continue;
      if (r.historyIndex !== undefined || (times[i] ?? -Infinity) >= r.ts) {
        target = i;
        break;
      }
    }
    if (target < 0 || (!r.usage && r.costUsd === undefined)) {
      if (r.usage || r.costUsd !== undefined) orphans.push(r);
      continue;
    }
    const at = byAssistant.get(target) ?? {};
    if (r.usage) at.usage = addUsage(at.usage, r.usage);
    if (r.costUsd !== undefined) at.costUsd = (at.costUsd ?? 0) + r.costUsd;
    byAssistant.set(target, at);
  }
  return { byAssistant, orphans };
}

/** Usage Cline kept on the message itself (`metrics.tokens`: prompt includes the cached part). */
function metricsUsage(m: Block): { usage?: TokenUsage; costUsd?: number } {
  const metrics = isObject(m.metrics) ? m.metrics : undefined;
  const tokens = isObject(metrics?.tokens) ? metrics.tokens : undefined;
  const cached = num(tokens?.cached) ?? 0;
  const usage = tokens
    ? {
        input: Math.max(0, (num(tokens.prompt) ?? 0) - cached),
        output: num(tokens.completion) ?? 0,
        cacheRead: cached,
        cacheCreation: 0,
      }
    : undefined;
  const cost = num(metrics?.cost);
  return { ...(usage ? { usage } : {}), ...(cost !== undefined ? { costUsd: cost } : {}) };
}

const TAGGED_PROMPT = /^\s*<(task|feedback|user_message)>\r?\n?([\s\S]*?)\r?\n?<\/\1>\s*$/;

export function normalizeApiHistory(list: unknown[], ctx: ApiContext, b: MessageBuilder): void {
  const times = list.map((m, i) => (isObject(m) ? num(m.ts) : undefined) ?? timeOfApi(ctx.ui, i));
  const { byAssistant, orphans } = assignRequests(list, ctx.ui, times);
  let pendingXml: string[] = [];
  list.forEach((value, i) => {
    const index = i + 1;
    const time = isoOf(times[i]);
    if (!isObject(value) || typeof value.role !== 'string') {
      ctx.warn({ file: ctx.file, line: index, message: 'not a message (an object with a "role"); skipped' });
      return;
    }
    const blocks: unknown[] = Array.isArray(value.content)
      ? value.content
      : typeof value.content === 'string'
        ? [{ type: 'text', text: value.content }]
        : [];
    const drafts: Draft[] = [];
    if (value.role === 'user') {
      let prompt: MessageSegment[] = [];
      let injected: MessageSegment[] = [];
      let awaiting: Draft | undefined; // a `[tool] Result:` header whose output is the next text block
      const hasResult = blocks.some(
        (bl) =>
          isObject(bl) && (bl.type === 'tool_result' || (typeof bl.text === 'string' && parseResultHeader(bl.text))),
      );
      const flush = () => {
        if (prompt.length)
          drafts.push({ role: 'user', source_type: 'message', segments: prompt, metadata: { kind: 'prompt' } });
        if (injected.length)
          drafts.push({ role: 'system', source_type: 'message', segments: injected, metadata: { kind: 'injected' } });
        prompt = [];
        injected = [];
      };
      for (const bl of blocks) {
        if (!isObject(bl)) continue;
        if (bl.type === 'tool_result') {
          flush();
          const output = contentText(bl.content);
          const status = bl.is_error === true ? 'error' : resultStatus(output);
          drafts.push(result(str(bl.tool_use_id) ?? '', 'unknown', output, status));
        } else if (bl.type === 'text' && typeof bl.text === 'string') {
          const header = parseResultHeader(bl.text);
          const tagged = TAGGED_PROMPT.exec(bl.text);
          if (awaiting && !/^\s*<environment_details>/.test(bl.text)) {
            awaiting.tool_call!.output = bl.text;
            awaiting.tool_call!.status = resultStatus(bl.text);
            awaiting = undefined;
          } else if (header) {
            flush();
            const d = result(pendingXml.shift() ?? '', header.name, header.output, resultStatus(header.output));
            drafts.push(d);
            if (!header.output.trim()) awaiting = d;
          } else if (tagged) prompt.push(text('input', tagged[2]!));
          else if (/^\s*<environment_details>/.test(bl.text) || hasResult || prompt.length)
            injected.push(text('system', bl.text));
          else prompt.push(text('input', bl.text));
        } else if (bl.type === 'image')
          (prompt.length || !hasResult ? prompt : injected).push(imageSegment(bl, 'input'));
        else {
          flush();
          drafts.push(unknown(bl));
        }
      }
      flush();
    } else if (value.role === 'assistant') {
      pendingXml = [];
      const modelInfo = isObject(value.modelInfo) ? value.modelInfo : undefined;
      const model = str(modelInfo?.modelId) ?? ctx.modelAt(times[i]);
      const meta = (): MessageMetadata => ({
        kind: 'response',
        response_id: `api-${index}`,
        ...(model ? { model } : {}),
      });
      let prose: MessageSegment[] = [];
      const flush = () => {
        if (prose.length) drafts.push({ role: 'assistant', source_type: 'message', segments: prose, metadata: meta() });
        prose = [];
      };
      let calls = 0;
      for (const bl of blocks) {
        if (!isObject(bl)) continue;
        if (bl.type === 'text' && typeof bl.text === 'string') {
          for (const part of splitAssistantText(bl.text)) {
            if (part.kind === 'text') prose.push(text('output', part.text));
            else if (part.kind === 'thinking') prose.push(text('output', part.text, 'thinking'));
            else {
              flush();
              const id = `xml-${index}-${++calls}`;
              pendingXml.push(id);
              drafts.push(call(id, part.name, part.input, meta()));
            }
          }
        } else if (bl.type === 'thinking') prose.push(text('output', contentText(bl.thinking), 'thinking'));
        else if (bl.type === 'redacted_thinking')
          continue; // encrypted: nothing to show
        else if (bl.type === 'tool_use') {
          flush();
          const input = isObject(bl.input) ? { ...bl.input } : (bl.input ?? {});
          if (isObject(input)) addEdits(input);
          drafts.push(call(str(bl.id) ?? '', str(bl.name) ?? 'unknown', input, meta()));
        } else if (bl.type === 'image') prose.push(imageSegment(bl, 'output'));
        else {
          flush();
          drafts.push(unknown(bl));
        }
      }
      flush();
      if (!drafts.length) drafts.push({ role: 'assistant', source_type: 'message', segments: [], metadata: meta() });
      const counted = ctx.ui ? byAssistant.get(i) : metricsUsage(value);
      const first = drafts.find((d) => d.metadata?.response_id) ?? drafts[0]!;
      if (counted?.usage) first.metadata = { ...first.metadata, usage: counted.usage };
      if (counted?.costUsd !== undefined) first.metadata = { ...first.metadata, costUsd: counted.costUsd };
    } else {
      ctx.warn({ file: ctx.file, line: index, message: `unknown role "${value.role}"; kept as meta` });
      drafts.push(unknown(value));
    }
    drafts.forEach((d, part) =>
      b.push(d, ctx.file, index, drafts.length > 1 ? part : undefined, time, String(value.role)),
    );
  });
  for (const r of orphans) {
    // A request no assistant message answers (cancelled, failed mid-stream) still cost what it cost.
    b.push(
      {
        role: 'meta',
        source_type: 'meta',
        segments: [],
        metadata: {
          kind: 'system_event',
          subtype: 'api_req_started',
          ...(r.usage ? { usage: r.usage } : {}),
          ...(r.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
          ...(ctx.modelAt(r.ts) ? { model: ctx.modelAt(r.ts) } : {}),
        },
      },
      ctx.uiFile ?? ctx.file,
      r.index,
      undefined,
      isoOf(r.ts),
      'api_req_started',
    );
  }
}

function call(id: string, name: string, input: unknown, metadata: MessageMetadata): Draft {
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

function result(id: string, name: string, output: string, status: 'completed' | 'error' | 'rejected'): Draft {
  return { role: 'tool', source_type: 'tool_result', segments: [], tool_call: { call_id: id, name, status, output } };
}

function unknown(record: unknown): Draft {
  const type = isObject(record) ? String(record.type ?? record.role ?? 'unknown') : typeof record;
  return { role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', subtype: type }, record };
}
