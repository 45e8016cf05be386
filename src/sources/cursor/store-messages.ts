import type { MessageMetadata, MessageSegment } from '../../model/message.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { ThreadBuilder, type Draft } from './builder.ts';
import type { CliChat, StoreEntry } from './store-reader.ts';
import { argumentsOf, isObject, promptDrafts, str, textOf, unknownDraft } from './text.ts';

/** Model names that are Cursor's own automatic choice, not a model. */
const NOT_A_MODEL = new Set(['default', 'auto']);

export function chatModel(chat: CliChat): string | undefined {
  return chat.model && !NOT_A_MODEL.has(chat.model) ? chat.model : undefined;
}

/**
 * A CLI chat's messages in the order of its blob tree. Each message blob is `{role, content}` (the AI SDK's
 * shape): `system` (Cursor's instructions: injected context), `user` (a string or text blocks; the typed prompt
 * inside `<user_query>`), `assistant` (blocks `text`, `reasoning`, `tool-call`), `tool` (blocks `tool-result`).
 * Messages carry no times and no token counts; the thread is dated by `ThreadBuilder.finish`. A blob missing or
 * not JSON: a warning `store.db:<position>`, skipped. Another role is kept as `unknown`.
 */
export function chatThread(chat: CliChat, warn: WarningSink, models: Set<string>): ThreadBuilder {
  const thread = new ThreadBuilder();
  const model = chatModel(chat);
  if (model) models.add(model);
  // The first message is dated, as an estimate, by the chat's creation; the rest by ThreadBuilder.finish.
  let first = chat.createdAt;
  for (const entry of chat.entries) {
    if (addEntry(thread, chat.ref.file, entry, warn, models, first)) first = undefined;
  }
  return thread;
}

/** Adds one blob's messages; false when it was skipped. */
function addEntry(
  thread: ThreadBuilder,
  file: string,
  entry: StoreEntry,
  warn: WarningSink,
  models: Set<string>,
  time: string | undefined,
): boolean {
  const value = entry.value;
  if (entry.bad || !isObject(value)) {
    const why = entry.bad ?? `not an object (${value === null ? 'null' : typeof value})`;
    warn({ file, line: entry.position, message: `blob ${entry.blobId}: ${why}; skipped` });
    return false;
  }
  const role = str(value.role) ?? 'unknown';
  const origin = {
    file,
    line: entry.position,
    event_type: role,
    uuid: entry.blobId,
    ...(time ? { time, estimated: true } : {}),
  };
  switch (role) {
    case 'system':
      thread.add([injected(textOf(value.content))], origin);
      break;
    case 'user':
      thread.add(userDrafts(value.content), origin);
      break;
    case 'assistant':
    case 'tool':
      thread.add(blockDrafts(value.content, entry, models), origin);
      break;
    default:
      thread.add([unknownDraft(role)], { ...origin, record: value });
  }
  return true;
}

function injected(text: string): Draft {
  return {
    role: 'system',
    source_type: 'message',
    segments: [{ channel: 'system', type: 'text', format: 'text', text }],
    metadata: { kind: 'injected' },
  };
}

const OPEN_TAG = /^<([A-Za-z_][\w-]*)[^>]*>/;

/** Text made only of tagged blocks (`<user_info>…</user_info>`, `<rules>…`), with no `<user_query>`: context
 * the CLI sent, not something typed. Linear: each block ends at the first closing tag of its name. */
function onlyTags(text: string): boolean {
  let rest = text.trim();
  if (!rest) return false;
  while (rest) {
    const open = OPEN_TAG.exec(rest);
    if (!open) return false;
    const close = rest.indexOf(`</${open[1]}>`, open[0].length);
    if (close < 0) return false;
    rest = rest.slice(close + open[1]!.length + 3).trimStart();
  }
  return true;
}

function userDrafts(content: unknown): Draft[] {
  const blocks: unknown[] = Array.isArray(content) ? content : [content];
  const text = blocks
    .map((b) => (typeof b === 'string' ? b : isObject(b) && typeof b.text === 'string' ? b.text : ''))
    .filter(Boolean)
    .join('\n');
  const others = blocks.filter((b) => isObject(b) && b.type !== 'text' && typeof b.text !== 'string');
  const drafts: Draft[] = !text.includes('<user_query>') && onlyTags(text) ? [injected(text)] : promptDrafts(text);
  // Attachments (images, files) are named, not stored: their bytes are not text.
  if (others.length) {
    const names = others.map((b) => `[${str((b as Record<string, unknown>).type) ?? 'attachment'}]`).join(' ');
    const prompt = drafts.find((d) => d.metadata?.kind === 'prompt');
    if (prompt) prompt.segments[0]!.text = [prompt.segments[0]!.text, names].filter(Boolean).join('\n');
  }
  return drafts;
}

