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

/**
 * Where each page of a long session starts (indexes into its main-thread messages; [0] for one page).
 * A page ends before a prompt where it can, so a call and its result stay on one page.
 */
export function pageStarts(messages: NormalizedMessage[]): number[] {
  const starts = [0];
  let count = 0;
  let chars = 0;
  let lastPrompt = -1;
  messages.forEach((m, i) => {
    if (i > starts[starts.length - 1]! && m.metadata?.kind === 'prompt') lastPrompt = i;
    count += 1;
    chars += size(m);
    if (count > PAGE_MESSAGES || chars > PAGE_CHARS) {
      const start = lastPrompt > starts[starts.length - 1]! ? lastPrompt : i;
      starts.push(start);
      count = i - start + 1;
      chars = messages.slice(start, i + 1).reduce((sum, x) => sum + size(x), 0);
      lastPrompt = -1;
    }
  });
  return starts;
}
