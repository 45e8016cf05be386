import type { MessageMetadata, MessageSegment, NormalizedMessage, ToolCall, ToolStatus } from '../../model/message.ts';
import type { QToolUse, QToolUseResult } from './schema.ts';
import { isObject } from './content.ts';
import type { DraftFields } from './draft.ts';

/** A tool result's blocks as text: `{Text}` as is, MCP `{Json:{content:[{type:'text',text}]}}` by its texts. */
function resultOutput(result: QToolUseResult): { output: string; json?: unknown } {
  const blocks = Array.isArray(result.content) ? result.content : [];
  const texts: string[] = [];
  const json: unknown[] = [];
  for (const block of blocks) {
    if (typeof block?.Text === 'string') texts.push(block.Text);
    else if (isObject(block) && 'Json' in block) {
      json.push(block.Json);
      const content = isObject(block.Json) ? block.Json.content : undefined;
      const mcpTexts = Array.isArray(content)
        ? content.filter((c) => isObject(c) && typeof c.text === 'string').map((c) => (c as { text: string }).text)
        : [];
      texts.push(mcpTexts.length > 0 ? mcpTexts.join('\n') : JSON.stringify(block.Json, null, 2));
    } else texts.push(JSON.stringify(block));
  }
  return { output: texts.join('\n'), ...(json.length > 0 ? { json: json.length === 1 ? json[0] : json } : {}) };
}

/** The messages of the tool results a user turn sends back (`cancelled`: the user stopped the calls); the first
 * carries `firstSegments` (the turn's images when no prompt carries them). */
export function toolResultFields(
  list: QToolUseResult[] | undefined,
  cancelled: boolean,
  firstSegments: MessageSegment[],
  extra: MessageMetadata,
): DraftFields[] {
  return (Array.isArray(list) ? list : []).map((result, k) => {
    const { output, json } = resultOutput(result ?? {});
    const status: ToolStatus = cancelled ? 'rejected' : result?.status === 'Error' ? 'error' : 'completed';
    return {
      role: 'tool',
      source_type: 'tool_result',
      segments: k === 0 ? firstSegments : [],
      tool_call: {
        call_id: typeof result?.tool_use_id === 'string' ? result.tool_use_id : '',
        name: 'unknown',
        status,
        output,
        ...(json !== undefined ? { output_json: json } : {}),
      },
      metadata: { ...extra },
    };
  });
}

/** The messages of the tool calls of one `ToolUse` response (`key`: its history element). */
export function toolCallFields(uses: QToolUse[], key: string, responseMeta: MessageMetadata): DraftFields[] {
  return uses.map((use, k) => {
    const args = use?.args;
    const name = typeof use?.name === 'string' && use.name ? use.name : 'unknown';
    const origName = typeof use?.orig_name === 'string' && use.orig_name !== name ? use.orig_name : undefined;
    return {
      role: 'tool',
      source_type: 'tool_call',
      segments: [],
      tool_call: {
        call_id: typeof use?.id === 'string' && use.id ? use.id : `${key}:tool-${k}`,
        name,
        status: 'unanswered',
        arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}, null, 2),
        arguments_json: args ?? {},
      },
      metadata: { ...responseMeta, ...(origName ? { orig_name: origName } : {}) },
    };
  });
}

/** Links results to calls by `tool_use_id` (the next element's ToolUseResults, or `next_message` for the last turn). */
export function linkResults(messages: NormalizedMessage[]): void {
  const calls = new Map<string, ToolCall>();
  for (const m of messages) {
    if (m.source_type === 'tool_call' && m.tool_call) calls.set(m.tool_call.call_id, m.tool_call);
  }
  for (const m of messages) {
    if (m.source_type !== 'tool_result' || !m.tool_call) continue;
    const call = calls.get(m.tool_call.call_id);
    if (!call) continue;
    m.tool_call.name = call.name;
    call.status = m.tool_call.status;
    call.result_id = m.id;
  }
}