/** An assistant or tool message's blocks as messages: prose and thinking together until a call or a result. */
function blockDrafts(content: unknown, entry: StoreEntry, models: Set<string>): Draft[] {
  const blocks: unknown[] = Array.isArray(content) ? content : typeof content === 'string' ? [content] : [];
  let model: string | undefined;
  for (const b of blocks) model ??= blockModel(b);
  if (model) models.add(model);
  const meta = (): MessageMetadata => ({ kind: 'response', response_id: entry.blobId, ...(model ? { model } : {}) });
  const out: Draft[] = [];
  let prose: MessageSegment[] = [];
  const flush = () => {
    if (prose.length) out.push({ role: 'assistant', source_type: 'message', segments: prose, metadata: meta() });
    prose = [];
  };
  blocks.forEach((b, i) => {
    if (typeof b === 'string') {
      prose.push({ channel: 'output', type: 'text', format: 'text', text: b });
      return;
    }
    if (!isObject(b)) return;
    switch (b.type) {
      case 'text':
        prose.push({ channel: 'output', type: 'text', format: 'text', text: textOf(b.text) });
        return;
      case 'reasoning':
      case 'redacted-reasoning':
        prose.push({
          channel: 'output',
          type: 'text',
          format: 'thinking',
          text: typeof b.text === 'string' && b.text ? b.text : '[redacted]',
        });
        return;
      case 'tool-call': {
        flush();
        const cursor =
          isObject(b.providerOptions) && isObject(b.providerOptions.cursor) ? b.providerOptions.cursor : {};
        out.push({
          role: 'tool',
          source_type: 'tool_call',
          segments: [],
          tool_call: {
            call_id: str(b.toolCallId) ?? `${entry.blobId}:${i}`,
            name: str(b.toolName) ?? 'unknown',
            status: 'unanswered',
            ...argumentsOf(b.args ?? b.input ?? cursor.rawToolCallArgs),
          },
          metadata: meta(),
        });
        return;
      }
      case 'tool-result': {
        flush();
        out.push(resultDraft(b, entry, i));
        return;
      }
      default:
        prose.push({
          channel: 'output',
          type: 'text',
          format: str(b.type) ?? 'text',
          text: typeof b.text === 'string' ? b.text : JSON.stringify(b),
        });
    }
  });
  flush();
  if (out.length === 0) out.push({ role: 'assistant', source_type: 'message', segments: [], metadata: meta() });
  return out;
}

/** `tool-result`: `toolCallId`, `toolName`, `result` (a string, text blocks or JSON; the AI SDK's newer `output`
 * `{type, value}` too), `isError`. */
function resultDraft(b: Record<string, unknown>, entry: StoreEntry, i: number): Draft {
  let result = b.result !== undefined ? b.result : b.output;
  if (isObject(result) && typeof result.type === 'string' && 'value' in result) result = result.value;
  const isText =
    typeof result === 'string' || (Array.isArray(result) && result.every((r) => isObject(r) && r.type === 'text'));
  return {
    role: 'tool',
    source_type: 'tool_result',
    segments: [],
    tool_call: {
      call_id: str(b.toolCallId) ?? `${entry.blobId}:${i}`,
      name: str(b.toolName) ?? 'unknown',
      status: b.isError === true ? 'error' : 'completed',
      output: textOf(result),
      ...(!isText && result !== undefined && result !== null ? { output_json: result } : {}),
    },
  };
}

/** The model a block names (`providerOptions.cursor.modelName`, seen on reasoning blocks). */
function blockModel(b: unknown): string | undefined {
  if (!isObject(b) || !isObject(b.providerOptions) || !isObject(b.providerOptions.cursor)) return undefined;
  const name = str(b.providerOptions.cursor.modelName);
  return name && !NOT_A_MODEL.has(name) ? name : undefined;
}
