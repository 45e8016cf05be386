import { createHash } from 'node:crypto';
import type { MessageSegment } from '../../model/message.ts';
import type { QImage } from './schema.ts';

/** Images up to this size are kept inline as data URIs; larger ones only by size (the same bound as the pages). */
export const INLINE_IMAGE_MAX_BYTES = 1_000_000;
/** The assistant message Q itself pushes when the user interrupts tool use. */
export const INTERRUPT_MARKER = 'Tool uses were interrupted, waiting for the next user prompt';

const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpeg: 'image/jpeg',
  jpg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
};

export { isObject } from '../../model/json-value.ts';

/** A copy of a stored value without the bulky parts: image byte arrays and per-chunk timings. */
export function sanitize(value: unknown): unknown {
  if (value === undefined) return undefined;
  return JSON.parse(
    JSON.stringify(value, (key, v: unknown) => {
      if (key === 'Bytes' && Array.isArray(v)) return `[${v.length} bytes omitted]`;
      if (key === 'time_between_chunks' && Array.isArray(v)) return `[${v.length} timings omitted]`;
      return v;
    }),
  );
}

export function hash(text: string): string {
  return createHash('sha1').update(text).digest('hex').slice(0, 16);
}

export function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 120 ? `${line.slice(0, 117)}…` : line;
}

export function textSegment(channel: MessageSegment['channel'], text: string, format = 'text'): MessageSegment {
  return { channel, type: 'text', format, text };
}

export function imageSegment(image: QImage): MessageSegment {
  const format = typeof image?.format === 'string' ? image.format : 'unknown';
  const mediaType = IMAGE_TYPES[format.toLowerCase()] ?? 'application/octet-stream';
  const bytes = image?.source?.Bytes;
  if (!Array.isArray(bytes)) {
    return {
      channel: 'input',
      type: 'image',
      format: 'image',
      media: { media_type: mediaType, omitted: 'image not stored as bytes' },
    };
  }
  if (bytes.length > INLINE_IMAGE_MAX_BYTES) {
    return {
      channel: 'input',
      type: 'image',
      format: 'image',
      media: {
        media_type: mediaType,
        size_bytes: bytes.length,
        omitted: `image of ${bytes.length} bytes is larger than 1 MB; not kept`,
      },
    };
  }
  const data = Buffer.from(Uint8Array.from(bytes as number[])).toString('base64');
  return {
    channel: 'input',
    type: 'image',
    format: 'image',
    media: { media_type: mediaType, size_bytes: bytes.length, data_uri: `data:${mediaType};base64,${data}` },
  };
}
