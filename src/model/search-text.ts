import type { NormalizedMessage } from './message.ts';

/** What a search row holds: the part of a message it was taken from. */
export type SearchKind =
  'prompt' | 'answer' | 'thinking' | 'tool-input' | 'tool-output' | 'command' | 'summary' | 'session';

export const SEARCH_KINDS: readonly SearchKind[] = [
  'prompt',
  'answer',
  'thinking',
  'tool-input',
  'tool-output',
  'command',
  'summary',
  'session',
];

/** A tool output can be megabytes (a file read whole, a build log); its head and tail are what people look
 * for, and indexing all of it would make the index several times the archive. */
export const MAX_INDEXED_CHARS = 64 * 1024;
const TAIL_CHARS = 16 * 1024;

/** Text kept of a long text: its head and its tail. */
export function clip(text: string, max = MAX_INDEXED_CHARS): string {
  if (text.length <= max) return text;
  let head = max - TAIL_CHARS;
  let tail = text.length - TAIL_CHARS;
  // Never cut a surrogate pair in half.
  if (/[\ud800-\udbff]/.test(text[head - 1] ?? '')) head -= 1;
  if (/[\udc00-\udfff]/.test(text[tail] ?? '')) tail += 1;
  return `${text.slice(0, head)}\n…\n${text.slice(tail)}`;
}

/** Archives written before messages were checked (model/message-schema.ts) may hold other types here. */
function joined(parts: unknown[]): string {
  return parts
    .filter((p): p is string => typeof p === 'string' && p.trim() !== '')
    .join('\n\n')
    .trim();
}

/**
 * The searchable texts of one message, by kind: prompts, answers and thinking, a tool's name and input, a
 * tool's output, slash commands and their output, compaction summaries. Text the assistant's harness
 * injects (reminders, caveats, attachments) and bookkeeping records are left out: they repeat in every
 * session and would drown real hits.
 */
export function searchableTexts(m: NormalizedMessage): { kind: SearchKind; text: string }[] {
  const kind = m.metadata?.kind;
  if (kind === 'injected' || kind === 'system_event' || kind === 'title' || kind === 'unknown') return [];
  if (kind === 'compact_boundary' || kind === 'interrupt') return [];
  const out: { kind: SearchKind; text: string }[] = [];
  const push = (k: SearchKind, text: string) => {
    if (text) out.push({ kind: k, text: clip(text) });
  };
  const texts = (Array.isArray(m.segments) ? m.segments : []).filter((s) => s?.type === 'text');
  if (m.tool_call && typeof m.tool_call === 'object') {
    const call = m.tool_call;
    if (m.source_type === 'tool_result' || call.output !== undefined) {
      push('tool-output', joined([call.output, ...texts.map((s) => s.text)]));
    } else {
      push('tool-input', joined([call.name, call.arguments]));
    }
    return out;
  }
  if (kind === 'command' || kind === 'command_output') {
    push('command', joined(texts.map((s) => s.text)));
    return out;
  }
  if (kind === 'compact_summary') {
    push('summary', joined(texts.map((s) => s.text)));
    return out;
  }
  if (m.role === 'user') {
    push('prompt', joined(texts.map((s) => s.text)));
    return out;
  }
  if (m.role === 'assistant') {
    push('thinking', joined(texts.filter((s) => s.format === 'thinking').map((s) => s.text)));
    push('answer', joined(texts.filter((s) => s.format !== 'thinking').map((s) => s.text)));
    return out;
  }
  if (kind === 'api_error') push('answer', joined(texts.map((s) => s.text)));
  return out;
}
