import { createHash } from 'node:crypto';
import { saneIsoFromText } from '../../util/time.ts';
import type { ContentItem, SessionMetaPayload } from './schema.ts';

export function parseTime(raw: unknown): string | undefined {
  return saneIsoFromText(raw);
}

const SAFE_ID = /^[\w.-]{1,200}$/;

/** A session_meta's thread id (`session_id ?? id`, FORMATS.md §2.3), when it is a usable id. */
export function idOf(meta: SessionMetaPayload | undefined): string | undefined {
  const id = meta?.id ?? meta?.session_id;
  return typeof id === 'string' && SAFE_ID.test(id) ? id : undefined;
}

export function pick(source: object, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = (source as Record<string, unknown>)[key];
    if (value !== undefined && value !== null && value !== '') out[key] = value;
  }
  return out;
}

/** `encrypted_content` is never kept: only its SHA-256 and length, for "encrypted reasoning". */
export function encryptedOf(item: { encrypted_content?: unknown; content?: unknown }): {
  encrypted_sha256?: string;
  encrypted_length?: number;
} {
  const blobs: string[] = [];
  if (typeof item.encrypted_content === 'string' && item.encrypted_content) blobs.push(item.encrypted_content);
  if (Array.isArray(item.content)) {
    for (const c of item.content as ContentItem[]) {
      if (typeof c?.encrypted_content === 'string' && c.encrypted_content) blobs.push(c.encrypted_content);
    }
  }
  if (blobs.length === 0) return {};
  const joined = blobs.join('');
  return { encrypted_sha256: createHash('sha256').update(joined).digest('hex'), encrypted_length: joined.length };
}

/** A copy of an unknown record with every `encrypted_content` replaced by its hash and length. */
export function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'encrypted_content' && typeof v === 'string') {
        out[k] = `[encrypted: ${v.length} chars, sha256 ${createHash('sha256').update(v).digest('hex')}]`;
      } else out[k] = scrub(v);
    }
    return out;
  }
  return value;
}
