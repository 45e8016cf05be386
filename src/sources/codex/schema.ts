/**
 * The on-disk shapes of Codex CLI histories (FORMATS.md §2). Every field is optional: the format
 * changed every few weeks, and unknown fields and types are normal.
 */

/** `{timestamp, type, payload}`, the line envelope since ≈0.3x (FORMATS.md §2.2). */
export interface RolloutLine {
  timestamp?: string;
  ordinal?: number;
  type?: string;
  payload?: unknown;
}

export type SessionSource =
  | string
  | {
      subagent?:
        | string
        | {
            thread_spawn?: {
              parent_thread_id?: string;
              depth?: number;
              agent_path?: string | null;
              agent_nickname?: string | null;
              agent_role?: string | null;
            };
            [kind: string]: unknown;
          };
    };

export interface SessionMetaPayload {
  id?: string;
  session_id?: string;
  forked_from_id?: string | null;
  parent_thread_id?: string | null;
  timestamp?: string;
  cwd?: string;
  originator?: string;
  cli_version?: string;
  instructions?: string | null;
  base_instructions?: { text?: string } | null;
  source?: SessionSource;
  model_provider?: string;
  agent_nickname?: string | null;
  agent_role?: string | null;
  agent_path?: string | null;
  git?: { commit_hash?: string; branch?: string; repository_url?: string } | null;
}

export interface TurnContextPayload {
  turn_id?: string;
  cwd?: string;
  model?: string;
  effort?: string;
  summary?: string;
  approval_policy?: string;
  sandbox_policy?: unknown;
  collaboration_mode?: { mode?: string; settings?: { model?: string } };
}

export interface ContentItem {
  type?: string;
  text?: string;
  image_url?: string | null;
  detail?: string;
  encrypted_content?: string;
}

/** A Responses API item: `response_item.payload`, a bare legacy line, or an item of the TS-era `.json`. */
export interface ResponseItem {
  type?: string;
  /** Legacy lines name their type here. */
  record_type?: string;
  id?: string | null;
  role?: string;
  content?: ContentItem[] | string | null;
  /** Legacy `record_type: "message"` lines carry the text directly. */
  text?: string;
  phase?: string;
  summary?: { type?: string; text?: string }[] | null;
  encrypted_content?: string | null;
  name?: string;
  namespace?: string | null;
  arguments?: unknown;
  input?: unknown;
  call_id?: string;
  output?: unknown;
  status?: string;
  action?: unknown;
  execution?: string;
  author?: string;
  recipient?: string;
}

export interface TokenUsageCounts {
  input_tokens?: number;
  cached_input_tokens?: number;
  output_tokens?: number;
  reasoning_output_tokens?: number;
  total_tokens?: number;
}

export interface TokenCountInfo {
  total_token_usage?: TokenUsageCounts;
  last_token_usage?: TokenUsageCounts;
  model_context_window?: number | null;
}

export interface EventPayload {
  type?: string;
  /** Seed 004 names the event kind `kind`; the real files use `type`. */
  kind?: string;
  message?: string;
  text?: string;
  images?: string[] | null;
  local_images?: string[] | null;
  info?: TokenCountInfo | null;
  call_id?: string;
  exit_code?: number;
  duration?: { secs?: number; nanos?: number } | string | number;
  aggregated_output?: string;
  formatted_output?: string;
  stdout?: string;
  stderr?: string;
  success?: boolean;
  status?: string;
  changes?: Record<string, unknown>;
  result?: { Ok?: { content?: unknown[]; isError?: boolean }; Err?: unknown } | unknown;
  invocation?: { server?: string; tool?: string; arguments?: unknown };
  reason?: string;
  thread_name?: string;
  new_thread_id?: string;
  new_agent_nickname?: string;
  new_agent_role?: string;
  turn_id?: string;
  duration_ms?: number;
}

export interface CompactedPayload {
  message?: string;
  replacement_history?: unknown[];
  window_id?: string;
  window_number?: number;
}

/** Legacy (≈May–Sep 2025) first line: `{id, timestamp, instructions, git?}` with no `type`. */
export interface LegacyHeader {
  id?: string;
  timestamp?: string;
  instructions?: string | null;
  cwd?: string;
  originator?: string;
  cli_version?: string;
  git?: { branch?: string } | null;
}

/** TypeScript-era (Apr–May 2025) `rollout-YYYY-MM-DD-<uuid>.json`. */
export interface TsRolloutFile {
  session?: { timestamp?: string; id?: string; instructions?: string | null };
  items?: ResponseItem[];
}

/** `~/.codex/history.jsonl` (FORMATS.md §2.9): `ts` is epoch seconds. */
export interface CodexHistoryLine {
  session_id?: string;
  ts?: number;
  text?: string;
}

/** `~/.codex/session_index.jsonl`: thread names. */
export interface SessionIndexLine {
  id?: string;
  thread_name?: string;
  updated_at?: string;
}
