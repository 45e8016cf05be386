import { CallLinks } from './call-links.ts';
import { CopyDetector, type CopySource } from './copy-detection.ts';
import { MessageLog } from './message-log.ts';
import { PromptResolver } from './prompts.ts';
import type { SessionMetaPayload } from './schema.ts';
import { ResponseUsage } from './token-usage.ts';
import type { WarningSink } from '../../util/warnings.ts';

export interface NormalizerOptions {
  /** Prefix of message ids (a subagent thread's own id), so ids stay unique in one session. */
  idPrefix?: string;
  /** The uuid in the file name, the session id when the file has no `session_meta`. */
  nameId?: string;
  /** How to recognise copies of session `id`; undefined when the session is unknown (the copy is then kept). */
  copySource?: (id: string) => CopySource | undefined;
  /** Collect every line's fingerprint (for the sessions that fork or spawn from this one). */
  collectFingerprints?: boolean;
  /** Where a line that is kept but not as the format says (wrong types, arguments that are not JSON) is reported. */
  warn?: WarningSink;
}

/** Everything the lines of one rollout add to, shared by the builders of each kind of record. */
export class RolloutState {
  readonly log: MessageLog;
  readonly responses: ResponseUsage;
  readonly links = new CallLinks();
  readonly prompts = new PromptResolver();
  readonly copies: CopyDetector;
  readonly fingerprints: string[] = [];
  /** Subagent threads this session spawned: child thread id → the spawning call's id. */
  readonly spawnedThreads = new Map<string, string>();
  meta?: SessionMetaPayload;
  sessionId?: string;
  cwd?: string;
  cliVersion?: string;
  gitBranch?: string;
  threadName?: string;
  /** The cwd an injected `<environment_context>` names: the project when no session_meta does. */
  envCwd?: string;
  /** The model of the latest turn_context, given to the responses that follow. */
  model?: string;
  /** Legacy format: the header's time, from which undated lines are counted 1 s apart. */
  legacyStartMs?: number;

  constructor(
    readonly file: string,
    readonly options: NormalizerOptions,
  ) {
    const idPrefix = options.idPrefix ?? '';
    this.log = new MessageLog(file, idPrefix);
    this.responses = new ResponseUsage(idPrefix);
    this.copies = new CopyDetector(options.copySource, this.log, this.responses);
  }

  /** Reports a line kept in a changed form, so the user can find it (`file:line`). */
  warnAt(line: number, message: string): void {
    this.options.warn?.({ file: this.file, line, message });
  }
}
