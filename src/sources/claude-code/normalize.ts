import type { NormalizedMessage } from '../../model/message.ts';
import type { JsonlRecord } from '../../util/jsonl.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { BodyOut } from '../../model/body.ts';
import type { ClaudeRecord } from './schema.ts';
import { addAssistant } from './assistant-records.ts';
import { fingerprint, SeenRecords, type RecordPrints } from './dedupe.ts';
import { MessageWriter } from './message-writer.ts';
import {
  addBookkeeping,
  addProgress,
  addSystem,
  addTitle,
  addUnknown,
  isBookkeepingRecord,
  isTitleRecord,
  warnUnknownTypes,
  type PendingSummary,
  type TitleState,
  type UnknownTypes,
} from './system-records.ts';
import { ToolLinks, type CallLink, type ResultLinks } from './tool-links.ts';
import { ResponseUsages, type ResponseUsage } from './usage.ts';
import { addAttachment, addUser } from './user-records.ts';

export { toolResultText } from './content-blocks.ts';

/** Everything a normalizer remembers between lines (saved with util/state-file.ts): a later run resumes a
 * grown file from it. */
export interface ThreadState {
  thread: string;
  idPrefix: string;
  titles: TitleState;
  cwd?: string;
  gitBranch?: string;
  cliVersion?: string;
  resumedFrom: string[];
  records: Map<string, RecordPrints>;
  unknownTypes: [string, { line: number; count: number }][];
  sidechainRootOf: Map<string, string>;
  sidechains: [string, ThreadState][];
  calls: Map<string, CallLink>;
  results: Map<string, ResultLinks>;
  usage: Map<string, ResponseUsage>;
  lastTimestamp?: string;
  pendingSummaries: PendingSummary[];
  written: number;
}

export interface ThreadOptions {
  /** This file's own session id; records of other sessions that `isOwnedElsewhere` are resume copies. */
  sessionId?: string;
  isOwnedElsewhere?: (sessionId: string) => boolean;
  splitSidechains?: boolean;
  warn?: WarningSink;
}

/**
 * Turns the records of one transcript file (a session's main file or one subagent file) into normalized
 * messages, written to `out` as they are made, so a file of any size streams through. Feed records in file
 * order, then call `finish()`. What a later line changes in a written message (a call's result, a
 * response's final usage) goes out as a patch. `snapshot()` and `restore()` let a later run go on
 * reading a file that grew.
 */
export class ThreadNormalizer {
  readonly titles: TitleState = {};
  cwd?: string;
  gitBranch?: string;
  cliVersion?: string;
  /** Inline sidechain records (1.x), grouped by the root of their chain. */
  readonly sidechains = new Map<string, ThreadNormalizer>();
  /** Sessions whose records were copied into this file by a resume. */
  readonly resumedFrom = new Set<string>();
  /** Messages written so far. */
  written = 0;
  /** Messages had to take the file's mtime as their time: a grown file cannot be resumed from here. */
  datedByMtime = false;

  private seen = new SeenRecords();
  private readonly unknownTypes: UnknownTypes = new Map();
  private sidechainRootOf = new Map<string, string>();
  private links: ToolLinks;
  private usage = new ResponseUsages();
  private readonly writer: MessageWriter;
  private pendingSummaries: PendingSummary[] = [];

  constructor(
    private readonly file: string,
    readonly thread: string,
    private readonly idPrefix: string,
    private readonly out: BodyOut,
    private readonly options: ThreadOptions = {},
  ) {
    this.links = new ToolLinks(out, thread);
    this.writer = new MessageWriter(file, idPrefix, (m) => this.emit(m), options.warn);
  }

