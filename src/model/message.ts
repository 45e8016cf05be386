/**
 * The normalized message model: seed 004's NormalizedMessage, generalized so that
 * Claude Code, Codex and Amazon Q all map onto the same shape.
 */

export const SOURCE_IDS = [
  'claude-code',
  'codex',
  'amazon-q',
  'gemini-cli',
  'qwen-code',
  'copilot-cli',
  'cursor',
  'opencode',
  'goose',
  'cline',
  'messages',
] as const;
export type SourceId = (typeof SOURCE_IDS)[number];

export type Role = 'user' | 'assistant' | 'tool' | 'system' | 'meta';
export type SourceType = 'message' | 'tool_call' | 'tool_result' | 'meta' | 'session' | 'legacy';

export interface MessageSegment {
  channel: 'input' | 'output' | 'system';
  type: 'text' | 'image';
  /** The source's own block type, kept verbatim (`text`, `thinking`, `input_text`, `image`…). */
  format: string;
  /** Plain text as the source wrote it (never HTML). */
  text?: string;
  /** Sanitized HTML rendered from `text` when the text is Markdown (assistant and user prose). */
  html?: string;
  media?: { media_type?: string; data_uri?: string; url?: string; size_bytes?: number; omitted?: string };
  annotations?: unknown[];
}

export type ToolStatus = 'completed' | 'error' | 'unanswered' | 'rejected';

export interface ToolCall {
  call_id: string;
  name: string;
  status: ToolStatus;
  /** Tool input as text (JSON for structured inputs). Only on the call. */
  arguments?: string;
  arguments_json?: unknown;
  /** Tool output as text. Only on the result. */
  output?: string;
  output_json?: unknown;
  /** On a call: the id of the message that carries its result. */
  result_id?: string;
}

export interface RawRef {
  event_type: string;
  payload_type?: string;
  file_path: string;
  /** 1-based line number in `file_path`. */
  line_index: number;
  uuid?: string;
  /** Only for record types we do not understand: the whole record, so nothing is lost. */
  record?: unknown;
}

/** What kind of user/system text this is, for display and counting. */
export type MessageKind =
  | 'prompt'
  | 'response'
  | 'thinking'
  | 'command'
  | 'command_output'
  | 'injected'
  | 'interrupt'
  | 'compact_boundary'
  | 'compact_summary'
  | 'api_error'
  | 'system_event'
  | 'title'
  | 'unknown';

export interface TokenUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheCreation: number;
  /** The part of `cacheCreation` written to the 1-hour cache (Claude's `usage.cache_creation`); the rest is
   * 5-minute. Absent: none (or not known, in archives written before it was kept). */
  cacheCreation1h?: number;
}

export interface MessageMetadata {
  kind?: MessageKind;
  /** Groups the messages of one model response (Claude `message.id`). */
  response_id?: string;
  model?: string;
  /** Usage of the whole response, set once on its first message. */
  usage?: TokenUsage;
  is_meta?: boolean;
  /** System/meta subtype (`compact_boundary`, `turn_duration`, attachment type…). */
  subtype?: string;
  /** For `compact_boundary`. */
  compact?: { trigger?: string; pre_tokens?: number };
  [key: string]: unknown;
}

export interface NormalizedMessage {
  /** Stable id: `<timestamp>#<line>` (subagent lines prefixed with their agent id). */
  id: string;
  /** ISO-8601 UTC. */
  timestamp: string;
  /** True when the source had no time for this record and it was inferred from neighbours. */
  timestamp_estimated?: boolean;
  role: Role;
  source_type: SourceType;
  segments: MessageSegment[];
  tool_call?: ToolCall;
  raw: RawRef;
  metadata?: MessageMetadata;
}

/** A message as a source first makes it, before it has its id, time and raw reference. */
export type MessageDraft = Pick<NormalizedMessage, 'role' | 'source_type' | 'segments' | 'tool_call' | 'metadata'>;
