/**
 * OpenCode's stored records as we read them (docs/formats/opencode.md). Shapes from sst/opencode (now
 * anomalyco/opencode) `packages/opencode/src/session/message-v2.ts` (`MessageV2.User`, `MessageV2.Assistant`,
 * the `Part` union) and `session/session.sql.ts` (tables `session`, `message`, `part`). Every field is optional
 * here: rows are checked as they are read, and a wrong-typed field costs that field or that record only.
 */

/** One `session` row (or `storage/session/<project>/<id>.json`). */
export interface OcSessionRow {
  id: string;
  parentId?: string;
  projectId?: string;
  /** The working directory the session ran in (`session.directory`). */
  directory?: string;
  title?: string;
  /** OpenCode's version that created the session. */
  version?: string;
  agent?: string;
  timeCreated?: number;
  timeUpdated?: number;
  /** Where it was read from: the database, or the session's JSON file. */
  file: string;
}

/** One `message` row (or `storage/message/<session>/<id>.json`): `data` is the message info as JSON text. */
export interface OcMessageRow {
  id: string;
  sessionId: string;
  timeCreated?: number;
  data: string;
  file: string;
}

/** One `part` row (or `storage/part/<message>/<id>.json`). */
export interface OcPartRow {
  id: string;
  messageId: string;
  data: string;
  file: string;
}

/** What a session's records are read through: the database and the JSON tree give the same rows. */
export interface OcSessionRecords {
  messages: OcMessageRow[];
  /** Parts by message id, in id order (ids are ascending in time). */
  parts: Map<string, OcPartRow[]>;
}

export interface OcTokens {
  input?: number;
  output?: number;
  reasoning?: number;
  cache?: { read?: number; write?: number };
}

/** `MessageV2.User` / `MessageV2.Assistant` without id and sessionID (kept in columns). */
export interface OcMessageInfo {
  role?: string;
  time?: { created?: number; completed?: number };
  /** Assistant. */
  modelID?: string;
  providerID?: string;
  /** User (newer): `{ providerID, modelID }`. */
  model?: { providerID?: string; modelID?: string };
  agent?: string;
  mode?: string;
  path?: { cwd?: string; root?: string };
  cost?: number;
  tokens?: OcTokens;
  error?: { name?: string; data?: { message?: string } };
  /** Assistant: a compaction summary. User: `{ title, body, diffs }`. */
  summary?: unknown;
  finish?: string;
  parentID?: string;
  [key: string]: unknown;
}

export interface OcToolState {
  status?: string;
  input?: unknown;
  raw?: string;
  output?: unknown;
  error?: unknown;
  title?: string;
  metadata?: Record<string, unknown>;
  time?: { start?: number; end?: number; compacted?: number };
}

export interface OcPart {
  type?: string;
  text?: string;
  synthetic?: boolean;
  ignored?: boolean;
  time?: { start?: number; end?: number; created?: number };
  /** tool */
  callID?: string;
  tool?: string;
  state?: OcToolState;
  /** step-finish */
  reason?: string;
  cost?: number;
  tokens?: OcTokens;
  /** file */
  mime?: string;
  filename?: string;
  url?: string;
  /** patch */
  files?: unknown;
  hash?: string;
  /** agent, subtask */
  name?: string;
  prompt?: string;
  description?: string;
  agent?: string;
  command?: string;
  /** compaction */
  auto?: boolean;
  /** retry */
  attempt?: number;
  error?: unknown;
  [key: string]: unknown;
}

export { isObject, str } from '../../model/json-value.ts';

export const num = (v: unknown): number | undefined => {
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : undefined;
};

/** ISO-8601 UTC of an epoch-milliseconds time, when it is one. */
export function isoOf(ms: unknown): string | undefined {
  const n = num(ms);
  return n !== undefined && n > 0 ? new Date(n).toISOString() : undefined;
}
