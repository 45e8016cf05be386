import type { NormalizedMessage } from '../model/message.ts';
import type { Session, SessionThreads, SubagentThread } from '../model/session.ts';
import { type ThreadPlace, buildThreadView } from './thread-view.ts';
import type { ViewItem } from './view-items.ts';

/*
 * The conversation's view model: what a session page, the MCP server and the Markdown export show. The items
 * are in view-items.ts, how a thread's messages become items in thread-view.ts; here, a session's pages and
 * their tables of contents.
 */
export { type ThreadPlace, buildThreadView } from './thread-view.ts';
export {
  INLINE_IMAGE_MAX_BYTES,
  OUTPUT_PREVIEW_CHARS,
  type ResultView,
  type ThreadView,
  type ViewItem,
  toolHeadline,
} from './view-items.ts';

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

export function buildSessionView(
  session: SessionThreads,
  place: ThreadPlace = { firstIndex: 0, promptsBefore: 0 },
): ViewItem[] {
  return buildThreadView(session.messages, session.subagents, place);
}

/** One page of a long session: its slice of the main thread, with the subagents its calls spawned, those their
 * calls spawned and so on (and, on the last page, those whose spawning call is unknown), in the order PagedBody
 * reads them. */
export function sessionPage(session: Session, starts: number[], page: number): Session {
  if (starts.length <= 1) return session;
  const from = starts[page - 1] ?? 0;
  const to = starts[page] ?? session.messages.length;
  const messages = session.messages.slice(from, to);
  const calls = new Set<string>();
  const addCalls = (list: NormalizedMessage[]) => {
    for (const m of list) if (m.source_type === 'tool_call' && m.tool_call) calls.add(m.tool_call.call_id);
  };
  addCalls(messages);
  const last = page === starts.length;
  const subagents: SubagentThread[] = [];
  const shown = new Set<string>();
  for (let added = true; added;) {
    added = false;
    for (const agent of session.subagents) {
      if (shown.has(agent.agentId) || !(agent.parentCallId ? calls.has(agent.parentCallId) : last)) continue;
      shown.add(agent.agentId);
      added = true;
      addCalls(agent.messages);
      subagents.push(agent);
    }
  }
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
