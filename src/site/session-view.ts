import type { MessageSegment, NormalizedMessage, TokenUsage, ToolCall } from '../model/message.ts';
import type { Session, SubagentThread } from '../model/session.ts';

/** What a session page shows, in order: built from the normalized messages, source-agnostic. */

export type ViewItem =
  | {
      kind: 'prompt';
      id: string;
      timestamp: string;
      estimated: boolean;
      text: string;
      images: MessageSegment[];
      queued: boolean;
    }
  | {
      kind: 'answer';
      id: string;
      timestamp: string;
      estimated: boolean;
      segments: MessageSegment[];
      model?: string;
      usage?: TokenUsage;
      responseId?: string;
    }
  | {
      kind: 'tool';
      id: string;
      timestamp: string;
      estimated: boolean;
      call: ToolCall;
      /** Characters of the input cut for the page (the data keeps everything). */
      inputTruncated?: number;
      headline: string;
      usage?: TokenUsage;
      result?: ResultView;
      subagents: ThreadView[];
    }
  | { kind: 'result'; id: string; timestamp: string; estimated: boolean; result: ResultView }
  | { kind: 'divider'; id: string; timestamp: string; estimated: boolean; label: string; detail?: string }
  | {
      kind: 'notice';
      id: string;
      timestamp: string;
      estimated: boolean;
      tone: 'command' | 'output' | 'interrupt' | 'error' | 'info' | 'summary' | 'injected';
      label: string;
      text: string;
      html?: string;
      collapsed: boolean;
    }
  | { kind: 'hidden'; id: string; timestamp: string; estimated: boolean; count: number; types: string[] };

export interface ResultView {
  id: string;
  status: ToolCall['status'];
  name: string;
  output: string;
  /** Characters cut from `output` for the page (the data keeps everything). */
  truncated: number;
  images: MessageSegment[];
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

function resultView(m: NormalizedMessage): ResultView {
  const output = m.tool_call?.output ?? '';
  const cut = output.length > OUTPUT_PREVIEW_CHARS ? output.length - OUTPUT_PREVIEW_CHARS : 0;
  return {
    id: m.id,
    status: m.tool_call?.status ?? 'completed',
    name: m.tool_call?.name ?? 'unknown',
    output: cut ? output.slice(0, OUTPUT_PREVIEW_CHARS) : output,
    truncated: cut,
    images: m.segments.filter((s) => s.type === 'image'),
  };
}

export function buildThreadView(messages: NormalizedMessage[], subagents: SubagentThread[] = []): ViewItem[] {
  const results = new Map<string, NormalizedMessage>();
  for (const m of messages) if (m.source_type === 'tool_result') results.set(m.id, m);
  const linkedResults = new Set<string>();
  const subagentsByCall = new Map<string, SubagentThread[]>();
  for (const agent of subagents) {
    if (!agent.parentCallId) continue;
    const list = subagentsByCall.get(agent.parentCallId) ?? [];
    list.push(agent);
    subagentsByCall.set(agent.parentCallId, list);
  }
  const nestedAgents = new Set<SubagentThread>();

  const items: ViewItem[] = [];
  const base = (m: NormalizedMessage) => ({
    id: m.id,
    timestamp: m.timestamp,
    estimated: m.timestamp_estimated === true,
  });
  let hidden: Extract<ViewItem, { kind: 'hidden' }> | undefined;
  const hide = (m: NormalizedMessage) => {
    const type = String(m.metadata?.subtype ?? m.raw.event_type);
    if (!hidden) {
      hidden = { kind: 'hidden', ...base(m), count: 0, types: [] };
      items.push(hidden);
    }
    hidden.count += 1;
    if (!hidden.types.includes(type)) hidden.types.push(type);
  };
  const show = (item: ViewItem) => {
    hidden = undefined;
    items.push(item);
  };

  for (const m of messages) {
    const kind = m.metadata?.kind;
    if (m.source_type === 'tool_call' && m.tool_call) {
      const resultMessage = m.tool_call.result_id ? results.get(m.tool_call.result_id) : undefined;
      if (resultMessage) linkedResults.add(resultMessage.id);
      const agents = subagentsByCall.get(m.tool_call.call_id) ?? [];
      agents.forEach((a) => nestedAgents.add(a));
      const input = m.tool_call.arguments ?? '';
      show({
        kind: 'tool',
        ...base(m),
        call:
          input.length > OUTPUT_PREVIEW_CHARS
            ? { ...m.tool_call, arguments: input.slice(0, OUTPUT_PREVIEW_CHARS) }
            : m.tool_call,
        inputTruncated: Math.max(0, input.length - OUTPUT_PREVIEW_CHARS),
        headline: toolHeadline(m.tool_call),
        usage: m.metadata?.usage,
        result: resultMessage ? resultView(resultMessage) : undefined,
        subagents: agents.map(threadView),
      });
      continue;
    }
    if (m.source_type === 'tool_result') {
      if (!linkedResults.has(m.id) && !isLinkedLater(m, messages))
        show({ kind: 'result', ...base(m), result: resultView(m) });
      continue;
    }
    switch (kind) {
      case 'prompt':
        show({
          kind: 'prompt',
          ...base(m),
          text: textOf(m),
          images: m.segments.filter((s) => s.type === 'image'),
          queued: m.segments.some((s) => s.format === 'queued_command'),
        });
        break;
      case 'response': {
        if (m.segments.length === 0 && !m.metadata?.usage) break;
        // Streamed lines of one response (thinking, then text…) read as one answer.
        const previous = items[items.length - 1];
        const responseId = m.metadata?.response_id;
        if (previous?.kind === 'answer' && responseId && previous.responseId === responseId) {
          previous.segments = [...previous.segments, ...m.segments];
          previous.usage ??= m.metadata?.usage;
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
        show({ kind: 'notice', ...base(m), tone: 'command', label: 'Command', text: textOf(m), collapsed: false });
        break;
      case 'command_output':
        show({ kind: 'notice', ...base(m), tone: 'output', label: 'Command output', text: textOf(m), collapsed: true });
        break;
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
      case 'injected':
        if (m.segments.length > 0 && textOf(m).trim()) {
          show({
            kind: 'notice',
            ...base(m),
            tone: 'injected',
            label: 'Injected context',
            text: textOf(m),
            collapsed: true,
          });
        } else hide(m);
        break;
      default:
        if (m.role === 'system' && m.segments.length > 0) {
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
  const loose = subagents.filter((a) => !nestedAgents.has(a));
  if (loose.length > 0 && items.length > 0) {
    // Subagents whose spawning call is unknown still belong to the session: shown at the end.
    const last = items[items.length - 1]!;
    for (const agent of loose) {
      items.push({
        kind: 'tool',
        id: `${agent.agentId}-thread`,
        timestamp: agent.messages[0]?.timestamp ?? last.timestamp,
        estimated: false,
        call: { call_id: '', name: agent.agentType === 'compaction' ? 'Compaction' : 'Subagent', status: 'completed' },
        headline: agent.description ?? agent.agentId,
        subagents: [threadView(agent)],
      });
    }
  }
  return items;
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

export function buildSessionView(session: Session): ViewItem[] {
  return buildThreadView(session.messages, session.subagents);
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

export function buildSessionPage(session: Session, starts: number[], page: number): ViewItem[] {
  return buildSessionView(sessionPage(session, starts, page));
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
