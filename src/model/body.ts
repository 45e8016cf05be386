import type { NormalizedMessage, TokenUsage, ToolStatus } from './message.ts';
import type { Session, SubagentThread } from './session.ts';

/** The main thread's key in a body's message lines; subagent threads use their `agentId`. */
export const MAIN_THREAD = '';

/**
 * A later correction to a message already written: a source that streams a session to disk learns a call's
 * result, or a response's final token usage, after the message went out. Applied in order; `null` clears.
 */
export interface MessagePatch {
  id: string;
  status?: ToolStatus;
  resultId?: string | null;
  name?: string;
  usage?: TokenUsage;
  /** What a patch replaces, with the call's tool and the message's time: enough for statistics kept as
   * running totals to be corrected without keeping every message. */
  was?: { status?: ToolStatus; usage?: TokenUsage };
  tool?: string;
  at?: string;
  /** The model of a response whose usage a patch corrects, for tokens kept per model. */
  model?: string;
}

/** One line of a body's `.messages.jsonl`: a message of a thread, or a patch to an earlier one. */
export type BodyLine = { thread: string; message: NormalizedMessage } | { thread: string; patch: MessagePatch };

/** Where a reader sends what it normalized: to the archive on disk, or to memory. */
export interface BodyOut {
  message(thread: string, message: NormalizedMessage): void;
  patch(thread: string, patch: MessagePatch): void;
}

export function applyPatch(message: NormalizedMessage, patch: MessagePatch): void {
  const call = message.tool_call;
  if (call && patch.status !== undefined) call.status = patch.status;
  if (call && patch.name !== undefined) call.name = patch.name;
  if (call && patch.resultId !== undefined) {
    if (patch.resultId === null) delete call.result_id;
    else call.result_id = patch.resultId;
  }
  if (patch.usage !== undefined) message.metadata = { ...message.metadata, usage: patch.usage };
}

/** Collects body lines into threads, applying patches as they come. */
export class ThreadAssembler implements BodyOut {
  readonly threads = new Map<string, NormalizedMessage[]>();
  private byId?: Map<string, Map<string, NormalizedMessage>>;

  message(thread: string, message: NormalizedMessage): void {
    let list = this.threads.get(thread);
    if (!list) this.threads.set(thread, (list = []));
    list.push(message);
    if (this.byId) {
      let ids = this.byId.get(thread);
      if (!ids) this.byId.set(thread, (ids = new Map()));
      if (!ids.has(message.id)) ids.set(message.id, message);
    }
  }

  patch(thread: string, patch: MessagePatch): void {
    // Most bodies have no patches: the id index is built on the first one.
    if (!this.byId) {
      this.byId = new Map();
      for (const [key, list] of this.threads) {
        const ids = new Map<string, NormalizedMessage>();
        for (const m of list) if (!ids.has(m.id)) ids.set(m.id, m);
        this.byId.set(key, ids);
      }
    }
    const message = this.byId.get(thread)?.get(patch.id);
    if (message) applyPatch(message, patch);
  }

  add(line: BodyLine): void {
    if ('message' in line) this.message(line.thread, line.message);
    else this.patch(line.thread, line.patch);
  }

  /** The session of a body header (its threads' message lists empty) with these messages. */
  session(header: Session): Session {
    return {
      ...header,
      messages: this.threads.get(MAIN_THREAD) ?? [],
      subagents: header.subagents.map((s): SubagentThread => ({ ...s, messages: this.threads.get(s.agentId) ?? [] })),
    };
  }
}

/** The header of a session: everything but its messages. */
export function sessionHeader(session: Session): Session {
  return { ...session, messages: [], subagents: session.subagents.map((s) => ({ ...s, messages: [] })) };
}

/** Body lines of an in-memory session, thread by thread. */
export function* bodyLines(session: Session): Generator<BodyLine> {
  for (const message of session.messages) yield { thread: MAIN_THREAD, message };
  for (const s of session.subagents) for (const message of s.messages) yield { thread: s.agentId, message };
}
