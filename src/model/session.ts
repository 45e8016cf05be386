import type { NormalizedMessage, SourceId, TokenUsage } from './message.ts';
import type { RepositoryInfo } from './project.ts';

export type ConversationPattern = 'simple' | 'single_tool' | 'multi_tool' | 'incomplete';

/** Activity inside one 15-minute UTC slot: every real time zone offset is a multiple of 15 minutes,
 * so days and weeks can be bucketed in any `--tz` at build time without re-reading messages. */
export interface ActivitySlot {
  entries: number;
  toolUses: number;
  toolUsesByName: Record<string, number>;
  prompts: number;
  tokens: TokenUsage;
  /** Files the slot's tool calls edited (Edit/Write/MultiEdit/apply_patch…), path → edits. Absent in archives
   * collected before it existed, and in slots with no edits. */
  filesEdited?: Record<string, number>;
  /** `tokens` by model (see `SessionStats.tokensByModel`). Absent in archives written before it was kept. */
  tokensByModel?: Record<string, TokenUsage>;
}

export interface SessionStats {
  /** Model responses (streamed lines of one response count once). Includes subagents. */
  entries: number;
  /** Entries that request one or more tools. */
  toolRounds: number;
  toolUses: number;
  toolUsesByName: Record<string, number>;
  toolErrors: number;
  toolErrorsByName: Record<string, number>;
  /** Tool calls the user refused (a permission prompt answered no, a cancelled call): not errors. Absent in
   * archives collected before it existed. */
  toolRefusals?: number;
  toolRefusalsByName?: Record<string, number>;
  /** Entries of the main thread, and of subagent threads (they add up to `entries`). Absent in older archives. */
  mainEntries?: number;
  subagentEntries?: number;
  /** Real human prompts (not injected, not commands, not tool results). */
  prompts: number;
  messages: number;
  pattern: ConversationPattern;
  tokens: TokenUsage;
  /** `tokens` by the model that answered; requests whose prompt exceeded 200k tokens (long-context price tier)
   * under `<model> (>200k)`. Absent in archives written before it was kept: cost is then not known. */
  tokensByModel?: Record<string, TokenUsage>;
  /** Keyed by the slot's UTC start, `YYYY-MM-DDTHH:MM`. */
  activity: Record<string, ActivitySlot>;
  /** Dollars the assistant itself recorded for its requests (OpenCode, Cline); absent when it records none. */
  recordedUsd?: number;
  /** Copilot CLI's premium requests (its cost unit); absent for other assistants. */
  premiumRequests?: number;
}

export interface PromptRef {
  timestamp: string;
  /** The prompt text, shortened for indexes. */
  text: string;
}

export interface SubagentThread {
  agentId: string;
  agentType?: string;
  description?: string;
  /** The tool call (Task/Agent) that spawned it, when known. */
  parentCallId?: string;
  file: string;
  messages: NormalizedMessage[];
}

export interface Session {
  source: SourceId;
  sessionId: string;
  title: string;
  /** Working directory the session ran in; the project. */
  cwd: string;
  gitBranch?: string;
  startedAt: string;
  endedAt: string;
  models: string[];
  cliVersion?: string;
  /** Source files this session was read from. */
  files: string[];
  messages: NormalizedMessage[];
  subagents: SubagentThread[];
  warnings: string[];
  /** Sessions whose records a resume copied into this one (counted there, not here). */
  resumedFrom?: string[];
  /** Sessions of the same source that this one now holds as threads (Roo Code's subtasks), which an earlier
   * version archived on their own: collect drops those copies, so their messages and tokens count once. */
  absorbed?: string[];
  /** The main transcript is gone; only some of the session's files were read. */
  partial?: boolean;
}

/** A session's threads: what a view of its messages reads. */
export type SessionThreads = Pick<Session, 'messages' | 'subagents'>;

/** What one page of a session reads from its body: its slice of the main thread, the subagents its calls
 * spawned, and the sessions it was resumed from (see PagedBody). */
export interface SessionPageContent extends SessionThreads {
  resumedFrom?: string[];
}

