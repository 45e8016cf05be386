/**
 * Goose's stored records as we read them (docs/formats/goose.md). Shapes from block/goose
 * `crates/goose/src/session/session_manager.rs` and `migrations.rs` (tables `sessions`, `messages`),
 * `crates/goose/src/conversation/message.rs` (`Message`, `MessageContent`, `MessageMetadata`) and
 * `conversation/tool_result_serde.rs` (a tool call or result as `{status: "success", value}` or
 * `{status: "error", error}`). Every field is optional here: rows are checked as they are read, and a wrong-typed
 * field costs that field or that record only.
 */

import { isObject, str } from '../../model/json-value.ts';

export { isObject, str };

/** One `sessions` row (or, in the older layout, a `<name>.jsonl` file's first line). */
export interface GooseSessionRow {
  id: string;
  /** `name` (schema v4 on), else `description` (what Goose named the session, or the user did). */
  name?: string;
  sessionType?: string;
  workingDir?: string;
  /** epoch ms */
  createdAt?: number;
  updatedAt?: number;
  /** What `updated_at` holds as text: part of the change mark. */
  updatedText?: string;
  tokens: GooseTokenColumns;
  providerName?: string;
  /** `model_config_json.model_name`. */
  model?: string;
  /** `accumulated_cost` (schema v13): dollars, summed over the session's requests. */
  costUsd?: number;
  scheduleId?: string;
  /** Where it was read from: the database, or the session's JSONL file. */
  file: string;
}

/** The session's token columns: `*_tokens` are the last request's, `accumulated_*` the whole session's. */
export interface GooseTokenColumns {
  input?: number;
  output?: number;
  total?: number;
  accumulatedInput?: number;
  accumulatedOutput?: number;
  accumulatedTotal?: number;
}

/** One message as read: a `messages` row, or one line of a JSONL file. */
export interface GooseMessageRecord {
  role?: unknown;
  /** Epoch seconds (`Message.created`, `created_timestamp`). */
  created?: unknown;
  content?: unknown;
  metadata?: unknown;
  /** Where it came from: the row id, or the line number. */
  ref: { file: string; line: number; id?: string };
}

/** One `MessageContent` item (tagged by `type`). */
export interface GooseContent {
  type?: string;
  text?: string;
  /** image */
  data?: string;
  mimeType?: string;
  /** toolRequest / toolResponse / frontendToolRequest / toolConfirmationRequest */
  id?: string;
  toolCall?: { status?: string; value?: { name?: string; arguments?: unknown }; error?: string };
  toolResult?: { status?: string; value?: unknown; error?: string };
  toolName?: string;
  arguments?: unknown;
  prompt?: string;
  /** thinking */
  thinking?: string;
  /** systemNotification */
  notificationType?: string;
  msg?: string;
  /** jsonRenderSpec */
  spec?: string;
  /** actionRequired */
  [key: string]: unknown;
}

export const num = (v: unknown): number | undefined => {
  const n = typeof v === 'bigint' ? Number(v) : typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

/**
 * A `TIMESTAMP` column as Goose writes it: SQLite's `CURRENT_TIMESTAMP` / `datetime('now')` (`YYYY-MM-DD HH:MM:SS`,
 * UTC without a zone) or sqlx's encoding of a `DateTime<Utc>` (RFC 3339 with an offset). Epoch ms, or undefined.
 */
export function timestampMs(value: unknown): number | undefined {
  if (typeof value === 'number') return value > 1e11 ? value : value * 1000;
  if (typeof value !== 'string' || !value) return undefined;
  let text = value.trim().replace(' ', 'T');
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text)) text += 'Z';
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

/** `Message.created`: epoch seconds (milliseconds accepted too, for a value too large to be seconds). */
export function createdMs(value: unknown): number | undefined {
  const n = num(value);
  if (n === undefined || n <= 0) return undefined;
  return n > 1e11 ? n : n * 1000;
}

/** `model_config_json`'s `model_name`. */
export function modelOf(json: unknown): string | undefined {
  if (typeof json !== 'string' || !json) return undefined;
  try {
    const value: unknown = JSON.parse(json);
    return isObject(value) ? str(value.model_name) : undefined;
  } catch {
    return undefined;
  }
}
