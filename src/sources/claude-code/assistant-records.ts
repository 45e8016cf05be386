import type { MessageMetadata, MessageSegment } from '../../model/message.ts';
import type { ClaudeRecord } from './schema.ts';
import { blocksOf, imageSegment } from './content-blocks.ts';
import type { MessageWriter } from './message-writer.ts';
import type { ResponseUsages } from './usage.ts';
import { addToolResult } from './user-records.ts';

/**
 * An `assistant` record (one content block of a streamed response, or several): its usage is noted for the
 * response, then prose (text, thinking, images) goes out as one message per run between tool calls, and each
 * tool call or server tool result as a message of its own.
 */
export function addAssistant(writer: MessageWriter, usage: ResponseUsages, record: ClaudeRecord, line: number): void {
  const msg = record.message ?? {};
  const responseId = msg.id ?? record.uuid ?? `line-${line}`;
  const synthetic = msg.model === '<synthetic>' || record.isApiErrorMessage === true;
  if (msg.usage && !synthetic) usage.record(responseId, msg.usage, msg.model);
  const blocks = blocksOf(msg.content);
  const metadata: MessageMetadata = {
    kind: synthetic ? 'api_error' : 'response',
    response_id: responseId,
    ...(msg.model ? { model: msg.model } : {}),
  };

  let prose: MessageSegment[] = [];
  let part = 0;
  const many = blocks.length > 1;
  const flushProse = () => {
    if (prose.length === 0) return;
    writer.push(
      line,
      record,
      { role: 'assistant', source_type: 'message', segments: prose, metadata: { ...metadata } },
      many ? part++ : undefined,
    );
    prose = [];
  };
  for (const block of blocks) {
    if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      flushProse();
      writer.push(
        line,
        record,
        {
          role: 'tool',
          source_type: 'tool_call',
          segments: [],
          tool_call: {
            call_id: block.id ?? '',
            name: block.name ?? 'unknown',
            status: 'unanswered',
            arguments: typeof block.input === 'string' ? block.input : JSON.stringify(block.input ?? {}, null, 2),
            arguments_json: block.input ?? {},
          },
          metadata: { ...metadata },
        },
        many ? part++ : undefined,
      );
    } else if (block.type === 'web_search_tool_result' || block.type === 'tool_result') {
      flushProse();
      addToolResult(writer, record, { ...block, type: 'tool_result' }, line, part++);
    } else if (block.type === 'text') {
      prose.push({ channel: 'output', type: 'text', format: 'text', text: block.text ?? '' });
    } else if (block.type === 'thinking') {
      prose.push({ channel: 'output', type: 'text', format: 'thinking', text: block.thinking ?? '' });
    } else if (block.type === 'redacted_thinking') {
      prose.push({ channel: 'output', type: 'text', format: 'redacted_thinking', text: '' });
    } else if (block.type === 'image') {
      prose.push(imageSegment(block, 'output'));
    } else {
      prose.push({ channel: 'output', type: 'text', format: block.type, text: JSON.stringify(block) });
    }
  }
  flushProse();
  if (blocks.length === 0) {
    writer.push(line, record, { role: 'assistant', source_type: 'message', segments: [], metadata });
  }
}
