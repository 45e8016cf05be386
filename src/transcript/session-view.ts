import type { MessageSegment, NormalizedMessage, TokenUsage, ToolCall } from '../model/message.ts';
import type { Session, SubagentThread } from '../model/session.ts';
import { type ToolInputView, type ToolOutputView, toolInputView, toolOutputView } from './tool-view.ts';

/** What a session page shows, in order: built from the normalized messages, source-agnostic. */

/** What every item has: where it is, and the background events folded into it. */
interface ItemBase {
  id: string;
  timestamp: string;
  estimated: boolean;
  /** Main-thread index of the item's first message (absent in subagent threads). */
  index?: number;
  /** Main-thread indexes of the other messages shown in this item (a result, streamed lines, folded events). */
  more?: number[];
  /** Background events (snapshots, hooks, progress…) that came with this step. */
  background?: { count: number; types: string[] };
}

export type ViewItem = ItemBase &
  (
    | {
        kind: 'prompt';
        /** 1-based number of this real prompt in the session (absent when unknown, as in subagent threads). */
        ordinal?: number;
        text: string;
        images: MessageSegment[];
        queued: boolean;
      }
    | {
        kind: 'answer';
        segments: MessageSegment[];
        model?: string;
        usage?: TokenUsage;
        responseId?: string;
      }
    | {
        kind: 'tool';
        call: ToolCall;
        input: ToolInputView;
        /** Characters of the input cut for the page (the data keeps everything). */
        inputTruncated?: number;
        headline: string;
        usage?: TokenUsage;
        result?: ResultView;
        subagents: ThreadView[];
      }
    | { kind: 'result'; result: ResultView }
    | { kind: 'divider'; label: string; detail?: string }
    | {
        kind: 'notice';
        tone: 'command' | 'output' | 'interrupt' | 'error' | 'info' | 'summary' | 'injected';
        label: string;
        text: string;
        html?: string;
        collapsed: boolean;
      }
    | {
        kind: 'command';
        /** `/init`, `/model opus`… */
        command: string;
        /** The text the command sent to the model (collapsed), and what it printed. */
        expanded: string[];
        output: string[];
      }
    | { kind: 'context'; parts: { label: string; text: string }[] }
    | { kind: 'hidden'; count: number; types: string[] }
  );

export interface ResultView {
  id: string;
  status: ToolCall['status'];
  name: string;
  output: string;
  /** Characters cut from `output` for the page (the data keeps everything). */
  truncated: number;
  images: MessageSegment[];
  view: ToolOutputView;
}

export interface ThreadView {
  agentId: string;
  label: string;
  description?: string;
  items: ViewItem[];
}

export const OUTPUT_PREVIEW_CHARS = 20_000;
export const INLINE_IMAGE_MAX_BYTES = 1_000_000;

const HEADLINE_KEYS = [
  'file_path',
  'path',
  'notebook_path',
  'command',
  'cmd',
  'pattern',
  'url',
  'query',
  'description',
  'prompt',
];

