import type { MessagePatch } from './body.ts';
import { MAIN_THREAD } from './body.ts';
import type { NormalizedMessage, TokenUsage, ToolStatus } from './message.ts';
import { PageBreaker } from './paging.ts';
import { editedFiles } from './files-edited.ts';
import type { ActivitySlot, ConversationPattern, PromptRef, SessionStats } from './session.ts';

const PROMPT_PREVIEW = 500;

export function emptyTokens(): TokenUsage {
  return { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 };
}

export function addTokens(into: TokenUsage, add: TokenUsage, sign = 1): void {
  into.input += sign * add.input;
  into.output += sign * add.output;
  into.cacheRead += sign * add.cacheRead;
  into.cacheCreation += sign * add.cacheCreation;
}

/** `addTokens` with the optional part (1-hour cache writes), for the per-model records cost is
 * computed from. */
export function addTokenDetail(into: TokenUsage, add: TokenUsage, sign = 1): void {
  addTokens(into, add, sign);
  // Optional parts stay absent while zero, so summaries without them keep their old shape.
  if (add.cacheCreation1h) into.cacheCreation1h = (into.cacheCreation1h ?? 0) + sign * add.cacheCreation1h;
  if (into.cacheCreation1h === 0) delete into.cacheCreation1h;
}

/** Requests whose prompt (input, cache reads and writes) exceeded this many tokens are priced at a model's
 * long-context tier where it has one. */
export const LONG_CONTEXT_TOKENS = 200_000;
export const LONG_CONTEXT_SUFFIX = ' (>200k)';

/** The `tokensByModel` key of one request's usage. */
export function modelTokenKey(model: string | undefined, usage: TokenUsage): string {
  const prompt = usage.input + usage.cacheRead + usage.cacheCreation;
  return `${model || 'unknown'}${prompt > LONG_CONTEXT_TOKENS ? LONG_CONTEXT_SUFFIX : ''}`;
}

/** Adds (or with `sign` -1 takes away) one request's usage under its model. */
export function addModelTokens(
  into: Record<string, TokenUsage>,
  model: string | undefined,
  usage: TokenUsage,
  sign = 1,
): void {
  const key = modelTokenKey(model, usage);
  const t = (into[key] ??= emptyTokens());
  addTokenDetail(t, usage, sign);
  if (t.input === 0 && t.output === 0 && t.cacheRead === 0 && t.cacheCreation === 0) delete into[key];
}

/** Sums a per-model token record into another. */
export function mergeModelTokens(into: Record<string, TokenUsage>, add: Record<string, TokenUsage>): void {
  for (const [key, usage] of Object.entries(add)) addTokenDetail((into[key] ??= emptyTokens()), usage);
}

/** The UTC start of the 15-minute slot holding `iso`, as `YYYY-MM-DDTHH:MM`. */
export function slotOf(iso: string): string {
  const minutes = Number(iso.slice(14, 16));
  return `${iso.slice(0, 14)}${String(minutes - (minutes % 15)).padStart(2, '0')}`;
}

/** Per response id: it became an entry (bit 1), and it asked for tools (bit 2). */
const ENTRY = 1;
const TOOLS = 2;

interface ThreadState {
  messages: number;
  /** Non-meta messages. */
  shown: number;
  responses: Map<string, number>;
  entries: number;
  toolRounds: number;
  /** The last response that became an entry: its tool calls, and the index of its last message. */
  lastEntry?: { id: string; toolCalls: number; lastIndex: number };
  lastPromptIndex: number;
  prompts: number;
  toolUses: number;
  toolUsesByName: Record<string, number>;
  toolErrorsByName: Record<string, number>;
  /** Absent in states saved before it existed. */
  toolRefusalsByName?: Record<string, number>;
  tokens: TokenUsage;
  /** Absent in states saved before tokens were kept per model. */
  tokensByModel?: Record<string, TokenUsage>;
  /** The model of the last response with usage, for patches that do not name theirs. */
  usageModel?: string;
  slots: Record<string, ActivitySlot>;
  firstAt?: string;
  lastAt?: string;
  models: string[];
  /** Sum of the gaps under ACTIVE_GAP_MS between this thread's timed messages (absent in older states). */
  activeMs?: number;
  /** What the assistant itself recorded: dollars (OpenCode, Cline `costUsd`), premium requests (Copilot CLI). */
  recordedUsd?: number;
  premiumRequests?: number;
  previousAt?: string;
}

/** Gaps between messages shorter than this count as active time; longer ones as the person away. */
export const ACTIVE_GAP_MS = 5 * 60_000;

export interface AccumulatorState {
  threads: Record<string, ThreadState>;
  prompts: PromptRef[];
  pages: ReturnType<PageBreaker['toJSON']>;
}

