import type { NormalizedMessage } from '../model/message.ts';
import { toolHeadline } from '../transcript/session-view.ts';
import { dayOf, timeOf } from '../stats/calendar.ts';

/** Messages as plain text for a model: one block per message, what it is and when, then its text. */

export interface TranscriptOptions {
  includeThinking: boolean;
  includeToolCalls: boolean;
  /** A tool input or output longer than this is cut, with a note. */
  maxOutputChars: number;
  timeZone: string;
}

/** What was left out of a transcript, to say so and how to get it. */
export interface Omitted {
  thinking: number;
  toolCalls: number;
  toolResults: number;
  /** Tool inputs and outputs cut to maxOutputChars. */
  cutOutputs: number;
}

export function emptyOmitted(): Omitted {
  return { thinking: 0, toolCalls: 0, toolResults: 0, cutOutputs: 0 };
}

/** Remembers the day of the last block, so a block shows its date only when the day changes. */
export class Clock {
  private day?: string;

  constructor(private readonly timeZone: string) {}

  stamp(iso: string): string {
    if (!iso || Number.isNaN(Date.parse(iso))) return '';
    const day = dayOf(iso, this.timeZone);
    const time = timeOf(iso, this.timeZone);
    if (day === this.day) return time;
    this.day = day;
    return `${day} ${time}`;
  }

  reset(): void {
    this.day = undefined;
  }
}

const isThinking = (m: NormalizedMessage) => m.metadata?.kind === 'thinking';

/**
 * One message as a block of text, or undefined when it is not shown (thinking or tool traffic left out,
 * bookkeeping records); `omitted` counts what was left out.
 */
export function messageBlock(
  m: NormalizedMessage,
  index: number,
  clock: Clock,
  options: TranscriptOptions,
  omitted: Omitted,
): string | undefined {
  const head = (label: string) => `--- [${index}] ${clock.stamp(m.timestamp)} ${label}`.replace(/ {2,}/g, ' ');
  const kind = m.metadata?.kind;
  if (m.source_type === 'tool_call' && m.tool_call) {
    if (!options.includeToolCalls) {
      omitted.toolCalls += 1;
      return undefined;
    }
    const headline = toolHeadline(m.tool_call);
    const input = m.tool_call.arguments ?? '';
    return joinBlock(
      head(`tool call: ${m.tool_call.name}${headline ? ` · ${oneLine(headline)}` : ''}`),
      input ? cutOutput(input, options, omitted, 'input') : '',
    );
  }
  if (m.source_type === 'tool_result') {
    if (!options.includeToolCalls) {
      omitted.toolResults += 1;
      return undefined;
    }
    const call = m.tool_call;
    const status = call?.status && call.status !== 'completed' ? ` (${call.status})` : '';
    const images = m.segments.filter((s) => s.type === 'image').length;
    return joinBlock(
      head(`tool result: ${call?.name ?? 'unknown'}${status}`),
      cutOutput(call?.output ?? textOf(m), options, omitted, 'output'),
      images ? `[${images} image${images > 1 ? 's' : ''} not shown]` : '',
    );
  }
  switch (kind) {
    case 'prompt':
      return joinBlock(head('user'), textOf(m), imagesNote(m));
    case 'thinking':
    case 'response': {
      const thinking = m.segments.filter((s) => s.type === 'text' && (s.format === 'thinking' || isThinking(m)));
      const text = m.segments.filter((s) => s.type === 'text' && !(s.format === 'thinking' || isThinking(m)));
      const parts: string[] = [];
      if (thinking.length > 0) {
        if (options.includeThinking) parts.push(`(thinking) ${thinking.map((s) => s.text ?? '').join('\n\n')}`);
        else omitted.thinking += 1;
      }
      parts.push(...text.map((s) => s.text ?? '').filter((t) => t.trim()));
      if (parts.length === 0) return undefined;
      const model = m.metadata?.model ? ` (${m.metadata.model})` : '';
      return joinBlock(head(`assistant${model}`), parts.join('\n\n'));
    }
    case 'command':
      return joinBlock(head('command'), textOf(m));
    case 'command_output':
      if (!options.includeToolCalls) {
        omitted.toolResults += 1;
        return undefined;
      }
      return joinBlock(head('command output'), cutOutput(textOf(m), options, omitted, 'output'));
    case 'interrupt':
      return head('(interrupted by the user)');
    case 'api_error':
      return joinBlock(head('API error'), oneLine(textOf(m)).slice(0, 500));
    case 'compact_boundary':
      return head('(conversation compacted: the assistant continued from a summary)');
    case 'compact_summary':
      if (!options.includeToolCalls) return undefined;
      return joinBlock(head('summary of the earlier conversation'), cutOutput(textOf(m), options, omitted, 'output'));
    default:
      return undefined;
  }
}

function textOf(m: NormalizedMessage): string {
  return m.segments
    .filter((s) => s.type === 'text')
    .map((s) => s.text ?? '')
    .join('\n\n');
}

function imagesNote(m: NormalizedMessage): string {
  const images = m.segments.filter((s) => s.type === 'image').length;
  return images ? `[${images} image${images > 1 ? 's' : ''} attached, not shown]` : '';
}

function joinBlock(...parts: string[]): string {
  return parts.filter((p) => p !== '').join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function cutOutput(text: string, options: TranscriptOptions, omitted: Omitted, what: 'input' | 'output'): string {
  if (text.length <= options.maxOutputChars) return text;
  omitted.cutOutputs += 1;
  return (
    `${text.slice(0, options.maxOutputChars)}\n[… ${what} cut: ${(text.length - options.maxOutputChars).toLocaleString('en-US')} ` +
    `more characters; ask with a larger max_output_chars]`
  );
}

/** "Left out: …" for a transcript's footer, or '' when nothing was. */
export function omittedNote(omitted: Omitted): string {
  const parts: string[] = [];
  const tools = [
    omitted.toolCalls ? plural(omitted.toolCalls, 'tool call') : '',
    omitted.toolResults ? plural(omitted.toolResults, 'tool result') : '',
  ].filter(Boolean);
  if (tools.length) parts.push(`${tools.join(' and ')} (include_tool_calls: true shows them)`);
  if (omitted.thinking) parts.push(`${plural(omitted.thinking, 'thinking block')} (include_thinking: true shows them)`);
  if (omitted.cutOutputs) parts.push(`${plural(omitted.cutOutputs, 'long tool input/output')} cut (max_output_chars)`);
  return parts.length ? `Not shown: ${parts.join('; ')}.` : '';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
