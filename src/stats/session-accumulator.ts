import type { MessagePatch } from '../model/body.ts';
import { MAIN_THREAD } from '../model/body.ts';
import type { NormalizedMessage, TokenUsage, ToolStatus } from '../model/message.ts';
import { PageBreaker } from '../model/paging.ts';
import type { ActivitySlot, ConversationPattern, PromptRef, SessionStats } from '../model/session.ts';

const PROMPT_PREVIEW = 500;

export function emptyTokens(): TokenUsage {
  return { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
}

export function addTokens(into: TokenUsage, add: TokenUsage): void {
  into.input += add.input;
  into.output += add.output;
  into.cacheRead += add.cacheRead;
  into.cacheCreation += add.cacheCreation;
}

/** The UTC start of the 15-minute slot holding `iso`, as `YYYY-MM-DDTHH:MM`. */
export function slotOf(iso: string): string {
  const minutes = Number(iso.slice(14, 16));
  return `${iso.slice(0, 14)}${String(minutes - (minutes % 15)).padStart(2, '0')}`;
}

/** A model response's messages: an entry once one of them is prose or a tool call (not an API error). */
interface ResponseState {
  /** Timestamp of its first prose or call message: the entry's time (absent: not an entry). */
  entryAt?: string;
  /** Creation order among entries. */
  entryOrder?: number;
  toolCalls: number;
  /** Index of its last message in the thread. */
  lastIndex: number;
}

interface ThreadState {
  messages: number;
  /** Non-meta messages. */
  shown: number;
  responses: Record<string, ResponseState>;
  entries: number;
  lastEntry?: string;
  lastPromptIndex: number;
  /** Every call message by id, with its status (a later result may change it). */
  calls: Record<string, { name: string; status: ToolStatus }>;
  /** Every message that carries token usage, by id. */
  usages: Record<string, { at: string; usage: TokenUsage }>;
  prompts: number;
  /** Prompts and tool uses by slot (entries and tokens are added when the result is made). */
  slots: Record<string, ActivitySlot>;
  toolUses: number;
  toolUsesByName: Record<string, number>;
  firstAt?: string;
  lastAt?: string;
  models: string[];
}

export interface AccumulatorState {
  threads: Record<string, ThreadState>;
  prompts: PromptRef[];
  pages: ReturnType<PageBreaker['toJSON']>;
}

export interface SessionTotals {
  stats: SessionStats;
  prompts: PromptRef[];
  pageStarts: number[];
  startedAt: string;
  endedAt: string;
  models: string[];
}

function emptySlot(): ActivitySlot {
  return { entries: 0, toolUses: 0, toolUsesByName: {}, prompts: 0, tokens: emptyTokens() };
}

function newThread(): ThreadState {
  return {
    messages: 0,
    shown: 0,
    responses: {},
    entries: 0,
    lastPromptIndex: -1,
    calls: {},
    usages: {},
    prompts: 0,
    slots: {},
    toolUses: 0,
    toolUsesByName: {},
    models: [],
  };
}

function promptText(m: NormalizedMessage): string {
  return m.segments
    .filter((s) => s.type === 'text')
    .map((s) => s.text ?? '')
    .join('\n')
    .trim();
}

/**
 * A session's statistics, page breaks and prompt list, built one message (or patch) at a time, so a session
 * streamed to disk is summarized without being held in memory. Its state is plain JSON: a collect that
 * resumes a grown file carries on from where the last one stopped.
 *
 * Entries, tool uses and tokens include subagent threads (it is the session's work); the pattern, the
 * prompts and the pages describe the main thread (seed 000's definitions).
 */
export class SessionAccumulator {
  private readonly state: AccumulatorState;
  private readonly pages: PageBreaker;

  constructor(state?: AccumulatorState) {
    this.state = state ?? { threads: {}, prompts: [], pages: new PageBreaker().toJSON() };
    this.pages = new PageBreaker(this.state.pages);
  }

  toJSON(): AccumulatorState {
    return { ...this.state, pages: this.pages.toJSON() };
  }

  message(thread: string, m: NormalizedMessage): void {
    const t = (this.state.threads[thread] ??= newThread());
    const index = t.messages++;
    const isMain = thread === MAIN_THREAD;
    const kind = m.metadata?.kind;
    if (m.role !== 'meta') t.shown += 1;
    if (m.timestamp) {
      if (!t.firstAt || m.timestamp < t.firstAt) t.firstAt = m.timestamp;
      if (!t.lastAt || m.timestamp > t.lastAt) t.lastAt = m.timestamp;
    }
    const model = m.metadata?.model;
    if (typeof model === 'string' && model !== '<synthetic>' && !t.models.includes(model)) t.models.push(model);

    const responseId = m.metadata?.response_id;
    if (responseId) {
      const r = (t.responses[responseId] ??= { toolCalls: 0, lastIndex: index });
      r.lastIndex = index;
      if (kind !== 'api_error' && (m.source_type === 'message' || m.source_type === 'tool_call')) {
        if (r.entryAt === undefined) {
          r.entryAt = m.timestamp;
          r.entryOrder = t.entries++;
          t.lastEntry = responseId;
        }
        if (m.source_type === 'tool_call') r.toolCalls += 1;
      }
    }
    if (kind === 'prompt' && isMain) {
      t.prompts += 1;
      t.lastPromptIndex = index;
      this.slot(t, m.timestamp).prompts += 1;
      const text = promptText(m);
      this.state.prompts.push({
        timestamp: m.timestamp,
        text: text.length > PROMPT_PREVIEW ? `${text.slice(0, PROMPT_PREVIEW)}…` : text,
      });
    }
    // Patches name a message by id; a repeated id (not one a patch can name) is kept under its own key.
    if (m.metadata?.usage) t.usages[uniqueKey(t.usages, m.id, index)] = { at: m.timestamp, usage: m.metadata.usage };
    const call = m.tool_call;
    if (m.source_type === 'tool_call' && call) {
      t.calls[uniqueKey(t.calls, m.id, index)] = { name: call.name, status: call.status };
      t.toolUses += 1;
      t.toolUsesByName[call.name] = (t.toolUsesByName[call.name] ?? 0) + 1;
      const at = this.slot(t, m.timestamp);
      at.toolUses += 1;
      at.toolUsesByName[call.name] = (at.toolUsesByName[call.name] ?? 0) + 1;
    }
    if (isMain) this.pages.add(m, index);
  }

  patch(thread: string, patch: MessagePatch): void {
    const t = this.state.threads[thread];
    if (!t) return;
    const call = t.calls[patch.id];
    if (call && patch.status !== undefined) call.status = patch.status;
    if (patch.usage) {
      const seen = t.usages[patch.id];
      if (seen) seen.usage = patch.usage;
    }
  }

  private slot(t: ThreadState, iso: string): ActivitySlot {
    return (t.slots[iso ? slotOf(iso) : 'unknown'] ??= emptySlot());
  }

  /** The totals over the main thread and these subagent threads (a thread not named here is left out). */
  result(subagentThreads: readonly string[]): SessionTotals {
    const main = this.state.threads[MAIN_THREAD] ?? newThread();
    const stats: SessionStats = {
      entries: 0,
      toolRounds: 0,
      toolUses: 0,
      toolUsesByName: {},
      toolErrors: 0,
      toolErrorsByName: {},
      prompts: 0,
      messages: 0,
      pattern: pattern(main),
      tokens: emptyTokens(),
      activity: {},
    };
    const slot = (iso: string) => (stats.activity[iso ? slotOf(iso) : 'unknown'] ??= emptySlot());
    let startedAt = '';
    let endedAt = '';
    const models = new Set<string>();
    for (const key of [MAIN_THREAD, ...subagentThreads]) {
      const t = this.state.threads[key];
      if (!t) continue;
      stats.messages += t.shown;
      stats.prompts += t.prompts;
      stats.toolUses += t.toolUses;
      for (const [name, n] of Object.entries(t.toolUsesByName)) {
        stats.toolUsesByName[name] = (stats.toolUsesByName[name] ?? 0) + n;
      }
      for (const [key, s] of Object.entries(t.slots)) {
        const into = (stats.activity[key] ??= emptySlot());
        into.prompts += s.prompts;
        into.toolUses += s.toolUses;
        for (const [name, n] of Object.entries(s.toolUsesByName)) {
          into.toolUsesByName[name] = (into.toolUsesByName[name] ?? 0) + n;
        }
      }
      for (const r of Object.values(t.responses)) {
        if (r.entryAt === undefined) continue;
        stats.entries += 1;
        if (r.toolCalls > 0) stats.toolRounds += 1;
        slot(r.entryAt).entries += 1;
      }
      for (const { at, usage } of Object.values(t.usages)) {
        addTokens(stats.tokens, usage);
        addTokens(slot(at).tokens, usage);
      }
      for (const call of Object.values(t.calls)) {
        if (call.status !== 'error') continue;
        stats.toolErrors += 1;
        stats.toolErrorsByName[call.name] = (stats.toolErrorsByName[call.name] ?? 0) + 1;
      }
      if (t.firstAt && (!startedAt || t.firstAt < startedAt)) startedAt = t.firstAt;
      if (t.lastAt && t.lastAt > endedAt) endedAt = t.lastAt;
      for (const m of t.models) models.add(m);
    }
    stats.activity = sortedKeys(stats.activity);
    return {
      stats,
      prompts: [...this.state.prompts],
      pageStarts: this.pages.starts(),
      startedAt,
      endedAt,
      models: [...models].sort(),
    };
  }
}

/** `incomplete` when no response came, the last one asked for tools, or a prompt came after it; else by tool
 * rounds. */
function pattern(t: ThreadState): ConversationPattern {
  if (!t.lastEntry) return 'incomplete';
  const last = t.responses[t.lastEntry]!;
  if (last.toolCalls > 0 || t.lastPromptIndex > last.lastIndex) return 'incomplete';
  let rounds = 0;
  for (const r of Object.values(t.responses)) if (r.entryAt !== undefined && r.toolCalls > 0) rounds += 1;
  return rounds === 0 ? 'simple' : rounds === 1 ? 'single_tool' : 'multi_tool';
}

function uniqueKey(record: Record<string, unknown>, id: string, index: number): string {
  return id in record ? `${id}\u0000${index}` : id;
}

function sortedKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
