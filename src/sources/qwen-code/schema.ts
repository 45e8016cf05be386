import type { MessageDraft } from '../../model/message.ts';

/**
 * Qwen Code's chat recording: one `ChatRecord` per line, as written by
 * `packages/core/src/services/chatRecordingService.ts` (QwenLM/qwen-code). Everything is optional here: versions
 * differ, and a field of the wrong type costs only that field.
 */

/** `usageMetadata`: the API's `GenerateContentResponseUsageMetadata` (newer), or the summary `{input, output,
 * cached, thoughts, tool, total}` the first JSONL versions wrote. */
export interface QwenUsage {
  promptTokenCount?: number;
  candidatesTokenCount?: number;
  cachedContentTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
  input?: number;
  output?: number;
  cached?: number;
  thoughts?: number;
  tool?: number;
  total?: number;
}

/** `toolCallResult` on a `tool_result` record (`ToolCallResponseInfo` and the scheduler's `status`). */
export interface QwenToolCallResult {
  callId?: string;
  status?: string;
  resultDisplay?: unknown;
  error?: unknown;
  errorType?: string;
}

/** One line: `type` user | assistant | tool_result | system; `message` a `Content` `{role, parts}`. */
export interface QwenRecord {
  uuid?: string;
  parentUuid?: string | null;
  sessionId?: string;
  timestamp?: string;
  type?: string;
  subtype?: string;
  cwd?: string;
  version?: string;
  gitBranch?: string;
  message?: { role?: string; parts?: unknown[] };
  usageMetadata?: QwenUsage;
  model?: string;
  toolCallResult?: QwenToolCallResult;
  systemPayload?: Record<string, unknown>;
  agentId?: string;
  agentName?: string;
  isSidechain?: boolean;
}

export interface Draft extends MessageDraft {
  unknown?: boolean;
}

/** What the normalizer learnt about the session besides its messages. */
export interface Findings {
  sessionId?: string;
  cwd?: string;
  gitBranch?: string;
  version?: string;
  models: string[];
  firstPrompt?: string;
  /** The last `custom_title` (a `/rename`, or the generated title). */
  customTitle?: string;
}

export { isObject, str } from '../../model/json-value.ts';

/** A positive finite number, else 0. */
export const count = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
