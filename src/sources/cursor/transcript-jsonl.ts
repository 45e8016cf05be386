import type { MessageMetadata, MessageSegment } from '../../model/message.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { Draft, ThreadBuilder } from './builder.ts';
import { argumentsOf, isObject, promptDrafts, splitUserText, str, textOf, unknownDraft } from './text.ts';

/**
 * One line of an agent transcript `<uuid>.jsonl`: `{role, message: {content: [blocks]}}` with blocks `text`,
 * `tool_use` (`name`, `input`, an `id` when Cursor gives one), `thinking`, and `tool_result`. The lines carry no
 * times, models or token counts. Anything else (a line with no role, another role) is kept as `unknown`.
 */
export function addTranscriptLine(
  thread: ThreadBuilder,
  file: string,
  line: number,
  value: unknown,
  warn: WarningSink,
): void {
  if (!isObject(value)) {
    warn({ file, line, message: 'not a JSON object; kept as an unknown record' });
    thread.add([unknownDraft(typeof value)], { file, line, event_type: 'unknown', record: value });
    return;
  }
  const role = str(value.role);
  const content = isObject(value.message) ? value.message.content : value.content;
  const event_type = role ?? str(value.type) ?? 'unknown';
  if (role === 'user') {
    const { drafts, time } = userDrafts(content);
    thread.add(drafts, { file, line, event_type, ...(time ? { time } : {}) });
    return;
  }
  if (role === 'assistant') {
    thread.add(assistantDrafts(content, line), { file, line, event_type });
    return;
  }
  thread.add([unknownDraft(event_type)], { file, line, event_type, record: value });
}

function userDrafts(content: unknown): { drafts: Draft[]; time?: string } {
  const blocks: unknown[] = Array.isArray(content) ? content : [content];
  const drafts: Draft[] = [];
  let text: string[] = [];
  let time: string | undefined;
  const flush = () => {
    if (text.length === 0) return;
    const joined = text.join('\n');
    time ??= splitUserText(joined).time;
    drafts.push(...promptDrafts(joined));
    text = [];
  };
  for (const b of blocks) {
    if (isObject(b) && b.type === 'tool_result') {
      flush();
      drafts.push({
        role: 'tool',
        source_type: 'tool_result',
        segments: [],
        tool_call: {
          call_id: str(b.tool_use_id) ?? '',
          name: str(b.name) ?? 'unknown',
          status: b.is_error === true ? 'error' : 'completed',
          output: textOf(b.content),
        },
      });
    } else if (b !== undefined && b !== null) text.push(textOf([b]) || (isObject(b) ? '' : String(b)));
  }
  flush();
  if (drafts.length === 0) drafts.push(...promptDrafts(''));
  return { drafts, ...(time ? { time } : {}) };
}

function assistantDrafts(content: unknown, line: number): Draft[] {
  const meta = (): MessageMetadata => ({ kind: 'response', response_id: `line-${line}` });
  const blocks: unknown[] = Array.isArray(content) ? content : typeof content === 'string' ? [content] : [];
  const out: Draft[] = [];
  let prose: MessageSegment[] = [];
  const flush = () => {
    if (prose.length) out.push({ role: 'assistant', source_type: 'message', segments: prose, metadata: meta() });
    prose = [];
  };
  blocks.forEach((b, i) => {
    if (typeof b === 'string') {
      prose.push({ channel: 'output', type: 'text', format: 'text', text: b });
      return;
    }
    if (!isObject(b)) return;
    if (b.type === 'tool_use') {
      flush();
      out.push({
        role: 'tool',
        source_type: 'tool_call',
        segments: [],
        tool_call: {
          // Cursor's transcripts give tool_use blocks no id: the line and block position stand in.
          call_id: str(b.id) ?? `${line}:${i}`,
          name: str(b.name) ?? 'unknown',
          status: 'unanswered',
          ...argumentsOf(b.input),
        },
        metadata: meta(),
      });
    } else if (b.type === 'thinking' || b.type === 'redacted_thinking') {
      prose.push({
        channel: 'output',
        type: 'text',
        format: 'thinking',
        text: textOf(b.thinking ?? b.text ?? '[redacted]'),
      });
    } else {
      const text = typeof b.text === 'string' ? b.text : JSON.stringify(b);
      prose.push({ channel: 'output', type: 'text', format: str(b.type) ?? 'text', text });
    }
  });
  flush();
  if (out.length === 0) out.push({ role: 'assistant', source_type: 'message', segments: [], metadata: meta() });
  return out;
}
