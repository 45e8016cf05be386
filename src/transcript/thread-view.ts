import type { NormalizedMessage, ToolCall } from '../model/message.ts';
import type { SubagentThread } from '../model/session.ts';
import { toolInputView } from './tool-view.ts';
import {
  OUTPUT_PREVIEW_CHARS,
  type ThreadView,
  type ViewItem,
  resultView,
  textOf,
  toolHeadline,
} from './view-items.ts';

/** Where a thread's messages are in the session: main-thread index of the first, real prompts before it. */
export interface ThreadPlace {
  firstIndex: number;
  promptsBefore?: number;
}

/** The items a thread (the main one, or a subagent's) shows, in order. */
export function buildThreadView(
  messages: NormalizedMessage[],
  subagents: SubagentThread[] = [],
  place?: ThreadPlace,
): ViewItem[] {
  const spawned: SpawnedAgents = { byCall: new Map(), nested: new Set() };
  for (const agent of subagents) {
    if (!agent.parentCallId) continue;
    const list = spawned.byCall.get(agent.parentCallId) ?? [];
    list.push(agent);
    spawned.byCall.set(agent.parentCallId, list);
  }
  const thread = new ThreadViewBuilder(messages, subagents, spawned, place);
  for (const m of messages) thread.add(m);
  return thread.finish();
}

/** A session's subagents by the call that spawned them (of the main thread or of a subagent), and those already
 * shown under their call: a subagent's own calls show the subagents they spawned, as the main thread's do. */
interface SpawnedAgents {
  byCall: Map<string, SubagentThread[]>;
  nested: Set<SubagentThread>;
}

/**
 * The items of a thread as they are built. Background events fold into the step before them (or, at the top
 * of a page, the first step after).
 */
class ThreadItems {
  readonly list: ViewItem[] = [];
  private pending: NormalizedMessage[] = [];

  constructor(
    /** Main-thread index of each message (empty in subagent threads). */
    private readonly indexOf: ReadonlyMap<string, number>,
    private readonly placed: boolean,
  ) {}

  /** What every item made from `m` has. */
  base(m: NormalizedMessage) {
    return {
      id: m.id,
      timestamp: m.timestamp,
      estimated: m.timestamp_estimated === true,
      ...(this.placed ? { index: this.indexOf.get(m.id) } : {}),
    };
  }

  last(): ViewItem | undefined {
    return this.list[this.list.length - 1];
  }

  /** Notes that `item` shows `m` too (a result, a streamed line, a folded event…). */
  alsoShows(item: ViewItem, m: NormalizedMessage): void {
    const index = this.indexOf.get(m.id);
    if (index !== undefined && index !== item.index) (item.more ??= []).push(index);
  }

  show(item: ViewItem): void {
    this.list.push(item);
    for (const m of this.pending) this.fold(item, m);
    this.pending = [];
  }

  /** A background event: folded into the last step, or the next one when there is none yet. */
  hide(m: NormalizedMessage): void {
    const last = this.last();
    if (last) this.fold(last, m);
    else this.pending.push(m);
  }

  /** Ends the thread's own steps. */
  finish(): void {
    if (this.pending.length > 0) {
      // A page of background events only (a session that has nothing else).
      const first = this.pending[0]!;
      const types = [...new Set(this.pending.map(backgroundType))];
      this.list.push({ kind: 'hidden', ...this.base(first), count: this.pending.length, types });
    }
  }

  /** Adds an item after the thread's own steps, folding nothing into it. */
  append(item: ViewItem): void {
    this.list.push(item);
  }

  private fold(item: ViewItem, m: NormalizedMessage): void {
    const type = backgroundType(m);
    const bg = (item.background ??= { count: 0, types: [] });
    bg.count += 1;
    if (!bg.types.includes(type)) bg.types.push(type);
    this.alsoShows(item, m);
  }
}

function backgroundType(m: NormalizedMessage): string {
  return String(m.metadata?.subtype ?? m.raw.event_type);
}

/** Turns a thread's messages into items, one message at a time. */
class ThreadViewBuilder {
  private readonly items: ThreadItems;
  /** Tool results by id, and those already shown with their call. */
  private readonly results = new Map<string, NormalizedMessage>();
  private readonly linkedResults = new Set<string>();
  /** Real prompts so far, when known. */
  private prompts: number | undefined;

  /** `subagents`: those shown at the end when no call shows them (none, for a subagent's own thread). */
  constructor(
    private readonly messages: NormalizedMessage[],
    private readonly subagents: SubagentThread[],
    private readonly spawned: SpawnedAgents,
    place: ThreadPlace | undefined,
  ) {
    const indexOf = new Map<string, number>();
    messages.forEach((m, i) => {
      if (m.source_type === 'tool_result') this.results.set(m.id, m);
      if (place) indexOf.set(m.id, place.firstIndex + i);
    });
    this.items = new ThreadItems(indexOf, place !== undefined);
    this.prompts = place?.promptsBefore;
  }

