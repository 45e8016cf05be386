import type { TokenUsage } from '../../model/message.ts';
import { openRegular, readFailure } from '../../util/fs.ts';
import { saneIsoFromMs, saneIsoFromText } from '../../util/time.ts';
import { isObject } from './content.ts';

/** A sidecar is one JSON document Kiro rewrites every turn; past this size it is not read (a warning says so). */
export const MAX_META_BYTES = 16 * 1024 * 1024;

/** One `session_state.conversation_metadata.user_turn_metadatas[]` entry: what Kiro recorded of a user turn. */
export interface KiroTurn {
  index: number;
  messageIds: string[];
  endTime?: string;
  model?: string;
  /** Absent when every count is zero or missing: Kiro writes zero placeholders when it has no numbers. */
  usage?: TokenUsage;
  requests?: number;
  credits?: number;
}

/** The parts of `<id>.json` we read (docs/formats/kiro.md). */
export interface KiroMeta {
  sessionId?: string;
  conversationId?: string;
  cwd?: string;
  title?: string;
  createdAt?: string;
  updatedAt?: string;
  parentSessionId?: string;
  agentName?: string;
  model?: string;
  turns: KiroTurn[];
}

/** Reads a sidecar. A missing file is an empty meta; an unreadable or invalid one is a warning message. */
export async function readKiroMeta(file: string | undefined): Promise<{ meta: KiroMeta; problem?: string }> {
  if (!file) return { meta: { turns: [] } };
  let text: string;
  try {
    const handle = await openRegular(file);
    try {
      const { size } = await handle.stat();
      if (size > MAX_META_BYTES) {
        return {
          meta: { turns: [] },
          problem: `metadata over ${MAX_META_BYTES >> 20} MiB; not read (no title, cwd or tokens from it)`,
        };
      }
      text = await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    return { meta: { turns: [] }, problem: `metadata not read (${readFailure(error)})` };
  }
  try {
    return { meta: parseKiroMeta(JSON.parse(text)) };
  } catch (error) {
    // Kiro rewrites the sidecar in place: a read in the middle of a write sees half a document.
    return {
      meta: { turns: [] },
      problem: `metadata is not valid JSON (${(error as Error).message}); read without it`,
    };
  }
}

export function parseKiroMeta(value: unknown): KiroMeta {
  if (!isObject(value)) return { turns: [] };
  const state = isObject(value.session_state) ? value.session_state : {};
  const rts = isObject(state.rts_model_state) ? state.rts_model_state : {};
  const info = isObject(rts.model_info) ? rts.model_info : {};
  const conversation = isObject(state.conversation_metadata) ? state.conversation_metadata : {};
  const turns = Array.isArray(conversation.user_turn_metadatas) ? conversation.user_turn_metadatas : [];
  return {
    sessionId: str(value.session_id),
    conversationId: str(rts.conversation_id),
    cwd: str(value.cwd),
    title: str(value.title),
    createdAt: timeOf(value.created_at),
    updatedAt: timeOf(value.updated_at),
    parentSessionId: str(value.parent_session_id),
    agentName: str(state.agent_name),
    model: str(info.model_id),
    turns: turns.map(parseTurn),
  };
}

function parseTurn(raw: unknown, index: number): KiroTurn {
  const t = isObject(raw) ? raw : {};
  const count = (key: string) => {
    const n = t[key];
    return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : 0;
  };
  const usage: TokenUsage = {
    input: count('input_token_count'),
    output: count('output_token_count'),
    cacheRead: count('cache_read_input_token_count'),
    cacheCreation: count('cache_write_input_token_count'),
  };
  const recorded = usage.input + usage.output + usage.cacheRead + usage.cacheCreation > 0;
  let credits = 0;
  let metered = false;
  for (const m of Array.isArray(t.metering_usage) ? t.metering_usage : []) {
    if (isObject(m) && m.unit === 'credit' && typeof m.value === 'number' && Number.isFinite(m.value) && m.value >= 0) {
      credits += m.value;
      metered = true;
    }
  }
  const requests = t.total_request_count;
  return {
    index,
    messageIds: Array.isArray(t.message_ids) ? t.message_ids.filter((id): id is string => typeof id === 'string') : [],
    ...(timeOf(t.end_timestamp) ? { endTime: timeOf(t.end_timestamp) } : {}),
    ...(str(t.model) ? { model: str(t.model) } : {}),
    ...(recorded ? { usage } : {}),
    ...(typeof requests === 'number' && Number.isFinite(requests) ? { requests } : {}),
    ...(metered ? { credits } : {}),
  };
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value : undefined;
}

/** Kiro writes times as ISO text (`created_at`, most `end_timestamp`s) or epoch seconds (`meta.timestamp`,
 * `end_timestamp` in some builds); a number below 1e11 is taken as seconds, else milliseconds. */
export function timeOf(value: unknown): string | undefined {
  if (typeof value === 'number') return saneIsoFromMs(value < 1e11 ? value * 1000 : value);
  if (typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())) return timeOf(Number(value));
  return saneIsoFromText(value);
}
