/** The parts of Claude Code's transcript records we read (FORMATS.md §1). Everything is optional:
 * real files from 0.2 to 2.2 omit fields freely, and unknown fields are passed through. */

export interface ClaudeUsage {
  input_tokens?: number;
  output_tokens?: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
  /** The cache writes by lifetime (newer builds); absent: all 5-minute. */
  cache_creation?: { ephemeral_5m_input_tokens?: number; ephemeral_1h_input_tokens?: number };
}

export interface ClaudeContentBlock {
  type: string;
  text?: string;
  thinking?: string;
  data?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
  source?: { type?: string; media_type?: string; data?: string; url?: string };
  [key: string]: unknown;
}

export interface ClaudeRecord {
  type?: string;
  subtype?: string;
  uuid?: string;
  parentUuid?: string | null;
  logicalParentUuid?: string;
  isSidechain?: boolean;
  isMeta?: boolean;
  isCompactSummary?: boolean;
  isApiErrorMessage?: boolean;
  agentId?: string;
  sessionId?: string;
  cwd?: string;
  gitBranch?: string;
  version?: string;
  timestamp?: string;
  requestId?: string;
  content?: unknown;
  level?: string;
  compactMetadata?: { trigger?: string; preTokens?: number };
  message?: {
    id?: string;
    role?: string;
    model?: string;
    content?: string | ClaudeContentBlock[];
    usage?: ClaudeUsage;
  };
  toolUseResult?: unknown;
  sourceToolAssistantUUID?: string;
  attachment?: { type?: string; prompt?: unknown; [key: string]: unknown };
  data?: { type?: string; [key: string]: unknown };
  summary?: string;
  leafUuid?: string;
  customTitle?: string;
  aiTitle?: string;
  snapshot?: { timestamp?: string };
  [key: string]: unknown;
}

export interface ClaudeHistoryLine {
  display?: string;
  timestamp?: number;
  project?: string;
  sessionId?: string;
}

export interface SubagentMeta {
  agentType?: string;
  description?: string;
  toolUseId?: string;
}
