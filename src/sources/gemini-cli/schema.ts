/**
 * Gemini CLI's chat recording as written by `packages/core/src/services/chatRecordingService.ts` and typed in
 * `chatRecordingTypes.ts` (google-gemini/gemini-cli). Everything is optional here: files from older and newer
 * versions differ, and a record with a field of the wrong type costs only that field.
 */

/** `tokens` on a `gemini` message: the API's usageMetadata (`input` = promptTokenCount, which includes `cached`;
 * `output` = candidatesTokenCount, without `thoughts`; `tool` = toolUsePromptTokenCount). */
export interface GeminiTokens {
  input?: number;
  output?: number;
  cached?: number;
  thoughts?: number;
  tool?: number;
  total?: number;
}

export interface GeminiThought {
  subject?: string;
  description?: string;
  timestamp?: string;
}

/** `ToolCallRecord`; `status` is the scheduler's: success, error, cancelled, (awaiting_approval, executing…). */
export interface GeminiToolCall {
  id?: string;
  name?: string;
  args?: unknown;
  result?: unknown;
  status?: string;
  timestamp?: string;
  agentId?: string;
  displayName?: string;
  description?: string;
  resultDisplay?: unknown;
  renderOutputAsMarkdown?: boolean;
}

/** `MessageRecord`: `type` user | gemini | info | error | warning; `content` a PartListUnion (a string, a part
 * `{text}` or a list of them). */
export interface GeminiMessage {
  id: string;
  timestamp?: string;
  type?: string;
  content?: unknown;
  displayContent?: unknown;
  toolCalls?: GeminiToolCall[];
  thoughts?: GeminiThought[];
  tokens?: GeminiTokens | null;
  model?: string;
}

/** The session's own fields: the whole `.json` document, the first line of a `.jsonl`, and `$set` updates. */
export interface GeminiSessionMeta {
  sessionId?: string;
  projectHash?: string;
  startTime?: string;
  lastUpdated?: string;
  summary?: string;
  directories?: string[];
  kind?: string;
}

/** One entry of a project's `logs.json` (`packages/core/src/core/logger.ts` `LogEntry`). */
export interface GeminiLogEntry {
  sessionId?: string;
  messageId?: number;
  timestamp?: string;
  type?: string;
  message?: string;
}

export { isObject, str } from '../../model/json-value.ts';

export const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