export interface SessionTotals {
  stats: SessionStats;
  prompts: PromptRef[];
  pageStarts: number[];
  /** Real prompts before each page start (undefined when a resumed older state did not count them). */
  pagePrompts?: number[];
  /** Active time of the main thread: the sum of gaps under five minutes between its messages. */
  activeMs: number;
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
    responses: new Map(),
    entries: 0,
    toolRounds: 0,
    lastPromptIndex: -1,
    prompts: 0,
    toolUses: 0,
    toolUsesByName: {},
    toolErrorsByName: {},
    toolRefusalsByName: {},
    tokens: emptyTokens(),
    tokensByModel: {},
    slots: {},
    models: [],
  };
}

function subtractTokens(from: TokenUsage, sub: TokenUsage): void {
  addTokens(from, sub, -1);
}

function count(record: Record<string, number>, key: string, by: number): void {
  const n = (record[key] ?? 0) + by;
  if (n === 0) delete record[key];
  else record[key] = n;
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
 * streamed to disk is summarized without being held in memory. Its state (saved with util/state-file.ts) lets a collect that
 * resumes a grown file carry on from where the last one stopped.
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
    if (m.timestamp && !m.timestamp_estimated) {
      if (t.previousAt) {
        const gap = Date.parse(m.timestamp) - Date.parse(t.previousAt);
        if (gap > 0 && gap < ACTIVE_GAP_MS) t.activeMs = (t.activeMs ?? 0) + gap;
      }
      if (!t.previousAt || m.timestamp > t.previousAt) t.previousAt = m.timestamp;
    }
    if (m.timestamp) {
      if (!t.firstAt || m.timestamp < t.firstAt) t.firstAt = m.timestamp;
      if (!t.lastAt || m.timestamp > t.lastAt) t.lastAt = m.timestamp;
    }
    const model = m.metadata?.model;
    if (typeof model === 'string' && model !== '<synthetic>' && !t.models.includes(model)) t.models.push(model);

    const responseId = m.metadata?.response_id;
    if (responseId) {
      let flags = t.responses.get(responseId) ?? 0;
      if (kind !== 'api_error' && (m.source_type === 'message' || m.source_type === 'tool_call')) {
        if (!(flags & ENTRY)) {
          flags |= ENTRY;
          t.entries += 1;
          this.slot(t, m.timestamp).entries += 1;
          t.lastEntry = { id: responseId, toolCalls: 0, lastIndex: index };
        }
        if (m.source_type === 'tool_call') {
          if (!(flags & TOOLS)) t.toolRounds += 1;
          flags |= TOOLS;
          if (t.lastEntry?.id === responseId) t.lastEntry.toolCalls += 1;
        }
      }
      t.responses.set(responseId, flags);
      if (t.lastEntry?.id === responseId) t.lastEntry.lastIndex = index;
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
    if (m.metadata?.usage) {
      const usage = m.metadata.usage;
      const usageModel = typeof model === 'string' ? model : undefined;
      const slot = this.slot(t, m.timestamp);
      addTokens(t.tokens, usage);
      addTokens(slot.tokens, usage);
      if (t.tokensByModel) addModelTokens(t.tokensByModel, usageModel, usage);
      addModelTokens((slot.tokensByModel ??= {}), usageModel, usage);
      if (usageModel) t.usageModel = usageModel;
    }
    const recordedUsd = m.metadata?.costUsd;
    if (typeof recordedUsd === 'number' && Number.isFinite(recordedUsd)) {
      t.recordedUsd = (t.recordedUsd ?? 0) + recordedUsd;
    }
    const premium = m.metadata?.premiumRequests;
    if (typeof premium === 'number' && Number.isFinite(premium)) t.premiumRequests = (t.premiumRequests ?? 0) + premium;
    const call = m.tool_call;
    if (m.source_type === 'tool_call' && call) {
      t.toolUses += 1;
      count(t.toolUsesByName, call.name, 1);
      const at = this.slot(t, m.timestamp);
      at.toolUses += 1;
      count(at.toolUsesByName, call.name, 1);
      if (call.status === 'error') count(t.toolErrorsByName, call.name, 1);
      if (call.status === 'rejected') count((t.toolRefusalsByName ??= {}), call.name, 1);
      for (const file of editedFiles(call)) count((at.filesEdited ??= {}), file, 1);
    }
    if (isMain) this.pages.add(m, index);
  }

  patch(thread: string, patch: MessagePatch): void {
    const t = this.state.threads[thread];
    if (!t) return;
    if (patch.status !== undefined && patch.tool !== undefined && patch.status !== patch.was?.status) {
      if (patch.was?.status === 'error') count(t.toolErrorsByName, patch.tool, -1);
      if (patch.status === 'error') count(t.toolErrorsByName, patch.tool, 1);
      if (patch.was?.status === 'rejected') count((t.toolRefusalsByName ??= {}), patch.tool, -1);
      if (patch.status === 'rejected') count((t.toolRefusalsByName ??= {}), patch.tool, 1);
    }
    if (patch.usage && patch.at !== undefined) {
      const slot = this.slot(t, patch.at);
      const model = patch.model ?? t.usageModel;
      if (patch.was?.usage) {
        subtractTokens(t.tokens, patch.was.usage);
        subtractTokens(slot.tokens, patch.was.usage);
        if (t.tokensByModel) addModelTokens(t.tokensByModel, model, patch.was.usage, -1);
        addModelTokens((slot.tokensByModel ??= {}), model, patch.was.usage, -1);
      }
      addTokens(t.tokens, patch.usage);
      addTokens(slot.tokens, patch.usage);
      if (t.tokensByModel) addModelTokens(t.tokensByModel, model, patch.usage);
      addModelTokens((slot.tokensByModel ??= {}), model, patch.usage);
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
      toolRefusals: 0,
      toolRefusalsByName: {},
      mainEntries: main.entries,
      subagentEntries: 0,
      prompts: 0,
      messages: 0,
      pattern: pattern(main),
      tokens: emptyTokens(),
      tokensByModel: {},
      activity: {},
    };
    /** A thread restored from a state saved before tokens were kept per model: its split is not known. */
    let byModelKnown = true;
    let startedAt = '';
    let endedAt = '';
    const models = new Set<string>();
    for (const key of [MAIN_THREAD, ...subagentThreads]) {
      const t = this.state.threads[key];
      if (!t) continue;
      stats.messages += t.shown;
      stats.prompts += t.prompts;
      stats.entries += t.entries;
      if (key !== MAIN_THREAD) stats.subagentEntries! += t.entries;
      stats.toolRounds += t.toolRounds;
      stats.toolUses += t.toolUses;
      addTokens(stats.tokens, t.tokens);
      if (t.tokensByModel) mergeModelTokens(stats.tokensByModel!, t.tokensByModel);
      else if (t.tokens.input + t.tokens.output + t.tokens.cacheRead + t.tokens.cacheCreation > 0) {
        byModelKnown = false;
      }
      if (t.recordedUsd !== undefined) stats.recordedUsd = (stats.recordedUsd ?? 0) + t.recordedUsd;
      if (t.premiumRequests !== undefined) stats.premiumRequests = (stats.premiumRequests ?? 0) + t.premiumRequests;
      for (const [name, n] of Object.entries(t.toolUsesByName)) count(stats.toolUsesByName, name, n);
      for (const [name, n] of Object.entries(t.toolErrorsByName)) {
        stats.toolErrors += n;
        count(stats.toolErrorsByName, name, n);
      }
      for (const [name, n] of Object.entries(t.toolRefusalsByName ?? {})) {
        stats.toolRefusals! += n;
        count(stats.toolRefusalsByName!, name, n);
      }
      for (const [key, s] of Object.entries(t.slots)) {
        const into = (stats.activity[key] ??= emptySlot());
        into.entries += s.entries;
        into.prompts += s.prompts;
        into.toolUses += s.toolUses;
        addTokens(into.tokens, s.tokens);
        if (s.tokensByModel) mergeModelTokens((into.tokensByModel ??= {}), s.tokensByModel);
        for (const [name, n] of Object.entries(s.toolUsesByName)) count(into.toolUsesByName, name, n);
        for (const [file, n] of Object.entries(s.filesEdited ?? {})) count((into.filesEdited ??= {}), file, n);
      }
      if (t.firstAt && (!startedAt || t.firstAt < startedAt)) startedAt = t.firstAt;
      if (t.lastAt && t.lastAt > endedAt) endedAt = t.lastAt;
      for (const m of t.models) models.add(m);
    }
    if (!byModelKnown) {
      delete stats.tokensByModel;
      for (const slot of Object.values(stats.activity)) delete slot.tokensByModel;
    }
    stats.activity = sortedKeys(stats.activity);
    return {
      stats,
      prompts: [...this.state.prompts],
      pageStarts: this.pages.starts(),
      pagePrompts: this.pages.promptsBefore(),
      activeMs: main.activeMs ?? 0,
      startedAt,
      endedAt,
      models: [...models].sort(),
    };
  }
}

/** `incomplete` when no response came, the last one asked for tools, or a prompt came after it; else by tool
 * rounds. */
function pattern(t: ThreadState): ConversationPattern {
  const last = t.lastEntry;
  if (!last || last.toolCalls > 0 || t.lastPromptIndex > last.lastIndex) return 'incomplete';
  return t.toolRounds === 0 ? 'simple' : t.toolRounds === 1 ? 'single_tool' : 'multi_tool';
}

function sortedKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
