import type { MessageDraft, NormalizedMessage } from '../../model/message.ts';
import type { CopilotEvent, StartData } from './schema.ts';
import type { ShutdownLedger } from './usage.ts';

/** What one event becomes (an event may become several messages: a response's text and each tool call). */
export interface Draft extends MessageDraft {
  /** Keep the whole record in `raw.record` (unknown kinds, and events we only note). */
  keepRecord?: boolean;
}

export interface Thread {
  messages: NormalizedMessage[];
  agentType?: string;
  description?: string;
  /** The last thinking text, so a reasoning text repeated on the next message is not shown twice. */
  lastThinking?: string;
}

/** What the event handlers (events.ts) see of the normalizer. */
export interface EventSink {
  readonly calls: Map<string, NormalizedMessage>;
  readonly ledger: ShutdownLedger;
  readonly models: Set<string>;
  pendingOutput: Array<{ message: NormalizedMessage; tokens: number }>;
  start?: StartData;
  cwd?: string;
  gitBranch?: string;
  title?: string;
  nextResponseId(): string;
  thread(event: CopilotEvent): string;
  threadOf(id: string): Thread;
  push(event: CopilotEvent, line: number, ...drafts: Draft[]): NormalizedMessage[];
  link(call: NormalizedMessage, result: NormalizedMessage): void;
}
