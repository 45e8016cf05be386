import type { MessageSegment } from '../../model/message.ts';
import type { ClaudeContentBlock } from './schema.ts';

/** A message's content as blocks: a plain string is one text block. */
export function blocksOf(content: string | ClaudeContentBlock[] | undefined): ClaudeContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
}

export function imageSegment(block: ClaudeContentBlock, channel: MessageSegment['channel']): MessageSegment {
  const source = block.source ?? {};
  if (source.type === 'base64' && typeof source.data === 'string') {
    const mediaType = source.media_type ?? 'image/png';
    return {
      channel,
      type: 'image',
      format: 'image',
      media: {
        media_type: mediaType,
        data_uri: `data:${mediaType};base64,${source.data}`,
        size_bytes: Math.floor((source.data.length * 3) / 4),
      },
    };
  }
  if (source.type === 'url' && typeof source.url === 'string') {
    return { channel, type: 'image', format: 'image', media: { url: source.url } };
  }
  return { channel, type: 'image', format: 'image', media: { omitted: `image source ${source.type ?? 'unknown'}` } };
}

/** A tool result's content (string, block array or absent) as plain text. */
export function toolResultText(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part;
        const block = part as ClaudeContentBlock;
        if (block?.type === 'text') return block.text ?? '';
        if (block?.type === 'image') return '[image]';
        return JSON.stringify(block);
      })
      .join('\n');
  }
  return JSON.stringify(content, null, 2);
}
