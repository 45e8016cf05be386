import type { MessageMetadata, MessageSegment, TokenUsage, ToolStatus } from '../../model/message.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { Draft, ThreadBuilder } from './builder.ts';
import { argumentsOf, isObject, isoOf, promptDrafts, str, textOf, unknownDraft } from './text.ts';

/** `composerData:<id>`: one editor chat ("composer"). Only the fields read here; see docs/formats/cursor.md. */
export interface Composer {
  composerId?: string;
  name?: string;
  createdAt?: number;
  lastUpdatedAt?: number;
  modelConfig?: { modelName?: string };
  fullConversationHeadersOnly?: Array<{ bubbleId?: string; type?: number }>;
  /** Older builds: the bubbles inline. */
  conversation?: unknown[];
  workspaceIdentifier?: { id?: string; uri?: { fsPath?: string; path?: string; external?: string } };
  [key: string]: unknown;
}

/** The ordered bubbles of a composer: `[bubbleId, value or undefined when missing or not JSON]`. */
export function orderedBubbles(
  composer: Composer,
  stored: Map<string, string | undefined>,
): Array<{ id: string; value: unknown; bad?: string }> {
  const out: Array<{ id: string; value: unknown; bad?: string }> = [];
  const headers = Array.isArray(composer.fullConversationHeadersOnly) ? composer.fullConversationHeadersOnly : [];
  if (headers.length > 0) {
    for (const h of headers) {
      const id = isObject(h) ? str(h.bubbleId) : undefined;
      if (!id) continue;
      const raw = stored.get(id);
      if (raw === undefined) {
        out.push({ id, value: undefined, bad: 'not stored' });
        continue;
      }
      try {
        out.push({ id, value: JSON.parse(raw) as unknown });
      } catch (error) {
        out.push({ id, value: undefined, bad: `not valid JSON (${(error as Error).message})` });
      }
    }
    return out;
  }
  for (const b of Array.isArray(composer.conversation) ? composer.conversation : []) {
    out.push({ id: isObject(b) ? (str(b.bubbleId) ?? '') : '', value: b });
  }
  return out;
}

/** The model a bubble or its composer names ("default" is Cursor's auto choice, not a model). */
export function modelOf(bubble: Record<string, unknown>, composer: Composer): string | undefined {
  const info = isObject(bubble.modelInfo) ? str(bubble.modelInfo.modelName) : undefined;
  const model = info ?? str(composer.modelConfig?.modelName);
  return model && model !== 'default' ? model : undefined;
}

/**
 * One bubble as messages: `type` 1 is the user's turn (`text`), 2 an assistant step (`thinking.text`, `text`,
 * one tool call in `toolFormerData` with its result, `tokenCount` of the request). Other types are kept as
 * `unknown`.
 */
export function addBubble(
  thread: ThreadBuilder,
  file: string,
  position: number,
  bubble: { id: string; value: unknown; bad?: string },
  composer: Composer,
  warn: WarningSink,
  models: Set<string>,
): void {
  const origin = { file, line: position, event_type: 'bubble', uuid: bubble.id };
  const value = bubble.value;
  if (bubble.bad || !isObject(value)) {
    const why = bubble.bad ?? `not an object (${value === null ? 'null' : typeof value})`;
    warn({ file, line: position, message: `bubble ${bubble.id} of composer ${composer.composerId}: ${why}; skipped` });
    return;
  }
  const time = isoOf(value.createdAt) ?? isoOf(isObject(value.timingInfo) ? value.timingInfo.clientRpcSendTime : 0);
  const dated = { ...origin, ...(time ? { time } : {}) };
  if (value.type === 1) {
    thread.add(promptDrafts(textOf(value.text)), dated);
    return;
  }
  if (value.type !== 2) {
    thread.add([unknownDraft(`bubble type ${String(value.type)}`)], { ...dated, record: value });
    return;
  }
  const model = modelOf(value, composer);
  if (model) models.add(model);
  const meta = (): MessageMetadata => ({
    kind: 'response',
    response_id: bubble.id,
    ...(model ? { model } : {}),
  });
  const drafts: Draft[] = [];
  const prose: MessageSegment[] = [];
  const thinking = isObject(value.thinking) ? textOf(value.thinking.text) : '';
  if (thinking) prose.push({ channel: 'output', type: 'text', format: 'thinking', text: thinking });
  const text = textOf(value.text);
  if (text) prose.push({ channel: 'output', type: 'text', format: 'text', text });
  if (prose.length) drafts.push({ role: 'assistant', source_type: 'message', segments: prose, metadata: meta() });
  if (isObject(value.toolFormerData)) drafts.push(...toolDrafts(value.toolFormerData, bubble.id, meta()));
  if (drafts.length === 0) drafts.push({ role: 'assistant', source_type: 'message', segments: [], metadata: meta() });
  const usage = usageOf(value.tokenCount);
  if (usage) drafts[0]!.metadata = { ...drafts[0]!.metadata, usage };
  thread.add(drafts, dated);
}

/** `toolFormerData`: `name`, `toolCallId`, `rawArgs` (JSON text) or `params`, `result` (JSON text), `status`. */
function toolDrafts(tool: Record<string, unknown>, bubbleId: string, metadata: MessageMetadata): Draft[] {
  const name = str(tool.name) ?? (typeof tool.tool === 'number' ? `tool-${tool.tool}` : 'unknown');
  const callId = str(tool.toolCallId) ?? `${bubbleId}:tool`;
  const status = statusOf(tool.status, tool.result);
  const out: Draft[] = [
    {
      role: 'tool',
      source_type: 'tool_call',
      segments: [],
      tool_call: { call_id: callId, name, status: 'unanswered', ...argumentsOf(tool.rawArgs ?? tool.params) },
      metadata,
    },
  ];
  if (status !== 'unanswered') {
    const result = tool.result;
    let output_json: unknown;
    if (typeof result === 'string') {
      try {
        output_json = JSON.parse(result) as unknown;
      } catch {
        // Plain text output.
      }
    }
    out.push({
      role: 'tool',
      source_type: 'tool_result',
      segments: [],
      tool_call: {
        call_id: callId,
        name,
        status,
        output: typeof result === 'string' ? result : result === undefined ? '' : JSON.stringify(result, null, 2),
        ...(output_json !== undefined ? { output_json } : {}),
      },
    });
  }
  return out;
}

function statusOf(status: unknown, result: unknown): ToolStatus {
  switch (status) {
    case 'completed':
    case 'success':
      return 'completed';
    case 'error':
    case 'failed':
      return 'error';
    case 'cancelled':
    case 'canceled':
    case 'rejected':
    case 'aborted':
      return 'rejected';
    default:
      return result !== undefined && result !== null && result !== '' ? 'completed' : 'unanswered';
  }
}

/** `tokenCount: {inputTokens, outputTokens}` of the request a bubble answered; zeros mean not recorded. */
export function usageOf(count: unknown): TokenUsage | undefined {
  if (!isObject(count)) return undefined;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const input = n(count.inputTokens);
  const output = n(count.outputTokens);
  if (input === 0 && output === 0) return undefined;
  return { input, output, cacheRead: 0, cacheCreation: 0 };
}
