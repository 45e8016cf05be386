import type {
  MessageKind,
  MessageMetadata,
  MessageSegment,
  NormalizedMessage,
  TokenUsage,
  ToolStatus,
} from '../../model/message.ts';
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

/** A call's state as written: the last call message with its id, and the status and result it shows. */
interface CallLink {
  id: string;
  name: string;
  status: ToolStatus;
  resultId?: string;
}

/** The results written for one call id: all carry the same tool name (the call's, once it is known). */
interface ResultLinks {
  ids: string[];
  name: string;
  status: ToolStatus;
  lastId: string;
}

/** A response's usage: the best seen so far, and what its first message shows. */
interface ResponseUsage {
  firstId?: string;
  best?: TokenUsage;
  shown?: TokenUsage;
}

/** Everything a normalizer remembers between lines, as JSON: a later run resumes a grown file from it. */
export interface ThreadState {
  thread: string;
  idPrefix: string;
  titles: TitleState;
  cwd?: string;
  gitBranch?: string;
  cliVersion?: string;
  resumedFrom: string[];
  seenRecords: string[];
  unknownTypes: [string, { line: number; count: number }][];
  uuidsInFile: string[];
  sidechainRootOf: [string, string][];
  sidechains: [string, ThreadState][];
  calls: [string, CallLink][];
  results: [string, ResultLinks][];
  usage: [string, ResponseUsage][];
  lastTimestamp?: string;
  pendingSummaries: { title: string; leafUuid?: string }[];
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

  private readonly seenRecords = new Set<string>();
  private readonly unknownTypes = new Map<string, { line: number; count: number }>();
  private readonly uuidsInFile = new Set<string>();
  private readonly sidechainRootOf = new Map<string, string>();
  private readonly calls = new Map<string, CallLink>();
  private readonly results = new Map<string, ResultLinks>();
  private readonly usage = new Map<string, ResponseUsage>();
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
      seenRecords: [...this.seenRecords],
      unknownTypes: [...this.unknownTypes],
      uuidsInFile: [...this.uuidsInFile],
      sidechainRootOf: [...this.sidechainRootOf],
      sidechains: [...this.sidechains].map(([root, t]) => [root, t.snapshot()]),
      calls: [...this.calls],
      results: [...this.results],
      usage: [...this.usage],
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
    for (const key of state.seenRecords) t.seenRecords.add(key);
    for (const [k, v] of state.unknownTypes) t.unknownTypes.set(k, v);
    for (const uuid of state.uuidsInFile) t.uuidsInFile.add(uuid);
    for (const [k, v] of state.sidechainRootOf) t.sidechainRootOf.set(k, v);
    for (const [root, s] of state.sidechains) {
      t.sidechains.set(root, ThreadNormalizer.restore(file, s, out, { warn: options.warn }));
    }
    for (const [k, v] of state.calls) t.calls.set(k, v);
    for (const [k, v] of state.results) t.results.set(k, v);
    for (const [k, v] of state.usage) t.usage.set(k, v);
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
    if (record.uuid) {
      // A record repeated in the same file (same uuid, type, time and length) is one record.
      const key = `${record.uuid}\u0000${record.type}\u0000${record.timestamp}\u0000${end - start}`;
      if (this.seenRecords.has(key)) return;
      this.seenRecords.add(key);
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
    if (record.uuid) this.uuidsInFile.add(record.uuid);
    if (record.cwd) this.cwd ??= record.cwd;
    if (record.gitBranch) this.gitBranch = record.gitBranch;
    if (record.version) this.cliVersion = record.version;

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
      if (!s.leafUuid || this.uuidsInFile.has(s.leafUuid)) this.titles.auto = s.title;
    }
    for (const r of this.usage.values()) {
      if (r.firstId && r.best && !sameUsage(r.best, r.shown)) {
        this.out.patch(this.thread, { id: r.firstId, usage: r.best });
        r.shown = r.best;
      }
    }
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
    if (msg.usage && !synthetic) this.recordUsage(responseId, msg.usage);
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

  private recordUsage(responseId: string, usage: ClaudeUsage): void {
    const next: TokenUsage = {
      input: usage.input_tokens ?? 0,
      output: usage.output_tokens ?? 0,
      cacheRead: usage.cache_read_input_tokens ?? 0,
      cacheCreation: usage.cache_creation_input_tokens ?? 0,
    };
    let r = this.usage.get(responseId);
    if (!r) this.usage.set(responseId, (r = {}));
    // Streamed lines repeat the usage of message_start; the final line carries the real output count.
    if (!r.best || next.output >= r.best.output) r.best = next;
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
    if (m.source_type === 'tool_call' && call?.call_id) {
      const previous = this.calls.get(call.call_id);
      if (previous && (previous.status !== 'unanswered' || previous.resultId)) {
        this.out.patch(this.thread, { id: previous.id, status: 'unanswered', resultId: null });
      }
      const results = this.results.get(call.call_id);
      if (results) {
        call.status = results.status;
        call.result_id = results.lastId;
        if (results.name !== call.name) {
          for (const id of results.ids) this.out.patch(this.thread, { id, name: call.name });
          results.name = call.name;
        }
      }
      this.calls.set(call.call_id, { id: m.id, name: call.name, status: call.status, resultId: call.result_id });
    } else if (m.source_type === 'tool_result' && call) {
      const linked = this.calls.get(call.call_id);
      if (linked) {
        call.name = linked.name;
        if (linked.status !== call.status || linked.resultId !== m.id) {
          this.out.patch(this.thread, { id: linked.id, status: call.status, resultId: m.id });
          linked.status = call.status;
          linked.resultId = m.id;
        }
      }
      if (call.call_id) {
        const results = this.results.get(call.call_id);
        if (results) {
          results.ids.push(m.id);
          results.status = call.status;
          results.lastId = m.id;
        } else {
          this.results.set(call.call_id, { ids: [m.id], name: call.name, status: call.status, lastId: m.id });
        }
      }
    }
    const responseId = m.metadata?.response_id;
    if (responseId) {
      let r = this.usage.get(responseId);
      if (!r) this.usage.set(responseId, (r = {}));
      if (!r.firstId) {
        r.firstId = m.id;
        if (r.best) {
          m.metadata!.usage = r.best;
          r.shown = r.best;
        }
      }
    }
    this.written += 1;
    this.out.message(this.thread, m);
  }
}

function sameUsage(a: TokenUsage, b: TokenUsage | undefined): boolean {
  return (
    !!b &&
    a.input === b.input &&
    a.output === b.output &&
    a.cacheRead === b.cacheRead &&
    a.cacheCreation === b.cacheCreation
  );
}

function recordTimestamp(record: ClaudeRecord): string | undefined {
  const raw = record.timestamp ?? record.snapshot?.timestamp;
  if (typeof raw !== 'string') return undefined;
  const date = new Date(raw);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
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
