/** The parts of Amazon Q / Kiro CLI's `ConversationState` JSON we read (FORMATS.md §3.3). Serde's externally
 * tagged enums become objects with one key (`{ Prompt: {…} }`). Everything is optional: builds from mid 2025
 * to 2026 add and drop fields, and unknown fields are passed through. */

export interface QRequestMetadata {
  request_id?: string | null;
  message_id?: string | null;
  request_start_timestamp_ms?: number | null;
  stream_end_timestamp_ms?: number | null;
  time_between_chunks?: unknown[];
  user_prompt_length?: number;
  response_size?: number;
  chat_conversation_type?: string | null;
  tool_use_ids_and_names?: Array<[string, string]>;
  model_id?: string | null;
  message_meta_tags?: string[];
  [key: string]: unknown;
}

export interface QImage {
  format?: string;
  source?: { Bytes?: unknown } & Record<string, unknown>;
}

export interface QToolUseResult {
  tool_use_id?: string;
  content?: Array<{ Text?: string; Json?: unknown } & Record<string, unknown>>;
  status?: string;
}

export interface QUserMessage {
  additional_context?: string | null;
  env_context?: { env_state?: { current_working_directory?: string; operating_system?: string } | null } | null;
  content?: {
    Prompt?: { prompt?: string };
    ToolUseResults?: { tool_use_results?: QToolUseResult[] };
    CancelledToolUses?: { prompt?: string | null; tool_use_results?: QToolUseResult[] };
    [key: string]: unknown;
  };
  timestamp?: string | null;
  images?: QImage[] | null;
}

export interface QToolUse {
  id?: string;
  name?: string;
  orig_name?: string;
  args?: unknown;
  orig_args?: unknown;
}

export interface QAssistantMessage {
  Response?: { message_id?: string | null; content?: string };
  ToolUse?: { message_id?: string | null; content?: string; tool_uses?: QToolUse[] };
  [key: string]: unknown;
}

/** One element of `history`: a tuple (builds up to 2025-07-22) or an object (later builds). */
export type QHistoryEntry =
  | [QUserMessage, QAssistantMessage]
  | { user?: QUserMessage; assistant?: QAssistantMessage; request_metadata?: QRequestMetadata | null };

export interface QConversationState {
  conversation_id?: string;
  next_message?: QUserMessage | null;
  history?: unknown[];
  valid_history_range?: [number, number];
  transcript?: unknown[];
  latest_summary?: null | string | [string, QRequestMetadata | null];
  model?: string | null;
  model_info?: { model_id?: string; model_name?: string } | null;
  tangent_state?: { main_history?: unknown[] } | null;
  [key: string]: unknown;
}
