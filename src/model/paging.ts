import type { NormalizedMessage } from './message.ts';

/** A session page holds at most this many messages, or about this much text, whichever comes first. */
export const PAGE_MESSAGES = 300;
export const PAGE_CHARS = 1_500_000;
/** A call whose result has not come after this many messages is taken as unanswered (it no longer holds a break). */
const OPEN_CALL_SPAN = 200;

function size(m: NormalizedMessage): number {
  let n = 0;
  for (const s of m.segments) n += (s.text?.length ?? 0) + Math.min(s.media?.data_uri?.length ?? 0, 1_000_000);
  n += Math.min(m.tool_call?.arguments?.length ?? 0, 20_000) + Math.min(m.tool_call?.output?.length ?? 0, 20_000);
  return n;
}

/** Messages a reader sees as a step: a page may start at one, and a page must hold at least one. */
function isStep(m: NormalizedMessage): boolean {
  const kind = m.metadata?.kind;
  return kind === 'prompt' || kind === 'response' || m.source_type === 'tool_call';
}

interface Candidate {
  index: number;
  /** Real prompts before `index`. */
  prompts: number;
}

interface PageState {
  starts: number[];
  /** Real prompts before each page start (absent in states saved before it was counted). */
  promptsBefore?: number[];
  /** Sizes of the messages since the current page's start. */
  sizes: number[];
  chars: number;
  /** Legacy field of states saved before breaks were chosen by prompt; read as `prompt`. */
  lastPrompt?: number;
  /** The latest prompt after the page start: the preferred break. */
  prompt?: Candidate;
  /** The latest step inside a prompt with no call waiting for its result: the break when one prompt is too long. */
  step?: Candidate;
  /** Calls waiting for their result: call id → message index. */
  open?: Record<string, number>;
  /** The current page holds a step (a page of only background events is never cut off). */
  hasStep?: boolean;
  prompts?: number;
  /** The response the previous message belonged to (its lines stay together). */
  response?: string;
  /** Messages and characters since the latest prompt: a prompt is cut inside only when it alone is too long. */
  promptMessages?: number;
  promptChars?: number;
}

/**
 * Finds where each page of a long session starts (indexes into its main-thread messages), one message at a
 * time. A page holds whole prompts: it ends before a prompt. Only a prompt too long for one page is cut inside,
 * and then only at a step with no call waiting for its result, so a call and its result stay on one page; a
 * page never holds background events alone.
 */
export class PageBreaker {
  private readonly s: Required<Omit<PageState, 'lastPrompt' | 'prompt' | 'step' | 'promptsBefore' | 'response'>> &
    Pick<PageState, 'prompt' | 'step' | 'promptsBefore' | 'response'>;

  constructor(state?: PageState) {
    this.s = state
      ? {
          starts: [...state.starts],
          promptsBefore: state.promptsBefore ? [...state.promptsBefore] : undefined,
          sizes: [...state.sizes],
          chars: state.chars,
          prompt:
            state.prompt ??
            (state.lastPrompt !== undefined && state.lastPrompt >= 0
              ? { index: state.lastPrompt, prompts: 0 }
              : undefined),
          step: state.step,
          open: { ...(state.open ?? {}) },
          hasStep: state.hasStep ?? true,
          prompts: state.prompts ?? 0,
          response: state.response,
          promptMessages: state.promptMessages ?? state.sizes.length,
          promptChars: state.promptChars ?? state.chars,
        }
      : {
          starts: [0],
          promptsBefore: [0],
          sizes: [],
          chars: 0,
          open: {},
          hasStep: false,
          prompts: 0,
          promptMessages: 0,
          promptChars: 0,
        };
  }

  add(m: NormalizedMessage, index: number): void {
    const s = this.s;
    const start = s.starts[s.starts.length - 1]!;
    const kind = m.metadata?.kind;
    const responseId = m.metadata?.response_id;
    for (const [id, at] of Object.entries(s.open)) if (index - at > OPEN_CALL_SPAN) delete s.open[id];
    if (index > start && s.hasStep) {
      if (kind === 'prompt') {
        s.prompt = { index, prompts: s.prompts };
        s.step = undefined;
      } else if (isStep(m) && Object.keys(s.open).length === 0 && (!responseId || responseId !== s.response))
        s.step = { index, prompts: s.prompts };
    }
    s.response = responseId;
    if (kind === 'prompt') s.prompts += 1;
    if (isStep(m)) s.hasStep = true;
    const call = m.tool_call;
    if (call?.call_id) {
      if (m.source_type === 'tool_call') s.open[call.call_id] = index;
      else if (m.source_type === 'tool_result') delete s.open[call.call_id];
    }
    const n = size(m);
    s.sizes.push(n);
    s.chars += n;
    if (kind === 'prompt') {
      s.promptMessages = 0;
      s.promptChars = 0;
    }
    s.promptMessages += 1;
    s.promptChars += n;
    if (s.sizes.length <= PAGE_MESSAGES && s.chars <= PAGE_CHARS) return;
    const longPrompt = s.promptMessages > PAGE_MESSAGES || s.promptChars > PAGE_CHARS;
    const next = s.prompt ?? (longPrompt ? s.step : undefined);
    // No place to break yet: a page grows past its bound rather than split a call from its result, up to twice.
    if (!next && s.sizes.length <= 2 * PAGE_MESSAGES && s.chars <= 2 * PAGE_CHARS) return;
    const at = next ?? { index, prompts: s.prompts - (kind === 'prompt' ? 1 : 0) };
    s.sizes = s.sizes.slice(at.index - start);
    s.chars = s.sizes.reduce((sum, x) => sum + x, 0);
    s.starts.push(at.index);
    s.promptsBefore?.push(at.prompts);
    // The step after a prompt break stays a candidate on the new page; the page starts with a step.
    s.step = s.prompt && s.step && s.step.index > at.index ? s.step : undefined;
    s.prompt = undefined;
    s.hasStep = next !== undefined || isStep(m);
  }

  starts(): number[] {
    return [...this.s.starts];
  }

  /** Real prompts before each page start, or undefined when an older saved state did not count them. */
  promptsBefore(): number[] | undefined {
    return this.s.promptsBefore ? [...this.s.promptsBefore] : undefined;
  }

  toJSON(): PageState {
    return {
      ...this.s,
      starts: [...this.s.starts],
      promptsBefore: this.s.promptsBefore ? [...this.s.promptsBefore] : undefined,
      sizes: [...this.s.sizes],
      open: { ...this.s.open },
    };
  }
}

/** Page starts of a thread in memory ([0] for one page). */
export function pageStarts(messages: NormalizedMessage[]): number[] {
  const pages = new PageBreaker();
  messages.forEach((m, i) => pages.add(m, i));
  return pages.starts();
}
