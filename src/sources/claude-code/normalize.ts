import type {
  MessageKind,
  MessageMetadata,
  MessageSegment,
  NormalizedMessage,
  TokenUsage,
  ToolCall,
  ToolStatus,
} from '../../model/message.ts';
import { isOutOfRangeTime, saneIsoFromText, TIME_RANGE_TEXT } from '../../util/time.ts';
import type { JsonlRecord } from '../../util/jsonl.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { BodyOut } from '../../model/body.ts';
import type { ClaudeContentBlock, ClaudeRecord, ClaudeUsage } from './schema.ts';
import { classifyUserText, commandLine, stripAnsi } from './classify.ts';

/** Record types that carry nothing to show and can be large; kept as a one-line meta event. */
const BOOKKEEPING_TYPES = new Set([
  'file-history-snapshot',
  'file-history-delta',
  'attribution-snapshot',
  'queue-operation',
  'speculation-accept',
  'content-replacement',
  'context-collapse-commit',
  'context-collapse-snapshot',
  'mode',
  'permission-mode',
  'agent-name',
  'agent-color',
  'agent-setting',
  'last-prompt',
  'tag',
  'task-summary',
  'worktree-state',
  'pr-link',
  'frame-link',
]);
const TITLE_TYPES = new Set(['summary', 'custom-title', 'ai-title']);
const REJECTED_RESULT = /^(User rejected tool use|The user doesn't want to proceed with this tool use)/;

interface TitleState {
  custom?: string;
  auto?: string;
}

/** Token counts as `[input, output, cacheRead, cacheCreation, cacheCreation1h]` (the last absent in states saved
 * before it was kept): state is kept per response, so kept small. */
type Tokens = [number, number, number, number, number?];

/** The last call message with a call id: `[message id, tool name, status shown, result id shown]`. */
type CallLink = [id: string, name: string, status: ToolStatus, resultId?: string];

/** Results for a call id that its `CallLink` cannot tell (written before the call, or more than one); all
 * carry the same tool name, the call's once it is known. */
interface ResultLinks {
  ids: string[];
  name: string;
  status: ToolStatus;
}

/** A response's usage: its first message (once written), the best usage seen, and, while the two differ,
 * what the first message shows (`null`: nothing). */
interface ResponseUsage {
  first?: string;
  best?: Tokens;
  shown?: Tokens | null;
  model?: string;
}

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
  pendingSummaries: { title: string; leafUuid?: string }[];
  written: number;
}

/**
 * What is known of the records with one uuid: a 30-bit fingerprint of each one's type, time and length
 * (to drop a repeated record), times two, plus one once a record with it was this thread's own (for the
 * summaries that name their last record). An array in the rare case of several records with one uuid.
 */
type RecordPrints = number | number[];

