import type { MessageSegment } from '../../model/message.ts';
import { unknown, type Draft, type PartEntry } from './draft.ts';
import { fileSegment, textOf } from './parts.ts';
import { num, str, type OcMessageInfo } from './schema.ts';

/**
 * A user message's parts: typed text and attached files are the prompt (one message); text OpenCode added itself
 * (`synthetic`, `ignored`: mode reminders, a read file's content) is injected context; a `subtask` part is a
 * command that starts a subagent; a `compaction` part marks where the conversation was compacted. Gives the
 * prompt's text, if there is one.
 */
export function userDrafts(
  info: OcMessageInfo,
  parts: PartEntry[],
  created: number | undefined,
  out: Draft[],
  msg: Draft['row'],
): string | undefined {
  const prompt: MessageSegment[] = [];
  let promptTime: number | undefined;
  for (const { part, row } of parts) {
    const time = num(part.time?.start) ?? created;
    if (part.type === 'text' && (part.synthetic || part.ignored)) {
      out.push({
        role: 'system',
        source_type: 'message',
        segments: [{ channel: 'system', type: 'text', format: 'text', text: textOf(part.text) }],
        metadata: { kind: 'injected', ...(part.synthetic ? { subtype: 'synthetic' } : { subtype: 'ignored' }) },
        time,
        event: 'text',
        row,
      });
    } else if (part.type === 'text') {
      prompt.push({ channel: 'input', type: 'text', format: 'text', text: textOf(part.text) });
      promptTime ??= time;
    } else if (part.type === 'file') {
      prompt.push(fileSegment(part, 'input'));
      promptTime ??= time;
    } else if (part.type === 'agent') {
      prompt.push({ channel: 'input', type: 'text', format: 'agent', text: `@${str(part.name) ?? 'agent'}` });
    } else if (part.type === 'subtask') {
      out.push({
        role: 'user',
        source_type: 'message',
        segments: [{ channel: 'input', type: 'text', format: 'subtask', text: textOf(part.prompt) }],
        metadata: {
          kind: 'command',
          subtype: 'subtask',
          ...(str(part.agent) ? { agent: str(part.agent) } : {}),
          ...(str(part.description) ? { description: str(part.description) } : {}),
          ...(str(part.command) ? { command: str(part.command) } : {}),
        },
        time,
        event: 'subtask',
        row,
      });
    } else if (part.type === 'compaction') {
      out.push({
        role: 'system',
        source_type: 'meta',
        segments: [],
        metadata: {
          kind: 'compact_boundary',
          subtype: 'compaction',
          compact: { trigger: part.auto ? 'auto' : 'manual' },
        },
        time,
        event: 'compaction',
        row,
      });
    } else out.push(unknown(part, String(part.type ?? 'part'), time, row));
  }
  if (prompt.some((s) => s.format !== 'agent')) {
    const text = prompt.find((s) => s.format === 'text')?.text;
    out.unshift({
      role: 'user',
      source_type: 'message',
      segments: prompt,
      metadata: { kind: 'prompt', ...(str(info.agent) ? { agent: str(info.agent) } : {}) },
      time: promptTime ?? created,
      event: 'user',
      row: msg,
    });
    return text;
  }
  return undefined;
}