  snapshot(): ThreadState {
    return {
      thread: this.thread,
      idPrefix: this.idPrefix,
      titles: { ...this.titles },
      cwd: this.cwd,
      gitBranch: this.gitBranch,
      cliVersion: this.cliVersion,
      resumedFrom: [...this.resumedFrom],
      records: this.seen.prints,
      unknownTypes: [...this.unknownTypes],
      sidechainRootOf: this.sidechainRootOf,
      sidechains: [...this.sidechains].map(([root, t]) => [root, t.snapshot()]),
      calls: this.links.calls,
      results: this.links.results,
      usage: this.usage.byResponse,
      lastTimestamp: this.writer.lastTimestamp,
      pendingSummaries: [...this.pendingSummaries],
      written: this.written,
    };
  }

  static restore(file: string, state: ThreadState, out: BodyOut, options: ThreadOptions = {}): ThreadNormalizer {
    const t = new ThreadNormalizer(file, state.thread, state.idPrefix, out, options);
    Object.assign(t.titles, state.titles);
    t.cwd = state.cwd;
    t.gitBranch = state.gitBranch;
    t.cliVersion = state.cliVersion;
    for (const id of state.resumedFrom) t.resumedFrom.add(id);
    t.seen = new SeenRecords(state.records);
    for (const [k, v] of state.unknownTypes) t.unknownTypes.set(k, v);
    t.sidechainRootOf = state.sidechainRootOf;
    for (const [root, s] of state.sidechains) {
      t.sidechains.set(root, ThreadNormalizer.restore(file, s, out, { warn: options.warn }));
    }
    t.links = new ToolLinks(out, state.thread, state.calls, state.results);
    t.usage = new ResponseUsages(state.usage);
    t.writer.lastTimestamp = state.lastTimestamp;
    t.pendingSummaries = [...state.pendingSummaries];
    t.written = state.written;
    return t;
  }

  add({ line, value, start, end }: JsonlRecord): void {
    const writer = this.writer;
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      this.options.warn?.({ file: this.file, line, message: 'line is JSON but not a record object; kept as meta' });
      writer.push(line, undefined, {
        role: 'meta',
        source_type: 'meta',
        segments: [],
        event: 'non-object',
        record: value,
      });
      return;
    }
    const record = value as ClaudeRecord;
    for (const key of ['uuid', 'sessionId', 'parentUuid'] as const) {
      if (record[key] != null && typeof record[key] !== 'string') throw new TypeError(`${key} is not a string`);
    }
    // A record repeated in the same file (same uuid, type, time and length) is one record.
    if (
      record.uuid &&
      !this.seen.firstOfItsKind(record.uuid, fingerprint(record.type, record.timestamp, end - start))
    ) {
      return;
    }
    const { sessionId, isOwnedElsewhere } = this.options;
    if (sessionId && record.sessionId && record.sessionId !== sessionId && isOwnedElsewhere?.(record.sessionId)) {
      this.resumedFrom.add(record.sessionId);
      return;
    }
    if (this.options.splitSidechains && record.isSidechain && record.uuid) {
      this.routeSidechain(record, line);
      return;
    }
    if (record.uuid) this.seen.markOwn(record.uuid);
    const odd = oddParts(record);
    if (odd.length > 0) {
      this.options.warn?.({ file: this.file, line, message: `${odd.join(', ')}; read what fits the format` });
    }
    // Fields that reach summaries and paths must be strings: a record with an odd type there is not trusted.
    if (typeof record.cwd === 'string' && record.cwd) this.cwd ??= record.cwd;
    if (typeof record.gitBranch === 'string' && record.gitBranch) this.gitBranch = record.gitBranch;
    if (typeof record.version === 'string' && record.version) this.cliVersion = record.version;

