import type { ContentItem, ResponseItem } from './schema.ts';
import type { MessageSegment, ToolStatus } from '../../model/message.ts';
import { argumentsOf, contentSegments, outputOf } from './content.ts';
import { classifyUserText, SHELL_COMMAND } from './prompts.ts';
import { CALL_TYPES, OUTPUT_TYPES, SILENT_ITEMS } from './record-kinds.ts';
import { encryptedOf, pick, scrub } from './record-fields.ts';
import type { RolloutState } from './rollout-state.ts';

/** What every message built from one response item says of its origin. */
type ItemBase = { event: string; payloadType: string };

/** One response item (event format `response_item`, a legacy line, or a `.json` rollout's item). */
export function addItem(
  state: RolloutState,
  item: ResponseItem,
  line: number,
  event: string,
  ts: string | undefined,
): void {
  const type = item.type ?? item.record_type ?? 'untyped';
  const base = { event, payloadType: type };
  if (type === 'message') return addMessage(state, item, line, ts, base);
  if (type === 'reasoning') return addReasoning(state, item, line, ts, base);
  if (CALL_TYPES.has(type)) return addCall(state, item, type, line, ts, base);
  if (OUTPUT_TYPES.has(type)) return addOutput(state, item, type, line, ts, base);
  if (type === 'agent_message') {
    // Inter-agent message (2026 multi-agent builds): context for this thread, not a human prompt.
    state.responses.closeResponse();
    state.log.push(line, ts, {
      ...base,
      role: 'meta',
      source_type: 'message',
      segments: contentSegments(item.content, 'input'),
      metadata: {
        kind: 'injected',
        subtype: 'agent_message',
        ...pick(item as Record<string, unknown>, ['author', 'recipient']),
        ...encryptedOf(item),
      },
    });
    return;
  }
  if (SILENT_ITEMS.has(type)) {
    state.log.push(line, ts, {
      ...base,
      role: 'meta',
      source_type: 'meta',
      segments: [],
      metadata: { kind: 'system_event', subtype: type, ...encryptedOf(item) },
    });
    return;
  }
  state.log.push(line, ts, {
    ...base,
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: { kind: 'unknown', subtype: type },
    record: scrub(item),
  });
}

function addMessage(
  state: RolloutState,
  item: ResponseItem,
  line: number,
  ts: string | undefined,
  base: ItemBase,
): void {
  const role = item.role ?? 'user';
  if (
    item.content !== undefined &&
    item.content !== null &&
    typeof item.content !== 'string' &&
    !Array.isArray(item.content)
  ) {
    state.warnAt(line, `message content is ${describe(item.content)}, not text or a list; kept without its content`);
  }
  const content: ContentItem[] =
    typeof item.content === 'string'
      ? [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: item.content }]
      : Array.isArray(item.content)
        ? item.content
        : typeof item.text === 'string'
          ? [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: item.text }]
          : [];
  if (role === 'assistant') {
    const responseId = state.responses.continueResponse(line);
    const message = state.log.push(line, ts, {
      ...base,
      role: 'assistant',
      source_type: 'message',
      segments: contentSegments(content, 'output'),
      metadata: {
        kind: 'response',
        response_id: responseId,
        ...(state.model ? { model: state.model } : {}),
        ...(item.phase ? { phase: item.phase } : {}),
        ...encryptedOf(item),
      },
    });
    state.responses.startedResponse(message);
    return;
  }
  state.responses.closeResponse();
  const segments = contentSegments(content, 'input');
  if (role !== 'user') {
    state.log.push(line, ts, {
      ...base,
      role: 'system',
      source_type: 'message',
      segments: segments.map((s) => ({ ...s, channel: 'system' as const })),
      metadata: { kind: 'injected', subtype: `${role} message` },
    });
    return;
  }
  const texts = content.filter((c) => typeof c.text === 'string').map((c) => c.text!);
  const kind = classifyUserText(texts.join('\n'));
  const envCwd = /^\s*<environment_context>[\s\S]*?<cwd>([^<]+)<\/cwd>/.exec(texts.join('\n'))?.[1]?.trim();
  if (envCwd) state.envCwd ??= envCwd;
  const shown =
    kind === 'command'
      ? segments.map((s) =>
          s.type === 'text' ? { ...s, text: SHELL_COMMAND.exec(s.text?.trim() ?? '')?.[1]?.trim() ?? s.text } : s,
        )
      : segments;
  const message = state.log.push(line, ts, {
    ...base,
    role: kind === 'injected' ? 'meta' : 'user',
    source_type: 'message',
    segments: shown,
    metadata: { kind },
  });
  state.prompts.addUserItem({ message, texts, promptKind: kind });
}