function fingerprint(type: unknown, timestamp: unknown, length: number): number {
  const text = `${String(type)}\u0000${String(timestamp)}\u0000${length}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0) & 0x3fffffff;
}

function tokens(u: TokenUsage): Tokens {
  return u.cacheCreation1h
    ? [u.input, u.output, u.cacheRead, u.cacheCreation, u.cacheCreation1h]
    : [u.input, u.output, u.cacheRead, u.cacheCreation];
}

function usageOf(t: Tokens): TokenUsage {
  return {
    input: t[0],
    output: t[1],
    cacheRead: t[2],
    cacheCreation: t[3],
    ...(t[4] ? { cacheCreation1h: t[4] } : {}),
  };
}

function sameTokens(a: Tokens | undefined | null, b: Tokens | undefined | null): boolean {
  return !!a && !!b && a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3] && (a[4] ?? 0) === (b[4] ?? 0);
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

  private records = new Map<string, RecordPrints>();
  private readonly unknownTypes = new Map<string, { line: number; count: number }>();
  private sidechainRootOf = new Map<string, string>();
  private calls = new Map<string, CallLink>();
  private results = new Map<string, ResultLinks>();
  private usage = new Map<string, ResponseUsage>();
  private lastTimestamp?: string;
  /** Messages without a time of their own wait here for the next record that has one. */
  private readonly undated: NormalizedMessage[] = [];
  private pendingSummaries: { title: string; leafUuid?: string }[] = [];
  /** Messages had to take the file's mtime as their time: a grown file cannot be resumed from here. */
  datedByMtime = false;

  constructor(
    private readonly file: string,
    readonly thread: string,
    private readonly idPrefix: string,
    private readonly out: BodyOut,
    private readonly options: ThreadOptions = {},
  ) {}

  snapshot(): ThreadState {
    return {
      thread: this.thread,
      idPrefix: this.idPrefix,
      titles: { ...this.titles },
      cwd: this.cwd,
      gitBranch: this.gitBranch,
      cliVersion: this.cliVersion,
      resumedFrom: [...this.resumedFrom],
      records: this.records,
      unknownTypes: [...this.unknownTypes],
      sidechainRootOf: this.sidechainRootOf,
      sidechains: [...this.sidechains].map(([root, t]) => [root, t.snapshot()]),
      calls: this.calls,
      results: this.results,
      usage: this.usage,
      lastTimestamp: this.lastTimestamp,
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
    t.records = state.records;
    for (const [k, v] of state.unknownTypes) t.unknownTypes.set(k, v);
    t.sidechainRootOf = state.sidechainRootOf;
    for (const [root, s] of state.sidechains) {
      t.sidechains.set(root, ThreadNormalizer.restore(file, s, out, { warn: options.warn }));
    }
    t.calls = state.calls;
    t.results = state.results;
    t.usage = state.usage;
    t.lastTimestamp = state.lastTimestamp;
    t.pendingSummaries = [...state.pendingSummaries];
    t.written = state.written;
    return t;
  }

  add({ line, value, start, end }: JsonlRecord): void {
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      this.options.warn?.({ file: this.file, line, message: 'line is JSON but not a record object; kept as meta' });
      this.push(line, undefined, {
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
    if (record.uuid && !this.firstOfItsKind(record.uuid, fingerprint(record.type, record.timestamp, end - start))) {
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
    if (record.uuid) this.markOwn(record.uuid);
    // Fields that reach summaries and paths must be strings: a record with an odd type there is not trusted.
    if (typeof record.cwd === 'string' && record.cwd) this.cwd ??= record.cwd;
    if (typeof record.gitBranch === 'string' && record.gitBranch) this.gitBranch = record.gitBranch;
    if (typeof record.version === 'string' && record.version) this.cliVersion = record.version;

    switch (record.type) {
      case 'user':
        this.addUser(record, line);
        break;
      case 'assistant':
        this.addAssistant(record, line);
        break;
      case 'system':
        this.addSystem(record, line);
        break;
      case 'attachment':
        this.addAttachment(record, line);
        break;
      case 'progress':
        this.push(line, record, {
          role: 'meta',
          source_type: 'meta',
          segments: [],
          metadata: { kind: 'system_event', subtype: `progress:${record.data?.type ?? 'unknown'}` },
        });
        break;
      default:
        if (record.type && TITLE_TYPES.has(record.type)) this.addTitle(record, line);
        else if (record.type && BOOKKEEPING_TYPES.has(record.type)) {
          this.push(line, record, {
            role: 'meta',
            source_type: 'meta',
            segments: [],
            metadata: { kind: 'system_event', subtype: record.type },
          });
        } else {
          const type = String(record.type ?? 'untyped');
          const seen = this.unknownTypes.get(type);
          if (seen) seen.count += 1;
          else this.unknownTypes.set(type, { line, count: 1 });
          this.push(line, record, {
            role: 'meta',
            source_type: 'meta',
            segments: [],
            metadata: { kind: 'unknown', subtype: type },
            record,
          });
        }
    }
  }

  /** Resolves titles, the times of trailing undated records and per-response usage, once the file (as it
   * is now) has been read. Call again after feeding more lines of a grown file. */
  finish(fallbackTime: string): void {
    for (const [type, { line, count }] of this.unknownTypes) {
      this.options.warn?.({
        file: this.file,
        line,
        message: `unknown record type "${type}"${count > 1 ? ` (${count} lines)` : ''}; kept as meta`,
      });
    }
    if (this.undated.length > 0) {
      this.datedByMtime = true;
      this.flushUndated(fallbackTime);
    }
    for (const s of this.pendingSummaries) {
      if (!s.leafUuid || this.isOwn(s.leafUuid)) this.titles.auto = s.title;
    }
    for (const r of this.usage.values()) {
      if (r.first && r.best && r.shown !== undefined) {
        this.out.patch(this.thread, {
          id: r.first,
          usage: usageOf(r.best),
          ...(r.shown ? { was: { usage: usageOf(r.shown) } } : {}),
          ...(r.model ? { model: r.model } : {}),
          at: r.first.slice(0, r.first.indexOf('#')), // a message id starts with its time
        });
      }
      delete r.shown;
    }
    for (const thread of this.sidechains.values()) thread.finish(fallbackTime);
    this.datedByMtime ||= [...this.sidechains.values()].some((t) => t.datedByMtime);
  }

  /** Notes a record; false when the same record (by uuid and fingerprint) was seen before. */
  private firstOfItsKind(uuid: string, print: number): boolean {
    const known = this.records.get(uuid);
    if (known === undefined) {
      this.records.set(uuid, print * 2);
      return true;
    }
    const prints = Array.isArray(known) ? known : [known];
    if (prints.some((p) => p >> 1 === print)) return false;
    this.records.set(uuid, [...prints, print * 2]);
    return true;
  }

  private markOwn(uuid: string): void {
    const known = this.records.get(uuid);
    if (typeof known === 'number') this.records.set(uuid, known | 1);
    else if (known) known[0]! |= 1;
    else this.records.set(uuid, 1); // (a record routed here without passing `add`)
  }

  private isOwn(uuid: string): boolean {
    const known = this.records.get(uuid);
    return known !== undefined && (Array.isArray(known) ? known.some((p) => p & 1) : (known & 1) === 1);
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

  private addUser(record: ClaudeRecord, line: number): void {
    const content = record.message?.content;
    const blocks: ClaudeContentBlock[] =
      typeof content === 'string' ? [{ type: 'text', text: content }] : Array.isArray(content) ? content : [];
    const toolResults = blocks.filter((b) => b.type === 'tool_result');
    const others = blocks.filter((b) => b.type !== 'tool_result');

    toolResults.forEach((block, i) => this.addToolResult(record, block, line, toolResults.length > 1 ? i : undefined));
    if (others.length === 0) return;

    const text = others
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('\n\n');
    const kind = classifyUserText(text, { isMeta: record.isMeta, isCompactSummary: record.isCompactSummary });
    const segments: MessageSegment[] = [];
    for (const block of others) {
      if (block.type === 'text') {
        const shown = kind === 'command' ? (commandLine(block.text ?? '') ?? block.text ?? '') : (block.text ?? '');
        segments.push({
          channel: 'input',
          type: 'text',
          format: 'text',
          text: kind === 'command_output' ? stripAnsi(shown) : shown,
        });
      } else if (block.type === 'image') {
        segments.push(imageSegment(block, 'input'));
      } else {
        segments.push({ channel: 'input', type: 'text', format: block.type, text: `[${block.type}]` });
      }
    }
    const role = kind === 'prompt' || kind === 'command' || kind === 'interrupt' ? 'user' : 'meta';
    this.push(
      line,
      record,
      {
        role: kind === 'compact_summary' ? 'system' : role,
        source_type: 'message',
        segments,
        metadata: { kind, ...(record.isMeta ? { is_meta: true } : {}) },
      },
      toolResults.length > 0 ? 'text' : undefined,
    );
  }

  private addToolResult(record: ClaudeRecord, block: ClaudeContentBlock, line: number, index?: number): void {
    const callId = block.tool_use_id ?? '';
    const output = toolResultText(block.content);
    const structured = record.toolUseResult;
    let status: ToolStatus = block.is_error ? 'error' : 'completed';
    if (
      (typeof structured === 'string' && REJECTED_RESULT.test(structured)) ||
      (block.is_error && REJECTED_RESULT.test(output))
    ) {
      status = 'rejected';
    }
    const segments: MessageSegment[] = [];
    if (Array.isArray(block.content)) {
      for (const part of block.content as ClaudeContentBlock[]) {
        if (part?.type === 'image') segments.push(imageSegment(part, 'output'));
      }
    }
    this.push(
      line,
      record,
      {
        role: 'tool',
        source_type: 'tool_result',
        segments,
        tool_call: {
          call_id: callId,
          name: 'unknown',
          status,
          output,
          ...(structured !== undefined ? { output_json: structured } : {}),
        },
        metadata: agentIdOf(structured) ? { agent_id: agentIdOf(structured) } : undefined,
      },
      index,
    );
  }

  private addAssistant(record: ClaudeRecord, line: number): void {
    const msg = record.message ?? {};
    const responseId = msg.id ?? record.uuid ?? `line-${line}`;
    const synthetic = msg.model === '<synthetic>' || record.isApiErrorMessage === true;
    if (msg.usage && !synthetic) this.recordUsage(responseId, msg.usage, msg.model);
    const blocks: ClaudeContentBlock[] =
      typeof msg.content === 'string'
        ? [{ type: 'text', text: msg.content }]
        : Array.isArray(msg.content)
          ? msg.content
          : [];
    const metadata: MessageMetadata = {
      kind: synthetic ? 'api_error' : 'response',
      response_id: responseId,
      ...(msg.model ? { model: msg.model } : {}),
    };

    let prose: MessageSegment[] = [];
    let part = 0;
    const many = blocks.length > 1;
    const flushProse = () => {
      if (prose.length === 0) return;
      this.push(
        line,
        record,
        { role: 'assistant', source_type: 'message', segments: prose, metadata: { ...metadata } },
        many ? part++ : undefined,
      );
      prose = [];
    };
    for (const block of blocks) {
      if (block.type === 'tool_use' || block.type === 'server_tool_use') {
        flushProse();
        this.push(
          line,
          record,
          {
            role: 'tool',
            source_type: 'tool_call',
            segments: [],
            tool_call: {
              call_id: block.id ?? '',
              name: block.name ?? 'unknown',
              status: 'unanswered',
              arguments: typeof block.input === 'string' ? block.input : JSON.stringify(block.input ?? {}, null, 2),
              arguments_json: block.input ?? {},
            },
            metadata: { ...metadata },
          },
          many ? part++ : undefined,
        );
      } else if (block.type === 'web_search_tool_result' || block.type === 'tool_result') {
        flushProse();
        this.addToolResult(record, { ...block, type: 'tool_result' }, line, part++);
      } else if (block.type === 'text') {
        prose.push({ channel: 'output', type: 'text', format: 'text', text: block.text ?? '' });
      } else if (block.type === 'thinking') {
        prose.push({ channel: 'output', type: 'text', format: 'thinking', text: block.thinking ?? '' });
      } else if (block.type === 'redacted_thinking') {
        prose.push({ channel: 'output', type: 'text', format: 'redacted_thinking', text: '' });
      } else if (block.type === 'image') {
        prose.push(imageSegment(block, 'output'));
      } else {
        prose.push({ channel: 'output', type: 'text', format: block.type, text: JSON.stringify(block) });
      }
    }
    flushProse();
    if (blocks.length === 0) {
      this.push(line, record, { role: 'assistant', source_type: 'message', segments: [], metadata });
    }
  }

  private recordUsage(responseId: string, usage: ClaudeUsage, model: string | undefined): void {
    const cacheCreation = usage.cache_creation_input_tokens ?? 0;
    const oneHour = usage.cache_creation?.ephemeral_1h_input_tokens;
    const next: TokenUsage = {
      input: usage.input_tokens ?? 0,
      output: usage.output_tokens ?? 0,
      cacheRead: usage.cache_read_input_tokens ?? 0,
      cacheCreation,
      ...(typeof oneHour === 'number' && oneHour > 0 ? { cacheCreation1h: Math.min(oneHour, cacheCreation) } : {}),
    };
    let r = this.usage.get(responseId);
    if (!r) this.usage.set(responseId, (r = {}));
    if (model) r.model = model;
    // Streamed lines repeat the usage of message_start; the final line carries the real output count.
    if (r.best && next.output < r.best[1]) return;
    if (r.first && r.shown === undefined) r.shown = r.best ?? null; // its first message shows the old best
    r.best = tokens(next);
    if (sameTokens(r.best, r.shown)) delete r.shown;
  }

  private addSystem(record: ClaudeRecord, line: number): void {
    const subtype = record.subtype ?? 'unknown';
    const text = typeof record.content === 'string' ? record.content : undefined;
    let kind: MessageKind = 'system_event';
    let role: NormalizedMessage['role'] = 'meta';
    let segments: MessageSegment[] = [];
    const metadata: MessageMetadata = { subtype };
    if (subtype === 'compact_boundary') {
      kind = 'compact_boundary';
      role = 'system';
      metadata.compact = { trigger: record.compactMetadata?.trigger, pre_tokens: record.compactMetadata?.preTokens };
    } else if (subtype === 'local_command' && text) {
      kind = commandLine(text) ? 'command' : 'command_output';
      role = kind === 'command' ? 'user' : 'meta';
      segments = [
        { channel: 'system', type: 'text', format: 'local_command', text: commandLine(text) ?? stripAnsi(text) },
      ];
    } else if (subtype === 'api_error') {
      kind = 'api_error';
      role = 'system';
      segments = [{ channel: 'system', type: 'text', format: subtype, text: apiErrorText(record) }];
    } else if ((subtype === 'informational' || subtype === 'warning' || subtype === 'error') && text) {
      role = 'system';
      segments = [{ channel: 'system', type: 'text', format: subtype, text }];
    }
    metadata.kind = kind;
    this.push(line, record, { role, source_type: 'meta', segments, metadata });
  }

  private addAttachment(record: ClaudeRecord, line: number): void {
    const type = record.attachment?.type ?? 'unknown';
    if (type === 'queued_command') {
      const prompt = record.attachment?.prompt;
      const text = typeof prompt === 'string' ? prompt : toolResultText(prompt);
      this.push(line, record, {
        role: 'user',
        source_type: 'message',
        segments: [{ channel: 'input', type: 'text', format: 'queued_command', text }],
        metadata: { kind: 'prompt', subtype: 'attachment:queued_command' },
      });
      return;
    }
    this.push(line, record, {
      role: 'meta',
      source_type: 'meta',
      segments: [],
      metadata: { kind: 'injected', subtype: `attachment:${type}` },
    });
  }

  private addTitle(record: ClaudeRecord, line: number): void {
    if (record.type === 'custom-title' && record.customTitle) this.titles.custom = record.customTitle;
    else if (record.type === 'ai-title' && record.aiTitle) this.titles.auto = record.aiTitle;
    else if (record.type === 'summary' && record.summary) {
      this.pendingSummaries.push({ title: record.summary, leafUuid: record.leafUuid });
    }
    this.push(line, record, {
      role: 'meta',
      source_type: 'meta',
      segments: [],
      metadata: {
        kind: 'title',
        subtype: record.type,
        title: record.customTitle ?? record.aiTitle ?? record.summary,
      },
    });
  }

  private push(
    line: number,
    record: ClaudeRecord | undefined,
    fields: Pick<NormalizedMessage, 'role' | 'source_type' | 'segments'> &
      Partial<Pick<NormalizedMessage, 'tool_call' | 'metadata'>> & { event?: string; record?: unknown },
    part?: number | string,
  ): void {
    const ts = record ? recordTimestamp(record) : undefined;
    if (!ts && record && isOutOfRangeTime(record.timestamp ?? record.snapshot?.timestamp)) {
      this.options.warn?.({
        file: this.file,
        line,
        message: `timestamp ${JSON.stringify(record.timestamp ?? record.snapshot?.timestamp)} is ${TIME_RANGE_TEXT}; ignored`,
      });
    }
    if (ts) {
      this.lastTimestamp = ts;
      this.flushUndated(ts);
    }
    const timestamp = ts ?? this.lastTimestamp ?? '';
    const localId = `${this.idPrefix}${line}${part === undefined ? '' : `.${part}`}`;
    const message: NormalizedMessage = {
      id: `${timestamp}#${localId}`,
      timestamp,
      ...(ts ? {} : { timestamp_estimated: true }),
      role: fields.role,
      source_type: fields.source_type,
      segments: fields.segments,
      ...(fields.tool_call ? { tool_call: fields.tool_call } : {}),
      raw: {
        event_type: fields.event ?? record?.type ?? 'unknown',
        ...(record?.subtype ? { payload_type: record.subtype } : {}),
        file_path: this.file,
        line_index: line,
        ...(record?.uuid ? { uuid: record.uuid } : {}),
        ...(fields.record !== undefined ? { record: fields.record } : {}),
      },
      ...(fields.metadata ? { metadata: fields.metadata } : {}),
    };
    if (!timestamp) this.undated.push(message);
    else this.emit(message);
  }

  /** Gives the waiting undated messages this time (their id holds it too) and writes them. */
  private flushUndated(ts: string): void {
    if (this.undated.length === 0) return;
    const waiting = this.undated.splice(0);
    for (const m of waiting) {
      m.timestamp = ts;
      m.id = `${ts}#${m.id.split('#')[1]}`;
      this.emit(m);
    }
  }

  /**
   * Writes a message, its links to earlier messages made first: a result takes its call's tool name and
   * the call is patched to show the result; the first message of a response shows its usage. Results
   * before their call (parallel calls on side branches) and repeated call ids end as a whole-file pass
   * would leave them: the last call with an id shows the last result for it.
   */
  private emit(m: NormalizedMessage): void {
    const call = m.tool_call;
    if (m.source_type === 'tool_call' && call?.call_id) this.linkCall(m, call);
    else if (m.source_type === 'tool_result' && call) this.linkResult(m, call);
    const responseId = m.metadata?.response_id;
    if (responseId) {
      let r = this.usage.get(responseId);
      if (!r) this.usage.set(responseId, (r = {}));
      if (!r.first) {
        r.first = m.id;
        if (r.best) m.metadata!.usage = usageOf(r.best);
      }
    }
    this.written += 1;
    this.out.message(this.thread, m);
  }

  /** The results a call id has had, from its explicit entry or, in the usual case of one, from its call. */
  private resultsOf(callId: string): ResultLinks | undefined {
    const explicit = this.results.get(callId);
    if (explicit) return explicit;
    const link = this.calls.get(callId);
    return link?.[3] ? { ids: [link[3]], name: link[1], status: link[2] } : undefined;
  }

  private linkCall(m: NormalizedMessage, call: ToolCall): void {
    const previous = this.calls.get(call.call_id);
    const results = this.resultsOf(call.call_id);
    if (previous && (previous[2] !== 'unanswered' || previous[3])) {
      const was = previous[2];
      this.out.patch(this.thread, {
        id: previous[0],
        status: 'unanswered',
        resultId: null,
        was: { status: was },
        tool: previous[1],
      });
    }
    if (results) {
      call.status = results.status;
      call.result_id = results.ids[results.ids.length - 1];
      if (results.name !== call.name) {
        for (const id of results.ids) this.out.patch(this.thread, { id, name: call.name });
      }
      if (this.results.has(call.call_id)) results.name = call.name;
    }
    this.calls.set(call.call_id, [m.id, call.name, call.status, call.result_id]);
  }

  private linkResult(m: NormalizedMessage, call: ToolCall): void {
    const link = this.calls.get(call.call_id);
    const explicit = this.results.get(call.call_id);
    if (call.call_id && !explicit && (!link || link[3])) {
      // Not the one result its call entry can tell: keep the list.
      this.results.set(call.call_id, {
        ids: link?.[3] ? [link[3]] : [],
        name: link?.[1] ?? call.name,
        status: call.status,
      });
    }
    if (link) {
      call.name = link[1];
      if (link[2] !== call.status || link[3] !== m.id) {
        this.out.patch(this.thread, {
          id: link[0],
          status: call.status,
          resultId: m.id,
          was: { status: link[2] },
          tool: link[1],
        });
        link[2] = call.status;
        link[3] = m.id;
      }
    }
    const results = this.results.get(call.call_id);
    if (results && call.call_id) {
      results.ids.push(m.id);
      results.status = call.status;
    }
  }
}