    switch (record.type) {
      case 'user':
        addUser(writer, record, line);
        break;
      case 'assistant':
        addAssistant(writer, this.usage, record, line);
        break;
      case 'system':
        addSystem(writer, record, line);
        break;
      case 'attachment':
        addAttachment(writer, record, line);
        break;
      case 'progress':
        addProgress(writer, record, line);
        break;
      default:
        if (isTitleRecord(record.type)) addTitle(writer, record, line, this.titles, this.pendingSummaries);
        else if (isBookkeepingRecord(record.type)) addBookkeeping(writer, record, line);
        else addUnknown(writer, record, line, this.unknownTypes);
    }
  }

  /** Resolves titles, the times of trailing undated records and per-response usage, once the file (as it
   * is now) has been read. Call again after feeding more lines of a grown file. */
  finish(fallbackTime: string): void {
    warnUnknownTypes(this.unknownTypes, this.file, this.options.warn);
    if (this.writer.hasUndated) {
      this.datedByMtime = true;
      this.writer.flushUndated(fallbackTime);
    }
    for (const s of this.pendingSummaries) {
      if (!s.leafUuid || this.seen.isOwn(s.leafUuid)) this.titles.auto = s.title;
    }
    this.usage.patchFinal(this.out, this.thread);
    for (const thread of this.sidechains.values()) thread.finish(fallbackTime);
    this.datedByMtime ||= [...this.sidechains.values()].some((t) => t.datedByMtime);
  }

  get title(): string | undefined {
    return this.titles.custom ?? this.titles.auto;
  }

  private routeSidechain(record: ClaudeRecord, line: number): void {
    const parent = record.parentUuid ?? undefined;
    const root = (parent && this.sidechainRootOf.get(parent)) || record.uuid!;
    this.sidechainRootOf.set(record.uuid!, root);
    let thread = this.sidechains.get(root);
    if (!thread) {
      const agentId = `sidechain-${this.sidechains.size + 1}`;
      thread = new ThreadNormalizer(this.file, agentId, `${this.idPrefix}${agentId}:`, this.out, {
        warn: this.options.warn,
      });
      this.sidechains.set(root, thread);
    }
    thread.add({ line, value: record, start: 0, end: line });
  }

  /** Writes a message, its links to earlier messages made first (a result and its call; the first message of a
   * response shows its usage). */
  private emit(m: NormalizedMessage): void {
    const call = m.tool_call;
    if (m.source_type === 'tool_call' && call?.call_id) this.links.linkCall(m, call);
    else if (m.source_type === 'tool_result' && call) this.links.linkResult(m, call);
    this.usage.noteWritten(m);
    this.written += 1;
    this.out.message(this.thread, m);
  }
}

/** The parts of a record whose type is not the format's (each is read as absent or as text, not trusted). */
function oddParts(record: ClaudeRecord): string[] {
  const odd: string[] = [];
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v);
  // A number is the message writer's to judge (it warns when one is out of range).
  const ts: unknown = record.timestamp;
  if (ts != null && typeof ts !== 'number' && (typeof ts !== 'string' || Number.isNaN(Date.parse(ts))))
    odd.push(`timestamp ${JSON.stringify(record.timestamp).slice(0, 40)} is not a time`);
  const message: unknown = record.message;
  if (message === undefined) return odd;
  if (typeof message !== 'object' || message === null || Array.isArray(message)) {
    odd.push(`message is ${kind(message)}, not an object`);
    return odd;
  }
  const { content, usage } = message as { content?: unknown; usage?: unknown };
  if (usage != null && typeof usage === 'object') {
    const notCounts = Object.entries(usage).filter(([k, v]) => k.endsWith('_tokens') && typeof v !== 'number');
    if (notCounts.length > 0) odd.push(`usage ${notCounts.map(([k]) => k).join(', ')} not numbers`);
  }
  if (content != null && typeof content !== 'string' && !Array.isArray(content))
    odd.push(`message content is ${kind(content)}`);
  for (const block of Array.isArray(content) ? (content as unknown[]) : []) {
    if (typeof block !== 'object' || block === null) continue;
    const b = block as { type?: unknown; input?: unknown; content?: unknown };
    if (b.type === 'tool_use' && (typeof b.input !== 'object' || b.input === null || Array.isArray(b.input)))
      odd.push(`tool_use input is ${kind(b.input)}`);
    if (b.type === 'tool_result' && b.content != null && typeof b.content !== 'string' && !Array.isArray(b.content))
      odd.push(`tool_result content is ${kind(b.content)}`);
  }
  return odd;
}
