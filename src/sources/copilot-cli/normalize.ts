import type {
  MessageMetadata,
  MessageSegment,
  NormalizedMessage,
  Role,
  SourceType,
  ToolCall,
} from '../../model/message.ts';
import type { Session, SubagentThread } from '../../model/session.ts';
import { saneIsoFromText } from '../../util/time.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { Draft, EventSink, Thread } from './draft.ts';
import { addEvent } from './events.ts';
import type { CopilotEvent, StartData, Workspace } from './schema.ts';
import { ShutdownLedger } from './usage.ts';

export const MAIN = '';

/**
 * Turns the lines of one Copilot CLI `events.jsonl` into a session: the main conversation, and one thread per
 * subagent (events carrying `agentId`, the id of the `task` call that started it). Feed lines in order, then
 * `finish()`. Built in memory: a Copilot session log is small (tens of MB at most).
 */
export class CopilotNormalizer implements EventSink {
  readonly threads = new Map<string, Thread>([[MAIN, { messages: [] }]]);
  readonly calls = new Map<string, NormalizedMessage>();
  private readonly links: Array<[NormalizedMessage, NormalizedMessage]> = [];
  private readonly undated: NormalizedMessage[] = [];
  readonly ledger = new ShutdownLedger();
  /** Assistant messages with output tokens that no shutdown has counted yet. */
  pendingOutput: Array<{ message: NormalizedMessage; tokens: number }> = [];
  private lastTime?: string;
  start?: StartData;
  cwd?: string;
  gitBranch?: string;
  title?: string;
  readonly models = new Set<string>();
  private responses = 0;

  constructor(
    readonly file: string,
    readonly warn: WarningSink,
  ) {}

  /** One line of the file (its parsed JSON value). */
  add(value: unknown, line: number): void {
    if (
      !value ||
      typeof value !== 'object' ||
      Array.isArray(value) ||
      typeof (value as CopilotEvent).type !== 'string'
    ) {
      this.warn({ file: this.file, line, message: 'not an event (an object with a "type"); skipped' });
      return;
    }
    const event = value as CopilotEvent;
    try {
      addEvent(this, event, line);
    } catch (error) {
      this.warn({
        file: this.file,
        line,
        message: `${event.type} not understood (${(error as Error).message}); kept as unknown`,
      });
      this.push(event, line, {
        role: 'meta',
        source_type: 'meta',
        segments: [],
        metadata: { kind: 'unknown', subtype: event.type },
        keepRecord: true,
      });
    }
  }

  nextResponseId(): string {
    return `response-${++this.responses}`;
  }

  thread(event: CopilotEvent): string {
    const data = event.data as { parentToolCallId?: unknown } | undefined;
    if (typeof event.agentId === 'string' && event.agentId) return event.agentId;
    // Builds before `agentId` marked subagent events with `parentToolCallId` only.
    if (typeof data?.parentToolCallId === 'string' && data.parentToolCallId) return data.parentToolCallId;
    return MAIN;
  }

  threadOf(id: string): Thread {
    let t = this.threads.get(id);
    if (!t) this.threads.set(id, (t = { messages: [] }));
    return t;
  }

  /** Adds the messages of one event: `drafts` in order, numbered `<line>.<part>` when there are several. */
  push(event: CopilotEvent, line: number, ...drafts: Draft[]): NormalizedMessage[] {
    const threadId = this.thread(event);
    const thread = this.threadOf(threadId);
    const time = saneIsoFromText(event.timestamp);
    const out: NormalizedMessage[] = [];
    drafts.forEach((d, part) => {
      const local = drafts.length > 1 ? `${line}.${part}` : `${line}`;
      const m: NormalizedMessage = {
        id: `${threadId ? `${threadId}:` : ''}#${local}`,
        timestamp: '',
        role: d.role,
        source_type: d.source_type,
        segments: d.segments,
        ...(d.tool_call ? { tool_call: d.tool_call } : {}),
        raw: {
          event_type: event.type,
          file_path: this.file,
          line_index: line,
          ...(typeof event.id === 'string' ? { uuid: event.id } : {}),
          ...(d.keepRecord ? { record: event } : {}),
        },
        ...(d.metadata ? { metadata: d.metadata } : {}),
      };
      if (time) {
        for (const u of this.undated.splice(0)) date(u, time, true);
        date(m, time, false);
        this.lastTime = time;
      } else if (this.lastTime) date(m, this.lastTime, true);
      else this.undated.push(m);
      thread.messages.push(m);
      out.push(m);
    });
    return out;
  }

  /** Joins a result to its call (wherever each one is). */
  link(call: NormalizedMessage, result: NormalizedMessage): void {
    this.links.push([call, result]);
  }

  /** The session, once every line was added; undefined when it holds no conversation. */
  finish(nameId: string, files: string[], workspace: Workspace | undefined, mtime: string): Session | undefined {
    for (const u of this.undated.splice(0)) date(u, mtime, true);
    for (const [call, result] of this.links) if (call.tool_call) call.tool_call.result_id = result.id;
    // Output tokens no shutdown counted (a session still open, or one that crashed): the only usage known.
    for (const { message, tokens } of this.pendingOutput) {
      message.metadata = {
        ...message.metadata,
        usage: { input: 0, output: tokens, cacheRead: 0, cacheCreation: 0 },
        usage_partial: true,
      };
    }
    const main = this.threads.get(MAIN)!.messages;
    const all = [...this.threads.values()].flatMap((t) => t.messages);
    if (!all.some((m) => m.role === 'user' || m.role === 'assistant' || m.role === 'tool')) return undefined;
    const subagents: SubagentThread[] = [];
    for (const [agentId, t] of this.threads) {
      if (agentId === MAIN) continue;
      subagents.push({
        agentId,
        ...(t.agentType ? { agentType: t.agentType } : {}),
        ...(t.description ? { description: t.description } : {}),
        ...(this.calls.has(agentId) ? { parentCallId: agentId } : {}),
        file: this.file,
        messages: t.messages,
      });
    }
    const times = all
      .map((m) => m.timestamp)
      .filter(Boolean)
      .sort();
    const sessionId = this.start?.sessionId || workspace?.id || nameId;
    const prompt = main.find((m) => m.metadata?.kind === 'prompt')?.segments[0]?.text ?? '';
    const title = this.title ?? workspace?.name ?? workspace?.summary ?? firstLine(prompt);
    const cliVersion = this.start?.copilotVersion;
    return {
      source: 'copilot-cli',
      sessionId,
      title: title || `Session ${sessionId.slice(0, 8)}`,
      cwd: this.cwd ?? workspace?.cwd ?? '',
      ...((this.gitBranch ?? workspace?.branch) ? { gitBranch: this.gitBranch ?? workspace?.branch } : {}),
      startedAt: times[0] ?? mtime,
      endedAt: times.at(-1) ?? mtime,
      models: [...this.models].sort(),
      ...(typeof cliVersion === 'string' && cliVersion ? { cliVersion } : {}),
      files,
      messages: main,
      subagents,
      warnings: [],
    };
  }
}

function date(m: NormalizedMessage, time: string, estimated: boolean): void {
  m.timestamp = time;
  const hash = m.id.indexOf('#');
  m.id = `${m.id.slice(0, hash).replace(/:$/, ':')}${time}${m.id.slice(hash)}`;
  if (estimated) m.timestamp_estimated = true;
}

function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .find((l) => l.trim())
      ?.trim() ?? '';
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
