import type { MessageSegment, NormalizedMessage } from '../model/message.ts';
import type { SessionThreads } from '../model/session.ts';

// Prompts stay plain text as typed; the model's prose (answers, thinking, summaries) is Markdown.
const MARKDOWN_KINDS = new Set(['response', 'compact_summary']);

/** Every segment of a session whose text is rendered from Markdown. */
export function* markdownSegments(session: SessionThreads): Generator<MessageSegment & { text: string }> {
  const threads: NormalizedMessage[][] = [session.messages, ...session.subagents.map((s) => s.messages)];
  for (const messages of threads) for (const m of messages) yield* messageMarkdown(m);
}

/** The segments of one message whose text is rendered from Markdown. */
export function* messageMarkdown(m: NormalizedMessage): Generator<MessageSegment & { text: string }> {
  if (!MARKDOWN_KINDS.has(m.metadata?.kind ?? '')) return;
  for (const segment of m.segments) {
    if (segment.type === 'text' && segment.text) yield segment as MessageSegment & { text: string };
  }
}

/** Sets `html` on every Markdown segment. */
export function attachHtml(session: SessionThreads, render: (text: string) => string): void {
  for (const segment of markdownSegments(session)) segment.html = render(segment.text);
}
