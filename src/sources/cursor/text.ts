import type { Draft } from './builder.ts';

import { isObject, str } from '../../model/json-value.ts';

export { isObject, str };

/** ISO UTC of an epoch-ms number or an ISO-ish string; undefined when it is neither. */
export function isoOf(value: unknown): string | undefined {
  let ms: number | undefined;
  if (typeof value === 'number' && Number.isFinite(value) && value > 0) ms = value > 1e12 ? value : value * 1000;
  else if (typeof value === 'string' && value) ms = Date.parse(value);
  return ms !== undefined && Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

const QUERY = /<user_query>\s*([\s\S]*?)\s*<\/user_query>/;
const TIMESTAMP = /<timestamp>\s*([\s\S]*?)\s*<\/timestamp>/;

/**
 * A user turn as the agent's transcript writes it: the typed prompt inside `<user_query>`, other tags around it
 * (attached files, rules, a `<timestamp>`) being context the editor added. Without the tag, it is all prompt.
 */
export function splitUserText(text: string): { prompt: string; context: string; time?: string } {
  const query = QUERY.exec(text);
  const stamp = TIMESTAMP.exec(text);
  const time = stamp ? isoOf(stamp[1]) : undefined;
  if (!query) return { prompt: text.trim(), context: '', ...(time ? { time } : {}) };
  const context = text.replace(query[0], '').trim();
  return { prompt: query[1]!, context, ...(time ? { time } : {}) };
}

export function promptDrafts(text: string): Draft[] {
  const { prompt, context } = splitUserText(text);
  const out: Draft[] = [];
  if (context) {
    out.push({
      role: 'system',
      source_type: 'message',
      segments: [{ channel: 'system', type: 'text', format: 'text', text: context }],
      metadata: { kind: 'injected' },
    });
  }
  if (prompt || !context) {
    out.push({
      role: 'user',
      source_type: 'message',
      segments: [{ channel: 'input', type: 'text', format: 'text', text: prompt }],
      metadata: { kind: 'prompt' },
    });
  }
  return out;
}

export function unknownDraft(subtype: string): Draft {
  return { role: 'meta', source_type: 'meta', segments: [], metadata: { kind: 'unknown', subtype } };
}

/** A tool's input as text and as JSON (a JSON string is parsed; other text is kept as written). */
export function argumentsOf(input: unknown): { arguments: string; arguments_json: unknown } {
  let value: unknown = input ?? {};
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      return { arguments: value as string, arguments_json: value };
    }
  }
  return { arguments: typeof value === 'string' ? value : JSON.stringify(value, null, 2), arguments_json: value };
}

/** Text of a content value: a string, text blocks, or JSON for anything else. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (typeof b === 'string' ? b : isObject(b) && typeof b.text === 'string' ? b.text : ''))
      .filter(Boolean)
      .join('\n');
  }
  if (content === undefined || content === null) return '';
  return JSON.stringify(content, null, 2);
}
