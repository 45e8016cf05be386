import type { MessageSegment, ToolStatus } from '../../model/message.ts';
import type { ClaudeContentBlock, ClaudeRecord } from './schema.ts';
import { classifyUserText, commandContents, commandLine, stripAnsi } from './classify.ts';
import { blocksOf, imageSegment, toolResultText } from './content-blocks.ts';
import type { MessageWriter } from './message-writer.ts';

const REJECTED_RESULT = /^(User rejected tool use|The user doesn't want to proceed with this tool use)/;

/** A `user` record: its tool results, then one message of the rest (a prompt, a command or its output, injected
 * context, a compact summary or an interrupt). */
export function addUser(writer: MessageWriter, record: ClaudeRecord, line: number): void {
  const blocks = blocksOf(record.message?.content);
  const toolResults = blocks.filter((b) => b.type === 'tool_result');
  const others = blocks.filter((b) => b.type !== 'tool_result');

  toolResults.forEach((block, i) => addToolResult(writer, record, block, line, toolResults.length > 1 ? i : undefined));
  if (others.length === 0) return;

  const text = others
    .filter((b) => b.type === 'text')
    .map((b) => b.text ?? '')
    .join('\n\n');
  const kind = classifyUserText(text, { isMeta: record.isMeta, isCompactSummary: record.isCompactSummary });
  const segments: MessageSegment[] = [];
  for (const block of others) {
    if (block.type === 'text') {
      const shown = kind === 'command' ? (commandLine(block.text ?? '') ?? block.text ?? '') : (block.text ?? '');
      segments.push({
        channel: 'input',
        type: 'text',
        format: 'text',
        text: kind === 'command_output' ? stripAnsi(shown) : shown,
      });
    } else if (block.type === 'image') {
      segments.push(imageSegment(block, 'input'));
    } else {
      segments.push({ channel: 'input', type: 'text', format: block.type, text: `[${block.type}]` });
    }
  }
  const role = kind === 'prompt' || kind === 'command' || kind === 'interrupt' ? 'user' : 'meta';
  writer.push(
    line,
    record,
    {
      role: kind === 'compact_summary' ? 'system' : role,
      source_type: 'message',
      segments,
      metadata: { kind, ...(record.isMeta ? { is_meta: true } : {}) },
    },
    toolResults.length > 0 ? 'text' : undefined,
  );
  // What an old-format command sent the model rides inside its record: kept as the expansion that newer versions
  // write as a record of its own, so it shows, exports and is searched the same way.
  const sent = kind === 'command' ? commandContents(text) : undefined;
  if (sent)
    writer.push(
      line,
      record,
      {
        role: 'meta',
        source_type: 'message',
        segments: [{ channel: 'input', type: 'text', format: 'text', text: sent }],
        metadata: { kind: 'injected', is_meta: true },
      },
      'contents',
    );
}

/** One tool result (in a user record, or a server tool's result inside an assistant record). */
export function addToolResult(
  writer: MessageWriter,
  record: ClaudeRecord,
  block: ClaudeContentBlock,
  line: number,
  index?: number,
): void {
  const callId = block.tool_use_id ?? '';
  const output = toolResultText(block.content);
  const structured = record.toolUseResult;
  let status: ToolStatus = block.is_error ? 'error' : 'completed';
  if (
    (typeof structured === 'string' && REJECTED_RESULT.test(structured)) ||
    (block.is_error && REJECTED_RESULT.test(output))
  ) {
    status = 'rejected';
  }
  const segments: MessageSegment[] = [];
  if (Array.isArray(block.content)) {
    for (const part of block.content as ClaudeContentBlock[]) {
      if (part?.type === 'image') segments.push(imageSegment(part, 'output'));
    }
  }
  writer.push(
    line,
    record,
    {
      role: 'tool',
      source_type: 'tool_result',
      segments,
      tool_call: {
        call_id: callId,
        name: 'unknown',
        status,
        output,
        ...(structured !== undefined ? { output_json: structured } : {}),
      },
      metadata: agentIdOf(structured) ? { agent_id: agentIdOf(structured) } : undefined,
    },
    index,
  );
}

/** An `attachment` record: a prompt queued while the assistant worked, or context injected for it. */
export function addAttachment(writer: MessageWriter, record: ClaudeRecord, line: number): void {
  const type = record.attachment?.type ?? 'unknown';
  if (type === 'queued_command') {
    const prompt = record.attachment?.prompt;
    const text = typeof prompt === 'string' ? prompt : toolResultText(prompt);
    writer.push(line, record, {
      role: 'user',
      source_type: 'message',
      segments: [{ channel: 'input', type: 'text', format: 'queued_command', text }],
      metadata: { kind: 'prompt', subtype: 'attachment:queued_command' },
    });
    return;
  }
  writer.push(line, record, {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: { kind: 'injected', subtype: `attachment:${type}` },
  });
}

function agentIdOf(structured: unknown): string | undefined {
  if (structured && typeof structured === 'object' && !Array.isArray(structured)) {
    const id = (structured as { agentId?: unknown }).agentId;
    if (typeof id === 'string') return id;
  }
  return undefined;
}
