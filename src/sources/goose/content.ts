import type { MessageDraft, MessageSegment, ToolStatus } from '../../model/message.ts';
import { isObject, str, type GooseContent } from './schema.ts';

/** A normalized message before it has its id, time and raw reference (one Goose message may make several). */
export interface Draft extends MessageDraft {
  /** What the content item was (`text`, `toolRequest`…): the raw reference's event type. */
  event: string;
  /** Kept whole in `raw.record` (items we do not know, and those we only note). */
  record?: unknown;
}

/** A tool result's text: the `content` items the model saw (those meant for the assistant, or for everyone). */
export function toolOutputText(result: GooseContent['toolResult']): { text: string; status: ToolStatus } {
  if (!isObject(result)) return { text: '', status: 'error' };
  if (result.status === 'error') {
    const error = str(result.error) ?? 'error';
    return { text: error, status: refused(error) ? 'rejected' : 'error' };
  }
  const value = result.value;
  // CallToolResult ({content, isError, structuredContent}), or (older sessions) the content list itself.
  const items: unknown[] = Array.isArray(value)
    ? value
    : isObject(value) && Array.isArray(value.content)
      ? value.content
      : [];
  const forModel = items.filter((item) => {
    const audience = isObject(item) && isObject(item.annotations) ? item.annotations.audience : undefined;
    return !Array.isArray(audience) || audience.includes('assistant');
  });
  const texts = (forModel.length > 0 ? forModel : items).map(contentItemText).filter((t) => t !== '');
  let text = texts.join('\n');
  if (!text && isObject(value) && value.structuredContent !== undefined)
    text = JSON.stringify(value.structuredContent, null, 2);
  const failed = isObject(value) && value.isError === true;
  return { text, status: failed ? (refused(text) ? 'rejected' : 'error') : 'completed' };
}

function refused(text: string): boolean {
  return /\b(user (has )?(declined|denied|rejected|cancell?ed))|permission (was )?denied/i.test(text.slice(0, 500));
}

/** One MCP content item (`text`, `image`, `resource`, `resource_link`, `audio`) as text. */
function contentItemText(item: unknown): string {
  if (!isObject(item)) return typeof item === 'string' ? item : '';
  if (item.type === 'text') return str(item.text) ?? '';
  if (item.type === 'image') return `[image ${str(item.mimeType) ?? ''}]`.replace(' ]', ']');
  if (item.type === 'resource' && isObject(item.resource)) {
    const r = item.resource;
    return str(r.text) ?? `[resource ${str(r.uri) ?? ''}]`;
  }
  if (item.type === 'resource_link' || item.type === 'resourceLink') return `[resource ${str(item.uri) ?? ''}]`;
  if (item.type === 'audio') return '[audio]';
  return JSON.stringify(item);
}

/** An `image` item as a segment (`data` is base64). */
export function imageSegment(item: GooseContent, channel: 'input' | 'output'): MessageSegment {
  const mime = str(item.mimeType) ?? 'image/png';
  const data = str(item.data);
  return {
    channel,
    type: 'image',
    format: 'image',
    media: { media_type: mime, ...(data ? { data_uri: `data:${mime};base64,${data}` } : {}) },
  };
}

/** A content item Goose shows the user but that is neither prose nor a tool: kept as a system event. */
export function noteDraft(item: GooseContent, subtype: string, text: string): Draft {
  return {
    role: 'system',
    source_type: 'meta',
    segments: text ? [{ channel: 'system', type: 'text', format: 'text', text }] : [],
    metadata: { kind: 'system_event', subtype },
    event: String(item.type),
    record: item,
  };
}

/** A content item we do not know: kept whole, never dropped. */
export function unknownDraft(item: unknown): Draft {
  const type = isObject(item) && typeof item.type === 'string' ? item.type : 'content';
  return {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: { kind: 'unknown', subtype: type },
    event: type,
    record: item,
  };
}

/** What an `actionRequired` item asks, in words. */
export function actionText(item: GooseContent): { subtype: string; text: string } {
  const data: Record<string, unknown> = isObject(item.data) ? item.data : {};
  const action = str(data.actionType) ?? 'action';
  if (action === 'toolConfirmation')
    return {
      subtype: 'tool_confirmation',
      text: `Confirm ${str(data.toolName) ?? 'tool'}${str(data.prompt) ? `: ${str(data.prompt)}` : ''}`,
    };
  if (action === 'elicitation') return { subtype: 'elicitation', text: str(data.message) ?? '' };
  if (action === 'elicitationResponse')
    return { subtype: 'elicitation_response', text: JSON.stringify(data.userData ?? null) };
  return { subtype: action, text: '' };
}