function recordTimestamp(record: ClaudeRecord): string | undefined {
  return saneIsoFromText(record.timestamp ?? record.snapshot?.timestamp);
}

function imageSegment(block: ClaudeContentBlock, channel: MessageSegment['channel']): MessageSegment {
  const source = block.source ?? {};
  if (source.type === 'base64' && typeof source.data === 'string') {
    const mediaType = source.media_type ?? 'image/png';
    return {
      channel,
      type: 'image',
      format: 'image',
      media: {
        media_type: mediaType,
        data_uri: `data:${mediaType};base64,${source.data}`,
        size_bytes: Math.floor((source.data.length * 3) / 4),
      },
    };
  }
  if (source.type === 'url' && typeof source.url === 'string') {
    return { channel, type: 'image', format: 'image', media: { url: source.url } };
  }
  return { channel, type: 'image', format: 'image', media: { omitted: `image source ${source.type ?? 'unknown'}` } };
}

/** A tool result's content (string, block array or absent) as plain text. */
export function toolResultText(content: unknown): string {
  if (content === undefined || content === null) return '';
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => {
        if (typeof part === 'string') return part;
        const block = part as ClaudeContentBlock;
        if (block?.type === 'text') return block.text ?? '';
        if (block?.type === 'image') return '[image]';
        return JSON.stringify(block);
      })
      .join('\n');
  }
  return JSON.stringify(content, null, 2);
}

function agentIdOf(structured: unknown): string | undefined {
  if (structured && typeof structured === 'object' && !Array.isArray(structured)) {
    const id = (structured as { agentId?: unknown }).agentId;
    if (typeof id === 'string') return id;
  }
  return undefined;
}

function apiErrorText(record: ClaudeRecord): string {
  const error = record.error as { message?: string; status?: number } | undefined;
  const parts = ['API error'];
  if (error?.status) parts.push(String(error.status));
  if (error?.message) parts.push(error.message);
  return parts.join(': ');
}
