/**
 * The records of a GitHub Copilot CLI session log (`~/.copilot/session-state/<id>/events.jsonl`), as far as this
 * reader uses them. Taken from github/copilot-sdk `nodejs/src/generated/session-events.ts` (generated from
 * `session-events.schema.json`); every field is optional here because old and new CLI versions differ and a
 * record is checked before use. See docs/formats/copilot-cli.md.
 */

/** The envelope of every line. `agentId` is set on the events of a subagent (the `task` call that started it). */
export interface CopilotEvent {
  type: string;
  data?: unknown;
  id?: string;
  timestamp?: string;
  parentId?: string | null;
  agentId?: string;
  ephemeral?: boolean;
}

export interface WorkingDirectoryContext {
  cwd?: string;
  gitRoot?: string;
  branch?: string;
  repository?: string;
  headCommit?: string;
}

export interface StartData {
  sessionId?: string;
  version?: number;
  producer?: string;
  copilotVersion?: string;
  startTime?: string;
  selectedModel?: string;
  context?: WorkingDirectoryContext;
}

export interface ToolRequest {
  toolCallId?: string;
  name?: string;
  arguments?: unknown;
  intentionSummary?: string | null;
  mcpServerName?: string;
}

export interface AssistantMessageData {
  messageId?: string;
  apiCallId?: string;
  model?: string;
  content?: string;
  reasoningText?: string;
  toolRequests?: ToolRequest[];
  outputTokens?: number;
  parentToolCallId?: string;
}

export interface ToolStartData {
  toolCallId?: string;
  toolName?: string;
  arguments?: unknown;
  model?: string;
  parentToolCallId?: string;
}

export interface ToolCompleteData {
  toolCallId?: string;
  success?: boolean;
  model?: string;
  result?: { content?: string; detailedContent?: string; contents?: unknown[] };
  error?: { code?: string; message?: string };
  parentToolCallId?: string;
}

export interface ModelMetric {
  requests?: { count?: number; cost?: number };
  usage?: {
    inputTokens?: number;
    outputTokens?: number;
    cacheReadTokens?: number;
    cacheWriteTokens?: number;
    reasoningTokens?: number;
  };
}

export interface ShutdownData {
  shutdownType?: string;
  errorReason?: string;
  totalPremiumRequests?: number;
  modelMetrics?: Record<string, ModelMetric | undefined>;
  codeChanges?: { linesAdded?: number; linesRemoved?: number; filesModified?: string[] };
  currentModel?: string;
}

/** `workspace.yaml` beside `events.jsonl`: flat `key: value` lines written by the CLI. */
export interface Workspace {
  id?: string;
  cwd?: string;
  git_root?: string;
  repository?: string;
  branch?: string;
  summary?: string;
  name?: string;
  created_at?: string;
  updated_at?: string;
}