  add(m: NormalizedMessage): void {
    const items = this.items;
    if (m.source_type === 'tool_call' && m.tool_call) return this.addToolCall(m, m.tool_call);
    if (m.source_type === 'tool_result') return this.addToolResult(m);
    switch (m.metadata?.kind) {
      case 'prompt':
        return this.addPrompt(m);
      case 'response':
        return addResponse(items, m);
      case 'compact_boundary':
        return addCompactBoundary(items, m);
      case 'compact_summary':
        return items.show({
          kind: 'notice',
          ...items.base(m),
          tone: 'summary',
          label: 'Summary of the earlier conversation',
          text: textOf(m),
          html: m.segments.find((s) => s.html)?.html,
          collapsed: true,
        });
      case 'command':
        return items.show({ kind: 'command', ...items.base(m), command: textOf(m).trim(), expanded: [], output: [] });
      case 'command_output':
        return addCommandOutput(items, m);
      case 'interrupt':
        return addNotice(items, m, 'interrupt', 'Interrupted', false);
      case 'api_error':
        return addNotice(items, m, 'error', 'API error', false);
      case 'injected':
        return addInjected(items, m);
      default:
        if (m.role === 'system' && m.segments.length > 0 && textOf(m).trim())
          return addNotice(items, m, 'info', String(m.metadata?.subtype ?? 'System'), false);
        return items.hide(m);
    }
  }

  /** Ends the thread: what is left of background events, then the subagents no call of it spawned. */
  finish(): ViewItem[] {
    this.items.finish();
    // Subagents whose spawning call is unknown still belong to the session: shown at the end (or alone, when
    // the session is made only of subagent files).
    // Those no other of them spawned first, so that one spawned by a loose subagent's call is shown under that
    // call whatever the order they are listed in; then the rest (subagents that spawned each other, in a cycle).
    const held = new Set<string>();
    for (const agent of this.subagents)
      for (const m of agent.messages) if (m.source_type === 'tool_call' && m.tool_call) held.add(m.tool_call.call_id);
    const first = this.subagents.filter((a) => !(a.parentCallId && held.has(a.parentCallId)));
    for (const agent of [...first, ...this.subagents]) {
      // Checked one by one: a loose subagent's calls may show another of them.
      if (this.spawned.nested.has(agent)) continue;
      this.spawned.nested.add(agent);
      const at = agent.messages[0]?.timestamp ?? this.items.last()?.timestamp ?? '';
      this.items.append(looseSubagentItem(agent, at, this.spawned));
    }
    return this.items.list;
  }

  /** A tool call, shown with its result and the subagents it spawned. */
  private addToolCall(m: NormalizedMessage, toolCall: ToolCall): void {
    const resultMessage = toolCall.result_id ? this.results.get(toolCall.result_id) : undefined;
    if (resultMessage) this.linkedResults.add(resultMessage.id);
    // Each subagent under one call only (a call id seen twice, or a subagent that would hold itself, shows it once).
    const agents = (this.spawned.byCall.get(toolCall.call_id) ?? []).filter((a) => !this.spawned.nested.has(a));
    agents.forEach((a) => this.spawned.nested.add(a));
    const input = toolCall.arguments ?? '';
    const call =
      input.length > OUTPUT_PREVIEW_CHARS ? { ...toolCall, arguments: input.slice(0, OUTPUT_PREVIEW_CHARS) } : toolCall;
    const item: ViewItem = {
      kind: 'tool',
      ...this.items.base(m),
      call,
      input: toolInputView(input.length > OUTPUT_PREVIEW_CHARS ? call : toolCall),
      inputTruncated: Math.max(0, input.length - OUTPUT_PREVIEW_CHARS),
      headline: toolHeadline(toolCall),
      usage: m.metadata?.usage,
      result: resultMessage ? resultView(resultMessage, toolCall) : undefined,
      subagents: agents.map((agent) => threadView(agent, this.spawned)),
    };
    if (resultMessage) this.items.alsoShows(item, resultMessage);
    this.items.show(item);
  }

  /** A tool result no call of the thread links to: shown on its own. */
  private addToolResult(m: NormalizedMessage): void {
    if (!this.linkedResults.has(m.id) && !isLinkedLater(m, this.messages))
      this.items.show({ kind: 'result', ...this.items.base(m), result: resultView(m) });
  }

  private addPrompt(m: NormalizedMessage): void {
    if (this.prompts !== undefined) this.prompts += 1;
    this.items.show({
      kind: 'prompt',
      ...this.items.base(m),
      ...(this.prompts !== undefined ? { ordinal: this.prompts } : {}),
      text: textOf(m),
      images: m.segments.filter((s) => s.type === 'image'),
      queued: m.segments.some((s) => s.format === 'queued_command'),
    });
  }
}

function isLinkedLater(result: NormalizedMessage, messages: NormalizedMessage[]): boolean {
  return messages.some((m) => m.source_type === 'tool_call' && m.tool_call?.result_id === result.id);
}

