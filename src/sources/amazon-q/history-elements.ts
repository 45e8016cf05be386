import type { QAssistantMessage, QConversationState, QRequestMetadata, QUserMessage } from './schema.ts';
import { hash, isObject, sanitize } from './content.ts';
import { isoFromMs, isoFromText } from './times.ts';

export interface ElementParts {
  form: 'tuple' | 'object' | 'unknown';
  user?: QUserMessage;
  assistant?: QAssistantMessage;
  metadata?: QRequestMetadata;
  raw: unknown;
}

/** Reads an element in either serde form: `[user, assistant]` or `{ user, assistant, request_metadata }`. */
export function elementParts(raw: unknown): ElementParts {
  if (Array.isArray(raw) && raw.length === 2 && isObject(raw[0]) && isObject(raw[1])) {
    return { form: 'tuple', user: raw[0] as QUserMessage, assistant: raw[1] as QAssistantMessage, raw };
  }
  if (isObject(raw) && (isObject(raw.user) || isObject(raw.assistant))) {
    return {
      form: 'object',
      user: isObject(raw.user) ? (raw.user as QUserMessage) : undefined,
      assistant: isObject(raw.assistant) ? (raw.assistant as QAssistantMessage) : undefined,
      metadata: isObject(raw.request_metadata) ? (raw.request_metadata as QRequestMetadata) : undefined,
      raw,
    };
  }
  return { form: 'unknown', raw };
}

export function responseMessageId(assistant: QAssistantMessage | undefined): string | undefined {
  const id = assistant?.Response?.message_id ?? assistant?.ToolUse?.message_id;
  return typeof id === 'string' && id ? id : undefined;
}

/** A key per history element that survives trimming (indexes shift when Q drops the oldest entries). */
export function baseElementKey(parts: ElementParts): string {
  const id = responseMessageId(parts.assistant) ?? parts.metadata?.message_id;
  if (typeof id === 'string' && id) return `h:${id}`;
  return `h:#${hash(JSON.stringify(sanitize(parts.raw)) ?? 'null')}`;
}

export function uniqueKeys(keys: string[]): string[] {
  const seen = new Map<string, number>();
  return keys.map((key) => {
    const n = (seen.get(key) ?? 0) + 1;
    seen.set(key, n);
    return n === 1 ? key : `${key}#${n}`;
  });
}

/** Keys of `tangent_state.main_history`: history elements outside it belong to a `/tangent` side thread. */
export function tangentMainKeys(state: QConversationState): Set<string> | undefined {
  const main = state.tangent_state?.main_history;
  if (!Array.isArray(main)) return undefined;
  return new Set(main.map((raw) => baseElementKey(elementParts(raw))));
}

export interface Summary {
  text: string;
  metadata?: QRequestMetadata;
}

export function summaryOf(state: QConversationState): Summary | undefined {
  const s = state.latest_summary;
  if (typeof s === 'string' && s.trim()) return { text: s };
  if (Array.isArray(s) && typeof s[0] === 'string' && s[0].trim()) {
    return { text: s[0], metadata: isObject(s[1]) ? (s[1] as QRequestMetadata) : undefined };
  }
  return undefined;
}

/** The newest time the data itself records, to pick the freshest of several copies of one conversation. */
export function latestDataTime(state: QConversationState): number | undefined {
  let latest: number | undefined;
  const see = (iso: string | undefined) => {
    if (!iso) return;
    const t = Date.parse(iso);
    if (latest === undefined || t > latest) latest = t;
  };
  for (const raw of Array.isArray(state.history) ? state.history : []) {
    const parts = elementParts(raw);
    see(isoFromText(parts.user?.timestamp));
    see(isoFromMs(parts.metadata?.stream_end_timestamp_ms));
    see(isoFromMs(parts.metadata?.request_start_timestamp_ms));
  }
  see(isoFromText(state.next_message?.timestamp));
  const summary = summaryOf(state);
  see(isoFromMs(summary?.metadata?.stream_end_timestamp_ms));
  return latest;
}
