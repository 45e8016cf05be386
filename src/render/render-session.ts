import type { NormalizedMessage } from '../model/message.ts';
import type { Session } from '../model/session.ts';
import { renderMarkdown } from './markdown.ts';

// Prompts stay plain text as typed; the model's prose is Markdown.
const MARKDOWN_KINDS = new Set(['response', 'compact_summary']);

/** Adds sanitized HTML to every prose segment (prompts, answers, thinking, summaries). */
export function renderSession(session: Session): void {
  for (const m of session.messages) renderMessage(m);
  for (const agent of session.subagents) for (const m of agent.messages) renderMessage(m);
}

function renderMessage(m: NormalizedMessage): void {
  if (!MARKDOWN_KINDS.has(m.metadata?.kind ?? '')) return;
  for (const segment of m.segments) {
    if (segment.type === 'text' && segment.text) segment.html = renderMarkdown(segment.text);
  }
}
