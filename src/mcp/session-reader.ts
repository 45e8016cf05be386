import path from 'node:path';
import { applyPatch, type BodyLine, MAIN_THREAD, type MessagePatch } from '../model/body.ts';
import type { NormalizedMessage } from '../model/message.ts';
import type { Session } from '../model/session.ts';
import { readJsonFile } from '../util/fs.ts';
import { readJsonl } from '../util/jsonl.ts';

/** A session body's header (v2: the session without messages, and the name of its message file). */
interface Header {
  version: number;
  session: Session;
  messages?: string;
}

export type ThreadEvent =
  | { kind: 'message'; thread: string; index: number; message: NormalizedMessage }
  | { kind: 'patch'; thread: string; patch: MessagePatch };

/** Text longer than this (unless asked for more) is cut while reading, so a window of messages stays small whatever the session. */
const READ_CAP = 200_000;

export async function readHeader(root: string, body: string): Promise<Header | undefined> {
  return readJsonFile<Header>(path.join(root, body));
}

/**
 * A body's messages and patches in file order, streamed a line at a time; `index` counts the messages of
 * each thread from 0 (for the main thread, the index the site's `m<I>` anchors and `pageStarts` use).
 */
export async function* threadEvents(
  root: string,
  body: string,
  header?: Header,
  /** Read text up to this long (never less than READ_CAP). */
  wanted = 0,
): AsyncGenerator<ThreadEvent> {
  const cap = Math.max(READ_CAP, wanted);
  const head = header ?? (await readHeader(root, body));
  if (!head) return;
  const counts = new Map<string, number>();
  const next = (thread: string) => {
    const n = counts.get(thread) ?? 0;
    counts.set(thread, n + 1);
    return n;
  };
  if (head.version !== 2 || !head.messages) {
    // Version 1: the whole session in the header file.
    for (const message of head.session.messages ?? [])
      yield { kind: 'message', thread: MAIN_THREAD, index: next(MAIN_THREAD), message: capped(message, cap) };
    for (const agent of head.session.subagents ?? [])
      for (const message of agent.messages)
        yield { kind: 'message', thread: agent.agentId, index: next(agent.agentId), message: capped(message, cap) };
    return;
  }
  const file = path.join(root, path.dirname(body), head.messages);
  try {
    for await (const { value } of readJsonl(file)) {
      const line = value as BodyLine;
      if ('message' in line)
        yield { kind: 'message', thread: line.thread, index: next(line.thread), message: capped(line.message, cap) };
      else yield { kind: 'patch', thread: line.thread, patch: line.patch };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

export interface ThreadWindow {
  header: Session;
  /** Messages `from` … `to - 1` of the thread, their patches applied. */
  messages: { index: number; message: NormalizedMessage }[];
  from: number;
  /** Messages in the thread. */
  total: number;
  /** Prompts (`kind: prompt`) in the thread, and the message index of each. */
  promptIndexes: number[];
}

/**
 * Messages `from` … `from + limit - 1` of one thread (the main thread, or a subagent's `agentId`), read in
 * one streamed pass that keeps only those (and their patches). `fromPrompt` (1-based) starts the window at
 * that prompt instead.
 */
export async function readThreadWindow(
  root: string,
  body: string,
  options: { thread?: string; from: number; limit: number; fromPrompt?: number; cap?: number },
): Promise<ThreadWindow | undefined> {
  const header = await readHeader(root, body);
  if (!header) return undefined;
  const thread = options.thread ?? MAIN_THREAD;
  let from = options.fromPrompt === undefined ? options.from : Number.POSITIVE_INFINITY;
  const kept = new Map<string, NormalizedMessage>();
  const messages: ThreadWindow['messages'] = [];
  const promptIndexes: number[] = [];
  let total = 0;
  for await (const event of threadEvents(root, body, header, options.cap)) {
    if (event.thread !== thread) continue;
    if (event.kind === 'patch') {
      const target = kept.get(event.patch.id);
      if (target) applyPatch(target, event.patch);
      continue;
    }
    total = event.index + 1;
    if (event.message.metadata?.kind === 'prompt') {
      promptIndexes.push(event.index);
      if (options.fromPrompt !== undefined && promptIndexes.length === options.fromPrompt) from = event.index;
    }
    if (event.index >= from && event.index < from + options.limit) {
      messages.push({ index: event.index, message: event.message });
      if (!kept.has(event.message.id)) kept.set(event.message.id, event.message);
    }
  }
  return { header: header.session, messages, from: Number.isFinite(from) ? from : total, total, promptIndexes };
}

function capped(message: NormalizedMessage, cap: number): NormalizedMessage {
  const cut = (text: string) =>
    text.length > cap
      ? `${text.slice(0, cap)}\n[… ${(text.length - cap).toLocaleString('en-US')} more characters in the archive]`
      : text;
  for (const segment of message.segments) {
    if (segment.text !== undefined) segment.text = cut(segment.text);
    delete segment.html;
    if (segment.media?.data_uri) {
      segment.media.size_bytes ??= segment.media.data_uri.length;
      delete segment.media.data_uri;
    }
  }
  const call = message.tool_call;
  if (call) {
    // The JSON copy of a cut text would hold the whole of it again.
    if (call.arguments !== undefined && call.arguments.length > cap) delete call.arguments_json;
    if (call.output !== undefined && call.output.length > cap) delete call.output_json;
    if (call.arguments !== undefined) call.arguments = cut(call.arguments);
    if (call.output !== undefined) call.output = cut(call.output);
  }
  delete message.raw.record;
  return message;
}
