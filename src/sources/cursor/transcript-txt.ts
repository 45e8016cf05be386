import type { MessageSegment } from '../../model/message.ts';
import type { Draft, ThreadBuilder } from './builder.ts';
import { promptDrafts } from './text.ts';

/**
 * The older plain-text transcript `<uuid>.txt`: blocks opened by a line `user:` or `assistant:`. A user block
 * holds `<user_query>…</user_query>`; an assistant block holds prose and markers at the left margin —
 * `[Thinking] …`, `[Tool call] <name>` followed by indented `key: value` lines, `[Tool result] <name>` followed by
 * its indented output. A marker's body ends at the next non-empty line at the left margin.
 */
export function addTextTranscript(thread: ThreadBuilder, file: string, text: string): void {
  const lines = text.split(/\r?\n/);
  let role: 'user' | 'assistant' | undefined;
  let start = 0;
  let body: string[] = [];
  const flush = () => {
    if (role === 'user') thread.add(promptDrafts(body.join('\n').trim()), { file, line: start, event_type: 'user' });
    else if (role === 'assistant') assistantBlock(thread, file, start, body);
    body = [];
  };
  lines.forEach((l, i) => {
    const marker = l.trim();
    if (marker === 'user:' || marker === 'assistant:') {
      flush();
      role = marker === 'user:' ? 'user' : 'assistant';
      start = i + 1;
      return;
    }
    if (role) body.push(l);
  });
  flush();
}

const MARKER = /^\[(Thinking|Tool call|Tool result)\]\s?(.*)$/;

function assistantBlock(thread: ThreadBuilder, file: string, blockLine: number, lines: string[]): void {
  let i = 0;
  let prose: string[] = [];
  let proseLine = blockLine + 1;
  const response = `line-${blockLine}`;
  const meta = { kind: 'response' as const, response_id: response };
  const flushProse = () => {
    const text = prose.join('\n').trim();
    if (text) {
      const segments: MessageSegment[] = [{ channel: 'output', type: 'text', format: 'text', text }];
      thread.add([{ role: 'assistant', source_type: 'message', segments, metadata: meta }], {
        file,
        line: proseLine,
        event_type: 'assistant',
      });
    }
    prose = [];
  };
  while (i < lines.length) {
    const m = MARKER.exec(lines[i]!);
    if (!m) {
      if (prose.length === 0) proseLine = blockLine + 1 + i;
      prose.push(lines[i]!);
      i += 1;
      continue;
    }
    flushProse();
    const line = blockLine + 1 + i;
    const head = m[2]!.trim();
    const bodyLines: string[] = [];
    i += 1;
    while (i < lines.length && !endsBody(lines[i]!)) bodyLines.push(lines[i++]!);
    const bodyText = dedent(bodyLines).trim();
    let draft: Draft;
    if (m[1] === 'Thinking') {
      const text = [head, bodyText].filter(Boolean).join('\n');
      draft = {
        role: 'assistant',
        source_type: 'message',
        segments: [{ channel: 'output', type: 'text', format: 'thinking', text }],
        metadata: meta,
      };
    } else if (m[1] === 'Tool call') {
      const args = argumentLines(bodyLines);
      draft = {
        role: 'tool',
        source_type: 'tool_call',
        segments: [],
        tool_call: {
          call_id: `${line}`,
          name: head || 'unknown',
          status: 'unanswered',
          arguments: JSON.stringify(args, null, 2),
          arguments_json: args,
        },
        metadata: meta,
      };
    } else {
      draft = {
        role: 'tool',
        source_type: 'tool_result',
        segments: [],
        tool_call: { call_id: '', name: head || 'unknown', status: 'completed', output: bodyText },
      };
    }
    thread.add([draft], { file, line, event_type: m[1]!.toLowerCase().replace(' ', '_') });
  }
  flushProse();
}

function endsBody(line: string): boolean {
  if (MARKER.test(line.trim())) return true;
  return line.trim() !== '' && line[0] !== ' ' && line[0] !== '\t';
}

function dedent(lines: string[]): string {
  const indents = lines.filter((l) => l.trim()).map((l) => /^[ \t]*/.exec(l)![0].length);
  const cut = indents.length ? Math.min(...indents) : 0;
  return lines.map((l) => l.slice(cut)).join('\n');
}

/** `key: value` (or `key=value`) lines of a tool call; a line of neither kind continues the previous value. */
function argumentLines(lines: string[]): Record<string, string> {
  const args: Record<string, string> = {};
  let last: string | undefined;
  for (const raw of lines) {
    if (!raw.trim()) continue;
    const m = /^\s*([A-Za-z_][\w-]*)\s*(?::|=)\s?(.*)$/.exec(raw);
    if (m) {
      last = m[1]!;
      args[last] = m[2]!;
    } else if (last) args[last] += `\n${raw.trim()}`;
  }
  return args;
}
