import type { TokenUsage } from '../../model/message.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { isObject, num, str } from './builder.ts';

/** One `say: "api_req_started"` entry: one model request, with what it cost once it finished. */
export interface ApiRequest {
  ts: number;
  /** 1-based place in ui_messages.json. */
  index: number;
  /** `conversationHistoryIndex`: the API history's last index when the request was made. */
  historyIndex?: number;
  usage?: TokenUsage;
  costUsd?: number;
}

/** A `ui_messages.json` entry that passed the shape check. */
export interface UiMessage {
  ts: number;
  type: string;
  say?: string;
  ask?: string;
  text?: string;
  reasoning?: string;
  images?: unknown[];
  partial?: boolean;
  conversationHistoryIndex?: number;
  /** 1-based place in the file. */
  index: number;
  record: Record<string, unknown>;
}

export interface UiIndex {
  entries: UiMessage[];
  requests: ApiRequest[];
  /** The earliest `ts` of the entries made while the API history's last index was this (see `timeOfApi`). */
  firstByHistoryIndex: Map<number, number>;
}

/** The usage of an `api_req_started` entry's text (`{"request", "tokensIn", "tokensOut", "cacheWrites",
 * "cacheReads", "cost"}`); undefined while it carries no numbers (still streaming, or cancelled early). */
export function requestUsage(value: Record<string, unknown>): TokenUsage | undefined {
  const keys = ['tokensIn', 'tokensOut', 'cacheWrites', 'cacheReads'];
  if (!keys.some((k) => num(value[k]) !== undefined)) return undefined;
  return {
    input: num(value.tokensIn) ?? 0,
    output: num(value.tokensOut) ?? 0,
    cacheRead: num(value.cacheReads) ?? 0,
    cacheCreation: num(value.cacheWrites) ?? 0,
  };
}

export function indexUi(list: unknown[], file: string, warn: WarningSink): UiIndex {
  const entries: UiMessage[] = [];
  const requests: ApiRequest[] = [];
  const firstByHistoryIndex = new Map<number, number>();
  list.forEach((value, i) => {
    const index = i + 1;
    if (!isObject(value) || num(value.ts) === undefined || (value.type !== 'say' && value.type !== 'ask')) {
      warn({
        file,
        line: index,
        message: 'not a UI message (an object with "ts" and "type": "say" or "ask"); skipped',
      });
      return;
    }
    const m: UiMessage = {
      ts: value.ts as number,
      type: value.type,
      say: str(value.say),
      ask: str(value.ask),
      text: typeof value.text === 'string' ? value.text : undefined,
      reasoning: str(value.reasoning),
      images: Array.isArray(value.images) ? value.images : undefined,
      partial: value.partial === true,
      conversationHistoryIndex: num(value.conversationHistoryIndex),
      index,
      record: value,
    };
    entries.push(m);
    const h = m.conversationHistoryIndex;
    if (h !== undefined && !(m.ts >= (firstByHistoryIndex.get(h) ?? Infinity))) firstByHistoryIndex.set(h, m.ts);
    if (m.say === 'api_req_started') {
      let info: Record<string, unknown> = {};
      try {
        const parsed: unknown = JSON.parse(m.text ?? '{}');
        if (isObject(parsed)) info = parsed;
      } catch {
        warn({ file, line: index, message: 'api_req_started text is not JSON; its tokens are not counted' });
      }
      const usage = requestUsage(info);
      const cost = num(info.cost);
      requests.push({
        ts: m.ts,
        index,
        ...(h !== undefined ? { historyIndex: h } : {}),
        ...(usage ? { usage } : {}),
        ...(cost !== undefined ? { costUsd: cost } : {}),
      });
    }
  });
  return { entries, requests, firstByHistoryIndex };
}

/** The time of API history message `i` (0-based): UI entries made while the history's last index was `i - 1`
 * belong to it (the request that sent user message `i`, the text and tools of assistant message `i`). */
export function timeOfApi(ui: UiIndex | undefined, i: number): number | undefined {
  return ui?.firstByHistoryIndex.get(i - 1);
}