export function toolHeadline(call: ToolCall): string {
  const args = call.arguments_json;
  if (args && typeof args === 'object' && !Array.isArray(args)) {
    for (const key of HEADLINE_KEYS) {
      const value = (args as Record<string, unknown>)[key];
      const text = Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join(' ') : value;
      if (typeof text === 'string' && text.trim()) return shorten(text.replace(/\s+/g, ' ').trim(), 160);
    }
    const operations = (args as { operations?: unknown }).operations;
    if (Array.isArray(operations) && operations.length > 0) {
      const first = toolHeadline({ ...call, arguments_json: operations[0] });
      return operations.length > 1 ? `${first} (+${operations.length - 1})` : first;
    }
  }
  return '';
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function textOf(m: NormalizedMessage): string {
  return m.segments
    .filter((s) => s.type === 'text')
    .map((s) => s.text ?? '')
    .join('\n\n');
}

function resultView(m: NormalizedMessage, call?: ToolCall): ResultView {
  const output = m.tool_call?.output ?? '';
  const cut = output.length > OUTPUT_PREVIEW_CHARS ? output.length - OUTPUT_PREVIEW_CHARS : 0;
  const shown = cut ? output.slice(0, OUTPUT_PREVIEW_CHARS) : output;
  return {
    id: m.id,
    status: m.tool_call?.status ?? 'completed',
    name: m.tool_call?.name ?? 'unknown',
    output: shown,
    truncated: cut,
    images: m.segments.filter((s) => s.type === 'image'),
    view: toolOutputView(call, shown, m.tool_call?.output_json, m.metadata),
  };
}

/** Where a thread's messages are in the session: main-thread index of the first, real prompts before it. */
export interface ThreadPlace {
  firstIndex: number;
  promptsBefore?: number;
}

export function buildThreadView(
  messages: NormalizedMessage[],
  subagents: SubagentThread[] = [],
  place?: ThreadPlace,
): ViewItem[] {
  const results = new Map<string, NormalizedMessage>();
  const indexOf = new Map<string, number>();
  messages.forEach((m, i) => {
    if (m.source_type === 'tool_result') results.set(m.id, m);
    if (place) indexOf.set(m.id, place.firstIndex + i);
  });
  const linkedResults = new Set<string>();
  const subagentsByCall = new Map<string, SubagentThread[]>();
  for (const agent of subagents) {
    if (!agent.parentCallId) continue;
    const list = subagentsByCall.get(agent.parentCallId) ?? [];
    list.push(agent);
    subagentsByCall.set(agent.parentCallId, list);
  }
  const nestedAgents = new Set<SubagentThread>();
  let prompts = place?.promptsBefore;

  const items: ViewItem[] = [];
  const base = (m: NormalizedMessage) => ({
    id: m.id,
    timestamp: m.timestamp,
    estimated: m.timestamp_estimated === true,
    ...(place ? { index: indexOf.get(m.id) } : {}),
  });
  const alsoShows = (item: ViewItem, m: NormalizedMessage) => {
    const index = indexOf.get(m.id);
    if (index !== undefined && index !== item.index) (item.more ??= []).push(index);
  };
  // Background events fold into the step before them (or, at the top of a page, the first step after).
  let pending: NormalizedMessage[] = [];
  const fold = (item: ViewItem, m: NormalizedMessage) => {
    const type = String(m.metadata?.subtype ?? m.raw.event_type);
    const bg = (item.background ??= { count: 0, types: [] });
    bg.count += 1;
    if (!bg.types.includes(type)) bg.types.push(type);
    alsoShows(item, m);
  };
  const hide = (m: NormalizedMessage) => {
    const last = items[items.length - 1];
    if (last) fold(last, m);
    else pending.push(m);
  };
  const show = (item: ViewItem) => {
    items.push(item);
    for (const m of pending) fold(item, m);
    pending = [];
  };
  const last = () => items[items.length - 1];

  for (const m of messages) {
    const kind = m.metadata?.kind;
    if (m.source_type === 'tool_call' && m.tool_call) {
      const resultMessage = m.tool_call.result_id ? results.get(m.tool_call.result_id) : undefined;
      if (resultMessage) linkedResults.add(resultMessage.id);
      const agents = subagentsByCall.get(m.tool_call.call_id) ?? [];
      agents.forEach((a) => nestedAgents.add(a));
      const input = m.tool_call.arguments ?? '';
      const call =
        input.length > OUTPUT_PREVIEW_CHARS
          ? { ...m.tool_call, arguments: input.slice(0, OUTPUT_PREVIEW_CHARS) }
          : m.tool_call;
      const item: ViewItem = {
        kind: 'tool',
        ...base(m),
        call,
        input: toolInputView(input.length > OUTPUT_PREVIEW_CHARS ? call : m.tool_call),
        inputTruncated: Math.max(0, input.length - OUTPUT_PREVIEW_CHARS),
        headline: toolHeadline(m.tool_call),
        usage: m.metadata?.usage,
        result: resultMessage ? resultView(resultMessage, m.tool_call) : undefined,
        subagents: agents.map(threadView),
      };
      if (resultMessage) alsoShows(item, resultMessage);
      show(item);
      continue;
    }
    if (m.source_type === 'tool_result') {
      if (!linkedResults.has(m.id) && !isLinkedLater(m, messages))
        show({ kind: 'result', ...base(m), result: resultView(m) });
      continue;
    }
    switch (kind) {
      case 'prompt':
        if (prompts !== undefined) prompts += 1;
        show({
          kind: 'prompt',
          ...base(m),
          ...(prompts !== undefined ? { ordinal: prompts } : {}),
          text: textOf(m),
          images: m.segments.filter((s) => s.type === 'image'),
          queued: m.segments.some((s) => s.format === 'queued_command'),
        });
        break;
      case 'response': {
        if (m.segments.length === 0 && !m.metadata?.usage) {
          hide(m);
          break;
        }
        // Streamed lines of one response (thinking, then text…) read as one answer.
        const previous = last();
        const responseId = m.metadata?.response_id;
        if (previous?.kind === 'answer' && responseId && previous.responseId === responseId) {
          previous.segments = [...previous.segments, ...m.segments];
          previous.usage ??= m.metadata?.usage;
          alsoShows(previous, m);
          break;
        }
        show({
          kind: 'answer',
          ...base(m),
          segments: m.segments,
          model: m.metadata?.model,
          usage: m.metadata?.usage,
          responseId,
        });
        break;
      }
      case 'compact_boundary': {
        const compact = m.metadata?.compact;
        const detail = [
          compact?.trigger,
          compact?.pre_tokens ? `${compact.pre_tokens.toLocaleString('en')} tokens before` : '',
        ]
          .filter(Boolean)
          .join(', ');
        show({ kind: 'divider', ...base(m), label: 'Conversation compacted', detail: detail || undefined });
        break;
      }
      case 'compact_summary':
        show({
          kind: 'notice',
          ...base(m),
          tone: 'summary',
          label: 'Summary of the earlier conversation',
          text: textOf(m),
          html: m.segments.find((s) => s.html)?.html,
          collapsed: true,
        });
        break;
      case 'command':
        show({ kind: 'command', ...base(m), command: textOf(m).trim(), expanded: [], output: [] });
        break;
      case 'command_output': {
        const previous = last();
        if (previous?.kind === 'command') {
          previous.output.push(textOf(m));
          alsoShows(previous, m);
        } else
          show({
            kind: 'notice',
            ...base(m),
            tone: 'output',
            label: 'Command output',
            text: textOf(m),
            collapsed: true,
          });
        break;
      }
      case 'interrupt':
        show({
          kind: 'notice',
          ...base(m),
          tone: 'interrupt',
          label: 'Interrupted',
          text: textOf(m),
          collapsed: false,
        });
        break;
      case 'api_error':
        show({ kind: 'notice', ...base(m), tone: 'error', label: 'API error', text: textOf(m), collapsed: false });
        break;
      case 'injected': {
        const text = textOf(m).trim();
        if (!text) {
          hide(m);
          break;
        }
        const previous = last();
        // A slash command's expanded text comes right after it, as injected text.
        if (previous?.kind === 'command' && previous.output.length === 0 && !isCaveat(text)) {
          previous.expanded.push(text);
          alsoShows(previous, m);
        } else if (previous?.kind === 'context') {
          previous.parts.push({ label: contextLabel(m, text), text });
          alsoShows(previous, m);
        } else show({ kind: 'context', ...base(m), parts: [{ label: contextLabel(m, text), text }] });
        break;
      }
      default:
        if (m.role === 'system' && m.segments.length > 0 && textOf(m).trim()) {
          show({
            kind: 'notice',
            ...base(m),
            tone: 'info',
            label: String(m.metadata?.subtype ?? 'System'),
            text: textOf(m),
            collapsed: false,
          });
        } else hide(m);
    }
  }
  if (pending.length > 0) {
    // A page of background events only (a session that has nothing else).
    const first = pending[0]!;
    const types = [...new Set(pending.map((m) => String(m.metadata?.subtype ?? m.raw.event_type)))];
    items.push({ kind: 'hidden', ...base(first), count: pending.length, types });
  }
  const loose = subagents.filter((a) => !nestedAgents.has(a));
  // Subagents whose spawning call is unknown still belong to the session: shown at the end (or alone, when
  // the session is made only of subagent files).
  for (const agent of loose) {
    const at = agent.messages[0]?.timestamp ?? last()?.timestamp ?? '';
    const call: ToolCall = {
      call_id: '',
      name: agent.agentType === 'compaction' ? 'Compaction' : 'Subagent',
      status: 'completed',
    };
    items.push({
      kind: 'tool',
      id: `${agent.agentId}-thread`,
      timestamp: at,
      estimated: false,
      call,
      input: { kind: 'task', agentType: agent.agentType, description: agent.description, prompt: '' },
      headline: agent.description ?? agent.agentId,
      subagents: [threadView(agent)],
    });
  }
  return items;
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
  return typeof subtype === 'string' && subtype ? subtype.replace(/_/g, ' ') : 'Context';
}

/** One line of a page's table of contents: a prompt (or the continuation of one from the page before). */
export interface TocEntry {
  ordinal?: number;
  anchor?: string;
  text: string;
  timestamp?: string;
  tools: [string, number][];
}

/** The table of contents of one page: its prompts, each with the tools used until the next. */
export function tableOfContents(items: ViewItem[], firstPage = true): TocEntry[] {
  const entries: TocEntry[] = [];
  const counts: Map<string, number>[] = [];
  let current: Map<string, number> | undefined;
  for (const item of items) {
    if (item.kind === 'prompt') {
      const line = item.text.split('\n').find((l) => l.trim()) ?? '';
      entries.push({
        ordinal: item.ordinal,
        anchor: item.ordinal !== undefined ? `p${item.ordinal}` : undefined,
        text: line.length > 140 ? `${line.slice(0, 139)}…` : line || '(image)',
        timestamp: item.timestamp,
        tools: [],
      });
      counts.push((current = new Map()));
    } else if (item.kind === 'tool') {
      if (!current) {
        entries.push({
          text: firstPage ? 'Before the first prompt' : 'Continued from the previous page',
          timestamp: item.timestamp,
          tools: [],
        });
        counts.push((current = new Map()));
      }
      current.set(item.call.name, (current.get(item.call.name) ?? 0) + 1);
    }
  }
  entries.forEach((e, i) => (e.tools = [...counts[i]!.entries()].sort(([, a], [, b]) => b - a)));
  return entries;
}

function isLinkedLater(result: NormalizedMessage, messages: NormalizedMessage[]): boolean {
  return messages.some((m) => m.source_type === 'tool_call' && m.tool_call?.result_id === result.id);
}

function threadView(agent: SubagentThread): ThreadView {
  const label =
    agent.agentType === 'compaction'
      ? 'Compaction request'
      : `Subagent${agent.agentType ? ` · ${agent.agentType}` : ''}`;
  return { agentId: agent.agentId, label, description: agent.description, items: buildThreadView(agent.messages) };
}

export function buildSessionView(
  session: Session,
  place: ThreadPlace = { firstIndex: 0, promptsBefore: 0 },
): ViewItem[] {
  return buildThreadView(session.messages, session.subagents, place);
}

/** One page of a long session: its slice of the main thread, with the subagents its calls spawned (and, on the
 * last page, those whose spawning call is unknown). */
export function sessionPage(session: Session, starts: number[], page: number): Session {
  if (starts.length <= 1) return session;
  const from = starts[page - 1] ?? 0;
  const to = starts[page] ?? session.messages.length;
  const messages = session.messages.slice(from, to);
  const calls = new Set(
    messages.flatMap((m) => (m.source_type === 'tool_call' && m.tool_call ? [m.tool_call.call_id] : [])),
  );
  const last = page === starts.length;
  const subagents = session.subagents.filter((a) => (a.parentCallId ? calls.has(a.parentCallId) : last));
  return { ...session, messages, subagents };
}

export function buildSessionPage(
  session: Session,
  starts: number[],
  page: number,
  promptsBefore: number[] | undefined = starts.length <= 1 ? [0] : undefined,
): ViewItem[] {
  return buildSessionView(sessionPage(session, starts, page), pagePlace(starts, promptsBefore, page));
}

/** Where page `page` (1-based) starts in the main thread, and how many real prompts came before it. */
export function pagePlace(starts: number[], promptsBefore: number[] | undefined, page: number): ThreadPlace {
  return {
    firstIndex: starts[page - 1] ?? 0,
    promptsBefore: starts.length <= 1 ? 0 : promptsBefore?.[page - 1],
  };
}

/**
 * The page numbers a session's page links to (1-based): all of them up to nine pages, else the first, the
 * last and two either side of the current one, with `null` for each gap (shown as "…"). A 2 GB session
 * has thousands of pages; listing them all would make every page a wall of links.
 */
export function pageLinks(page: number, pages: number): (number | null)[] {
  if (pages <= 9) return Array.from({ length: pages }, (_, i) => i + 1);
  const shown = new Set([1, pages]);
  for (let n = Math.max(1, page - 2); n <= Math.min(pages, page + 2); n++) shown.add(n);
  const links: (number | null)[] = [];
  let previous = 0;
  for (const n of [...shown].sort((a, b) => a - b)) {
    if (n > previous + 1) links.push(n === previous + 2 ? previous + 1 : null);
    links.push(n);
    previous = n;
  }
  return links;
}