/** The small per-session record the site indexes (an Astro collection entry). */
export interface SessionSummary {
  /** `<source>/<sessionId>` */
  id: string;
  source: SourceId;
  sessionId: string;
  title: string;
  cwd: string;
  /** The project's slug. When summaries are loaded, groupProjects sets it to the repository's (worktrees and
   * clones of one repository are one project). */
  project: string;
  /** Derived when loaded (never stored): the git repository the folder belongs to. */
  repository?: RepositoryInfo;
  gitBranch?: string;
  startedAt: string;
  endedAt: string;
  models: string[];
  cliVersion?: string;
  files: string[];
  /** Size, mtime and inode of each file when it was read (`size:mtimeMs:ino`), for incremental collection. */
  fileStamps?: Record<string, string>;
  /** False once every source file of this session has disappeared: kept from the archive. */
  sourcePresent: boolean;
  collectedAt: string;
  subagents: number;
  stats: SessionStats;
  prompts: PromptRef[];
  /** Path of the message body, relative to the data directory. */
  body: string;
  /** Main-thread message index where each page of the session page starts (absent: one page). */
  pageStarts?: number[];
  /** Real prompts before each page start, parallel to pageStarts (absent: one page, or an older archive). */
  pagePrompts?: number[];
  /** Active time in ms: the sum of gaps under five minutes between main-thread messages (absent: older archive). */
  activeMs?: number;
}

/**
 * What a session's pages after the first show of the session itself (their own messages aside): nothing that
 * changes as the session grows. Its times, tokens and statistics are on its first page only, so the pages
 * before its last are not made again each time it grows.
 */
export type SessionHead = Pick<
  SessionSummary,
  | 'id'
  | 'source'
  | 'sessionId'
  | 'title'
  | 'cwd'
  | 'project'
  | 'gitBranch'
  | 'cliVersion'
  | 'startedAt'
  | 'body'
  | 'pageStarts'
  | 'pagePrompts'
  | 'sourcePresent'
> & {
  /** hadMainTranscript of its files. */
  hadMain: boolean;
};

export function sessionHead(summary: SessionSummary): SessionHead {
  const head: SessionHead = {
    id: summary.id,
    source: summary.source,
    sessionId: summary.sessionId,
    title: summary.title,
    cwd: summary.cwd,
    project: summary.project,
    startedAt: summary.startedAt,
    body: summary.body,
    sourcePresent: summary.sourcePresent,
    hadMain: hadMainTranscript(summary.files),
  };
  if (summary.gitBranch !== undefined) head.gitBranch = summary.gitBranch;
  if (summary.cliVersion !== undefined) head.cliVersion = summary.cliVersion;
  if (summary.pageStarts) head.pageStarts = summary.pageStarts;
  if (summary.pagePrompts) head.pagePrompts = summary.pagePrompts;
  return head;
}

/** A prompt from a prompt-history file (Claude `history.jsonl`, Codex `history.jsonl`). */
export interface HistoryPrompt {
  source: SourceId;
  timestamp: string;
  text: string;
  project?: string;
  sessionId?: string;
}

/** A subagent's transcript file (`agent-<id>.jsonl`, Claude Code's name for them, flat or under `subagents/`). */
export const SUBAGENT_FILE = /^agent-(.+)\.jsonl$/;

/** Whether a session was read with its main transcript, not only from subagent files: only then does a later read
 * without it mean the assistant deleted the transcript. */
export function hadMainTranscript(files: readonly string[]): boolean {
  return files.some(
    (file) => !SUBAGENT_FILE.test(file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1)),
  );
}

/**
 * Where in the main thread a subagent's work happened: the main-thread index of the call that spawned it or,
 * for a subagent spawned by another subagent's call, of the call that spawned that one, and so on. `callIndex`
 * gives main-thread calls' indexes, `callOwner` the subagent whose messages hold a call. Undefined when the chain
 * reaches no main-thread call.
 */
export function subagentAnchor(
  agent: Pick<SubagentThread, 'agentId' | 'parentCallId'>,
  parentOf: ReadonlyMap<string, string | undefined>,
  callIndex: ReadonlyMap<string, number>,
  callOwner: ReadonlyMap<string, string>,
): number | undefined {
  const seen = new Set([agent.agentId]);
  for (let call = agent.parentCallId; call !== undefined;) {
    const at = callIndex.get(call);
    if (at !== undefined) return at;
    const owner = callOwner.get(call);
    if (owner === undefined || seen.has(owner)) return undefined;
    seen.add(owner);
    call = parentOf.get(owner);
  }
  return undefined;
}
