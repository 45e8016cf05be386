import type { MessageKind, MessageMetadata } from '../../model/message.ts';
import { INTERRUPT_MARKER, textSegment } from './content.ts';
import { NOTICE_UNIT, type Draft, type DraftFields, type MakeDraft } from './draft.ts';

const TRANSCRIPT_TOOLS = /\n?\[Tool uses: ([^\]\n]*)\]\s*$/;
const SLASH_COMMAND = /^\/[A-Za-z][\w-]*(\s|$)/;
const APPROVAL = /^[ynt]$/i;

/** After `/compact` the transcript (Q's display log) is the only readable record left: one message per entry. */
export function transcriptDrafts(draft: MakeDraft, transcript: unknown[], keys: string[]): Draft[] {
  const drafts: Draft[] = [
    draft(
      NOTICE_UNIT,
      'tn',
      0,
      undefined,
      { event_type: 'transcript', payload_type: 'transcript', line_index: 1 },
      {
        role: 'system',
        source_type: 'meta',
        segments: [
          textSegment(
            'system',
            'Q keeps no structured history of this conversation any more (it was compacted). What follows is ' +
              'its display transcript: prompts and answers as shown in the terminal, tool names without inputs or results.',
          ),
        ],
        metadata: { kind: 'system_event', subtype: 'Transcript fallback', transcript_fallback: true },
      },
    ),
  ];
  let previousHadTools = false;
  transcript.forEach((entry, i) => {
    const unit = keys[i]!;
    const raw = { event_type: 'transcript', payload_type: 'transcript', line_index: i + 1 };
    const meta: MessageMetadata = { transcript_fallback: true };
    let part = 0;
    const add = (fields: DraftFields, record?: unknown) => {
      drafts.push(draft(unit, `t${i}.${part}`, part, undefined, { ...raw, ...(record ? { record } : {}) }, fields));
      part += 1;
    };
    if (typeof entry !== 'string') {
      add({ role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', ...meta } }, entry);
      previousHadTools = false;
      return;
    }
    if (entry.startsWith('> ') || entry === '>') {
      add(promptFields(entry, previousHadTools, meta));
      previousHadTools = false;
      return;
    }
    const tools = TRANSCRIPT_TOOLS.exec(entry);
    if (!tools) {
      add({
        role: 'system',
        source_type: 'meta',
        segments: [textSegment('system', entry)],
        metadata: { kind: 'command_output', ...meta },
      });
      previousHadTools = false;
      return;
    }
    const prose = entry.slice(0, tools.index);
    const names =
      tools[1]!.trim() === 'none'
        ? []
        : tools[1]!
            .split(',')
            .map((n) => n.trim())
            .filter(Boolean);
    const responseMeta: MessageMetadata = { kind: 'response', response_id: unit, ...meta };
    if (prose.trim() || names.length === 0) {
      add({
        role: 'assistant',
        source_type: 'message',
        segments: prose.trim() ? [textSegment('output', prose)] : [],
        metadata: {
          ...responseMeta,
          ...(prose.trim() === INTERRUPT_MARKER ? { kind: 'interrupt' as MessageKind } : {}),
        },
      });
    }
    names.forEach((name, k) => {
      add({
        role: 'tool',
        source_type: 'tool_call',
        segments: [],
        // The transcript names the tools only: no inputs, no results. Their status is not recorded either;
        // the conversation went on after them, so they count as completed.
        tool_call: { call_id: `transcript-${i}.${k}`, name, status: 'completed' },
        metadata: { ...responseMeta, status_inferred: true },
      });
    });
    previousHadTools = names.length > 0;
  });
  return drafts;
}

/** A `> ` entry: a slash command, a `y`/`n`/`t` answer to a tool approval, or a prompt. */
function promptFields(entry: string, previousHadTools: boolean, meta: MessageMetadata): DraftFields {
  // Q writes `"> " + prompt.replace("\n", "> \n")`.
  const text = entry.slice(2).replaceAll('> \n', '\n');
  const trimmed = text.trim();
  if (SLASH_COMMAND.test(trimmed)) {
    return {
      role: 'user',
      source_type: 'message',
      segments: [textSegment('input', trimmed, 'command')],
      metadata: { kind: 'command', ...meta },
    };
  }
  if (APPROVAL.test(trimmed) && previousHadTools) {
    return {
      role: 'user',
      source_type: 'message',
      segments: [textSegment('input', trimmed, 'tool_approval')],
      metadata: { kind: 'command', subtype: 'tool_approval', ...meta },
    };
  }
  return {
    role: 'user',
    source_type: 'message',
    segments: [textSegment('input', text)],
    metadata: { kind: 'prompt', ...meta },
  };
}
