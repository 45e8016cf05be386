import type { SourceId } from '../model/message.ts';
import type { HistoryPrompt, Session, SessionSummary } from '../model/session.ts';
import type { WarningSink } from '../util/warnings.ts';

export interface SourceContext {
  home: string;
  env: NodeJS.ProcessEnv;
  /** Source-specific location overrides from the command line (e.g. `claudeDir`). */
  options: Record<string, string | string[] | undefined>;
  warn: WarningSink;
  /** Sessions the archive already holds (`<source>/<sessionId>`), so a source can tell copies from originals. */
  archived: ReadonlySet<string>;
  /** The archived copy of one of this source's sessions, e.g. to keep times first seen in an earlier run. */
  loadArchived?: (sessionId: string) => Promise<Session | undefined>;
  /** Tells the collector a location could not be read this run (locked, corrupt): the sessions archived from it
   * are not to be taken as gone from their source. */
  unavailable?: (file: string) => void;
  /** Notes a file's size and mtime before it is read, so the next run can tell whether it changed since. */
  stamp?: (file: string) => Promise<void>;
  /** The archived sessions built from exactly these files, when none of the files changed since; else undefined
   * (read them). Synchronous: a warm collect asks it once per session, thousands of times. */
  unchanged?: (files: string[]) => string[] | undefined;
  /** For a prompt history file (history.jsonl, logs.json): true when it is as it was when the last collect read
   * it (same stamp, same `context`: whatever else its prompts were made from, e.g. the project they are filed
   * under), so it is not read again (its prompts are in the archive); false when it is to be read, and the
   * prompts yielded until the next history file are counted as its own. */
  historyUnchanged?: (file: string, context?: string) => boolean;
  /** What a worker thread needs to write a session to the archive itself (yielding `prepared`). */
  prepare?: PrepareContext;
}

export interface PrepareContext {
  dataDir: string;
  collectedAt: string;
  bodyPath: (sessionId: string) => string;
  /** Where to keep what a reader needs to carry on with a grown file next time (derived, may vanish). */
  resumePath: (sessionId: string) => string;
  /** The archive holds this session (a partial read must then not replace it). */
  isArchived: (sessionId: string) => boolean;
}

export interface SourceLocation {
  /** Every place looked at, in order. */
  looked: string[];
  /** The ones that exist and will be read. */
  found: string[];
}

export type SourceItem =
  | { kind: 'session'; session: Session }
  | { kind: 'prompt'; prompt: HistoryPrompt }
  /** Sessions whose files have not changed since the archive's copy was made: kept as they are. */
  | { kind: 'unchanged'; sessionIds: string[] }
  /** A session a worker thread read, summarized and (unless `written` is false) wrote to the archive. */
  | { kind: 'prepared'; summary: SessionSummary; partial: boolean; written: boolean; resumed?: boolean };

/** One assistant's on-disk history: where it lives and how to read it into normalized sessions. */
export interface Source {
  id: SourceId;
  label: string;
  locate(ctx: SourceContext): Promise<SourceLocation>;
  read(location: SourceLocation, ctx: SourceContext): AsyncIterable<SourceItem>;
}