function addResponse(items: ThreadItems, m: NormalizedMessage): void {
  if (m.segments.length === 0 && !m.metadata?.usage) return items.hide(m);
  // Streamed lines of one response (thinking, then text…) read as one answer.
  const previous = items.last();
  const responseId = m.metadata?.response_id;
  if (previous?.kind === 'answer' && responseId && previous.responseId === responseId) {
    previous.segments = [...previous.segments, ...m.segments];
    previous.usage ??= m.metadata?.usage;
    items.alsoShows(previous, m);
    return;
  }
  items.show({
    kind: 'answer',
    ...items.base(m),
    segments: m.segments,
    model: m.metadata?.model,
    usage: m.metadata?.usage,
    responseId,
  });
}

function addCompactBoundary(items: ThreadItems, m: NormalizedMessage): void {
  const compact = m.metadata?.compact;
  const detail = [
    compact?.trigger,
    compact?.pre_tokens ? `${compact.pre_tokens.toLocaleString('en')} tokens before` : '',
  ]
    .filter(Boolean)
    .join(', ');
  items.show({ kind: 'divider', ...items.base(m), label: 'Conversation compacted', detail: detail || undefined });
}

function addNotice(
  items: ThreadItems,
  m: NormalizedMessage,
  tone: 'interrupt' | 'error' | 'info',
  label: string,
  collapsed: boolean,
): void {
  items.show({ kind: 'notice', ...items.base(m), tone, label, text: textOf(m), collapsed });
}

/** What a slash command printed goes with the command; anything else is a notice of its own. */
function addCommandOutput(items: ThreadItems, m: NormalizedMessage): void {
  const previous = items.last();
  if (previous?.kind === 'command') {
    previous.output.push(textOf(m));
    items.alsoShows(previous, m);
  } else
    items.show({
      kind: 'notice',
      ...items.base(m),
      tone: 'output',
      label: 'Command output',
      text: textOf(m),
      collapsed: true,
    });
}

/** Text injected into the conversation: a slash command's expansion, or context (runs of it read as one). */
function addInjected(items: ThreadItems, m: NormalizedMessage): void {
  const text = textOf(m).trim();
  if (!text) return items.hide(m);
  const previous = items.last();
  // A slash command's expanded text comes right after it, as injected text.
  if (previous?.kind === 'command' && previous.output.length === 0 && !isCaveat(text)) {
    previous.expanded.push(text);
    items.alsoShows(previous, m);
  } else if (previous?.kind === 'context') {
    previous.parts.push({ label: contextLabel(m, text), text });
    items.alsoShows(previous, m);
  } else items.show({ kind: 'context', ...items.base(m), parts: [{ label: contextLabel(m, text), text }] });
}

function isCaveat(text: string): boolean {
  return /^<local-command-caveat>|^Caveat: /.test(text);
}

/** A short name for one piece of injected context. */
function contextLabel(m: NormalizedMessage, text: string): string {
  const tag = /^<([a-z_-]+)[\s>]/i.exec(text)?.[1];
  if (tag === 'system-reminder') return 'System reminder';
  if (tag === 'local-command-caveat' || text.startsWith('Caveat: ')) return 'Caveat';
  if (tag === 'environment_context') return 'Environment';
  if (tag === 'user_instructions' || /^# AGENTS\.md/.test(text)) return 'AGENTS.md';
  if (tag === 'task-notification') return 'Task notification';
  if (tag) return tag.replace(/[_-]/g, ' ');
  const subtype = m.metadata?.subtype;
  return typeof subtype === 'string' && subtype ? subtype.replace(/_/g, ' ') : 'other text';
}

/** A subagent's thread, shown under the call that spawned it. */
function threadView(agent: SubagentThread, spawned: SpawnedAgents): ThreadView {
  const label =
    agent.agentType === 'compaction'
      ? 'Compaction request'
      : `Subagent${agent.agentType ? ` · ${agent.agentType}` : ''}`;
  const thread = new ThreadViewBuilder(agent.messages, [], spawned, undefined);
  for (const m of agent.messages) thread.add(m);
  return { agentId: agent.agentId, label, description: agent.description, items: thread.finish() };
}

/** A subagent whose spawning call is unknown, shown as a call of its own. */
function looseSubagentItem(agent: SubagentThread, at: string, spawned: SpawnedAgents): ViewItem {
  const call: ToolCall = {
    call_id: '',
    name: agent.agentType === 'compaction' ? 'Compaction' : 'Subagent',
    status: 'completed',
  };
  return {
    kind: 'tool',
    id: `${agent.agentId}-thread`,
    timestamp: at,
    estimated: false,
    call,
    input: { kind: 'task', agentType: agent.agentType, description: agent.description, prompt: '' },
    headline: agent.description ?? agent.agentId,
    subagents: [threadView(agent, spawned)],
  };
}