function addReasoning(
  state: RolloutState,
  item: ResponseItem,
  line: number,
  ts: string | undefined,
  base: ItemBase,
): void {
  const responseId = state.responses.continueResponse(line);
  const summary = (Array.isArray(item.summary) ? item.summary : [])
    .map((s) => (typeof s?.text === 'string' ? s.text : ''))
    .filter((t) => t.trim())
    .join('\n\n');
  const raw = Array.isArray(item.content)
    ? item.content
        .map((c) => (typeof c?.text === 'string' ? c.text : ''))
        .filter((t) => t.trim())
        .join('\n\n')
    : '';
  const encrypted = encryptedOf(item);
  const segments: MessageSegment[] = [];
  if (summary) segments.push({ channel: 'output', type: 'text', format: 'thinking', text: summary });
  if (raw) segments.push({ channel: 'output', type: 'text', format: 'thinking', text: raw });
  if (segments.length === 0 && encrypted.encrypted_sha256) {
    segments.push({ channel: 'output', type: 'text', format: 'redacted_thinking', text: '' });
  }
  const message = state.log.push(line, ts, {
    ...base,
    role: 'assistant',
    source_type: 'message',
    segments,
    metadata: {
      kind: 'response',
      subtype: 'reasoning',
      response_id: responseId,
      ...(state.model ? { model: state.model } : {}),
      ...encrypted,
    },
  });
  state.responses.startedResponse(message);
}

function addCall(
  state: RolloutState,
  item: ResponseItem,
  type: string,
  line: number,
  ts: string | undefined,
  base: ItemBase,
): void {
  const responseId = state.responses.continueResponse(line);
  let name: string;
  let args: unknown;
  let callId = item.call_id ?? item.id ?? `${type}@${line}`;
  let status: ToolStatus = 'unanswered';
  switch (type) {
    case 'function_call':
      name = item.name ?? 'unknown';
      if (item.namespace && !name.startsWith(`${item.namespace}`)) name = `${item.namespace}.${name}`;
      args = item.arguments;
      break;
    case 'custom_tool_call':
      name = item.name ?? 'unknown';
      args = item.input;
      break;
    case 'local_shell_call':
      name = 'local_shell';
      args = item.action;
      break;
    case 'web_search_call':
      name = 'web_search';
      args = item.action;
      callId = item.id ?? item.call_id ?? callId;
      status = item.status === 'failed' ? 'error' : item.status === 'completed' ? 'completed' : 'unanswered';
      break;
    case 'image_generation_call':
      name = 'image_generation';
      args = pick(item as Record<string, unknown>, ['revised_prompt']);
      status = item.status === 'failed' ? 'error' : item.status ? 'completed' : 'unanswered';
      break;
    default:
      name = 'tool_search';
      args = item.arguments;
  }
  const { text, json, invalid } = argumentsOf(args);
  const message = state.log.push(line, ts, {
    ...base,
    role: 'tool',
    source_type: 'tool_call',
    segments: [],
    tool_call: {
      call_id: callId,
      name,
      status,
      arguments: text,
      ...(json !== undefined ? { arguments_json: json } : {}),
    },
    metadata: {
      response_id: responseId,
      ...(state.model ? { model: state.model } : {}),
      ...(invalid ? { arguments_invalid_json: true } : {}),
    },
  });
  state.responses.startedResponse(message);
  state.links.addCall(callId, message);
}

function addOutput(
  state: RolloutState,
  item: ResponseItem,
  type: string,
  line: number,
  ts: string | undefined,
  base: ItemBase,
): void {
  state.responses.closeResponse();
  const callId = item.call_id ?? '';
  const parsed =
    type === 'tool_search_output'
      ? { text: JSON.stringify((item as { tools?: unknown }).tools ?? [], null, 2), segments: [], metadata: {} }
      : outputOf(item.output);
  if (parsed.shapeUnknown) state.warnAt(line, `${type} output is an object of an unknown shape; shown as JSON`);
  const status: ToolStatus = parsed.error ? 'error' : 'completed';
  const message = state.log.push(line, ts, {
    ...base,
    role: 'tool',
    source_type: 'tool_result',
    segments: parsed.segments,
    tool_call: {
      call_id: callId,
      name: 'unknown',
      status,
      output: parsed.text,
      ...(parsed.json !== undefined ? { output_json: parsed.json } : {}),
    },
    ...(Object.keys(parsed.metadata).length > 0 ? { metadata: parsed.metadata } : {}),
  });
  state.links.addResult(message);
}

function describe(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'a list' : `a ${typeof value}`;
}
