import type { NormalizedMessage } from './message.ts';

/** A session page holds at most this many messages, or about this much text, whichever comes first. */
export const PAGE_MESSAGES = 300;
export const PAGE_CHARS = 1_500_000;

function size(m: NormalizedMessage): number {
  let n = 0;
  for (const s of m.segments) n += (s.text?.length ?? 0) + Math.min(s.media?.data_uri?.length ?? 0, 1_000_000);
  n += Math.min(m.tool_call?.arguments?.length ?? 0, 20_000) + Math.min(m.tool_call?.output?.length ?? 0, 20_000);
  return n;
}

interface PageState {
  starts: number[];
  /** Sizes of the messages since the current page's start. */
  sizes: number[];
  chars: number;
  lastPrompt: number;
}

/**
 * Finds where each page of a long session starts (indexes into its main-thread messages), one message at a
 * time. A page ends before a prompt where it can, so a call and its result stay on one page.
 */
export class PageBreaker {
  private readonly s: PageState;

  constructor(state?: PageState) {
    this.s = state
      ? { ...state, starts: [...state.starts], sizes: [...state.sizes] }
      : { starts: [0], sizes: [], chars: 0, lastPrompt: -1 };
  }

  add(m: NormalizedMessage, index: number): void {
    const s = this.s;
    let start = s.starts[s.starts.length - 1]!;
    if (index > start && m.metadata?.kind === 'prompt') s.lastPrompt = index;
    const n = size(m);
    s.sizes.push(n);
    s.chars += n;
    if (s.sizes.length > PAGE_MESSAGES || s.chars > PAGE_CHARS) {
      const next = s.lastPrompt > start ? s.lastPrompt : index;
      s.sizes = s.sizes.slice(next - start);
      s.chars = s.sizes.reduce((sum, x) => sum + x, 0);
      s.starts.push(next);
      start = next;
      s.lastPrompt = -1;
    }
  }

  starts(): number[] {
    return [...this.s.starts];
  }

  toJSON(): PageState {
    return { ...this.s, starts: [...this.s.starts], sizes: [...this.s.sizes] };
  }
}

/** Page starts of a thread in memory ([0] for one page). */
export function pageStarts(messages: NormalizedMessage[]): number[] {
  const pages = new PageBreaker();
  messages.forEach((m, i) => pages.add(m, i));
  return pages.starts();
}
