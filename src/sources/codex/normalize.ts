import { createHash } from 'node:crypto';
import { saneIsoFromText } from '../../util/time.ts';
import type {
  MessageKind,
  MessageMetadata,
  MessageSegment,
  NormalizedMessage,
  TokenUsage,
  ToolStatus,
} from '../../model/message.ts';
import type { JsonlRecord } from '../../util/jsonl.ts';
import { argumentsOf, contentSegments, endDetails, imageSegment, outputOf } from './content.ts';
import type {
  CompactedPayload,
  ContentItem,
  EventPayload,
  LegacyHeader,
  ResponseItem,
  RolloutLine,
  SessionMetaPayload,
  TokenCountInfo,
  TokenUsageCounts,
  TurnContextPayload,
} from './schema.ts';

/** Event kinds FORMATS.md §2.6 documents; kept as `system_event` meta. Any other kind is `unknown`. */
const KNOWN_EVENTS = new Set([
  'user_message',
  'agent_message',
  'agent_reasoning',
  'agent_reasoning_raw_content',
  'agent_reasoning_section_break',
  'token_count',
  'task_started',
  'turn_started',
  'task_complete',
  'turn_complete',
  'turn_aborted',
  'context_compacted',
  'thread_name_updated',
  'thread_rolled_back',
  'undo_started',
  'undo_completed',
  'entered_review_mode',
  'exited_review_mode',
  'exec_command_end',
  'patch_apply_end',
  'mcp_tool_call_end',
  'web_search_end',
  'view_image_tool_call',
  'image_generation_end',
  'collab_agent_spawn_end',
  'collab_agent_interaction_end',
  'collab_waiting_end',
  'collab_close_end',
  'sub_agent_activity',
  'dynamic_tool_call_request',
  'dynamic_tool_call_response',
  'guardian_assessment',
  'thread_goal_updated',
  'thread_settings_applied',
  'item_completed',
  'plan_update',
  'background_event',
  'error',
  'stream_error',
  'warning',
]);
/** event_msg kinds that repeat a response_item; never shown or counted. */
const MIRRORS = new Set(['user_message', 'agent_message', 'agent_reasoning', 'agent_reasoning_raw_content']);
/** event_msg kinds whose `call_id` carries the richer end of a tool call. */
const CALL_ENDS = new Set([
  'exec_command_end',
  'patch_apply_end',
  'mcp_tool_call_end',
  'web_search_end',
  'view_image_tool_call',
  'dynamic_tool_call_response',
]);
/** Response item types that are a model's output (they open or continue a response). */
const CALL_TYPES = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
  'tool_search_call',
  'image_generation_call',
]);
const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'tool_search_output']);
/** Response item types with nothing to show. */
const SILENT_ITEMS = new Set(['ghost_snapshot', 'compaction', 'compaction_summary', 'other']);
/** Top-level line types that are documented but carry nothing to show. */
const SILENT_LINES = new Set(['world_state', 'inter_agent_communication_metadata', 'token_usage_record']);

const INJECTED_TAG = /^<([a-z_][\w-]*)>[\s\S]*<\/\1>\s*$/i;
const INJECTED_PREFIXES = [
  '# AGENTS.md instructions',
  '<environment_context>',
  '<user_instructions>',
  '<INSTRUCTIONS>',
];
const SHELL_COMMAND = /^<user_shell_command>([\s\S]*)<\/user_shell_command>\s*$/;
/** Copies of a parent's history are written within this long after the fork's own `session_meta`. */
const COPY_WINDOW_MS = 1000;

/** How to recognise the lines a fork or subagent copied from another session (FORMATS.md §2.3, §2.12). */
export type CopySource =
  /** The other session was read in this run: its lines' fingerprints, in file order. */
  | { fingerprints: string[] }
  /** The other session is known (archived) but its file is gone: lines written right after the fork's start. */
  | { time: true };

export interface NormalizerOptions {
  /** Prefix of message ids (a subagent thread's own id), so ids stay unique in one session. */
  idPrefix?: string;
  /** The uuid in the file name, the session id when the file has no `session_meta`. */
  nameId?: string;
  /** How to recognise copies of session `id`; undefined when the session is unknown (the copy is then kept). */
  copySource?: (id: string) => CopySource | undefined;
  /** Collect every line's fingerprint (for the sessions that fork or spawn from this one). */
  collectFingerprints?: boolean;
}

interface OpenResponse {
  id: string;
  first: NormalizedMessage;
  hasUsage: boolean;
}

interface UserItem {
  message: NormalizedMessage;
  texts: string[];
  promptKind: MessageKind;
}

interface CopyRegion {
  from: string;
  source: CopySource;
  /** Index in the source's fingerprints up to which lines have matched. */
  cursor: number;
  positions?: Map<string, number[]>;
  startMs: number;
  /** Stands in for the copied lines, at the first of them. */
  marker?: NormalizedMessage;
  lines: number;
}

/**
 * Turns the lines of one Codex rollout (event format, legacy format, or the items of a TS-era
 * `.json`) into normalized messages. One instance per file; feed lines in order, then `finish()`.
 */
export class RolloutNormalizer {
  readonly messages: NormalizedMessage[] = [];
  readonly fingerprints: string[] = [];
  meta?: SessionMetaPayload;
  sessionId?: string;
  cwd?: string;
  cliVersion?: string;
  gitBranch?: string;
  threadName?: string;
  format?: 'event' | 'legacy' | 'json';
  /** Sessions whose copied history was left out of this one. */
  readonly copiedFrom = new Set<string>();
  /** Subagent threads this session spawned: child thread id → the spawning call's id. */
  readonly spawnedThreads = new Map<string, string>();

  private readonly idPrefix: string;
  private model?: string;
  private lastTimestamp?: string;
  private readonly undated: NormalizedMessage[] = [];
  private legacyStartMs?: number;
  private legacyUndated: NormalizedMessage[] = [];
  private open?: OpenResponse;
  private pendingUsage?: { usage: TokenUsage; holder: NormalizedMessage };
  private lastTotal?: string;
  private readonly calls = new Map<string, NormalizedMessage>();
  private readonly results: NormalizedMessage[] = [];
  private readonly callEnds: { message: NormalizedMessage; payload: EventPayload; kind: string }[] = [];
  private readonly userItems: UserItem[] = [];
  private readonly userEvents: { message: NormalizedMessage; payload: EventPayload }[] = [];
  private copy?: CopyRegion;
  /** The cwd an injected `<environment_context>` names: the project when no session_meta does. */
  envCwd?: string;
  /** The current line's type (`raw.event_type`) and, for legacy lines, whether its time is inferred. */
  private lineEvent = 'unknown';
  private lineTimeEstimated = false;

  constructor(
    readonly file: string,
    private readonly options: NormalizerOptions = {},
  ) {
    this.idPrefix = options.idPrefix ?? '';
  }

  add({ line, value }: JsonlRecord): void {
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      this.push(line, undefined, {
        role: 'meta',
        source_type: 'meta',
        segments: [],
        event: 'non-object',
        metadata: { kind: 'unknown' },
        record: value,
      });
      return;
    }
    const record = value as RolloutLine & ResponseItem & LegacyHeader;
    if (typeof record.type === 'string' && 'payload' in record) {
      this.format ??= 'event';
      this.lineEvent = record.type;
      this.addEnvelope(record, line);
      return;
    }
    if (record.record_type === 'state') return; // legacy bookkeeping: skipped (FORMATS.md §2.10)
    this.lineEvent = 'legacy_session_entry';
    if (this.format === undefined && record.type === undefined && record.record_type === undefined) {
      this.format = 'legacy';
      this.addLegacyHeader(record, line);
      return;
    }
    this.format ??= 'legacy';
    this.addItem(record, line, 'legacy_session_entry', this.legacyTime(record, line));
  }

  /** The header of a TS-era `.json` rollout (`{session, items}`); its items follow through `addJsonItem`. */
  addJsonHeader(session: { timestamp?: string; id?: string; instructions?: string | null }): void {
    this.format = 'json';
    this.lineEvent = 'json_session';
    this.addLegacyHeader(session, 1);
  }

  addJsonItem(item: ResponseItem, index: number): void {
    const line = index + 2;
    if (!item || typeof item !== 'object') return;
    this.lineEvent = 'json_item';
    this.addItem(item, line, 'json_item', this.legacyTime(item as LegacyHeader, line));
  }

  /** Resolves prompts, tool links, pending usage and undated lines once the whole file has been read. */
  finish(mtime: string): void {
    this.closeCopy();
    const mtimeMs = Date.parse(mtime);
    if (this.legacyUndated.length > 0) {
      const last = Math.max(...this.legacyUndated.map((m) => m.raw.line_index));
      for (const m of this.legacyUndated) this.setTime(m, new Date(mtimeMs - (last - m.raw.line_index) * 1000));
      this.legacyUndated = [];
    }
    for (const m of this.undated) this.setTime(m, new Date(mtimeMs));
    this.undated.length = 0;
    if (this.pendingUsage) this.giveUsage(this.pendingUsage.holder, this.pendingUsage.usage);
    this.pendingUsage = undefined;
    this.resolvePrompts();
    this.linkCallEnds();
    this.linkResults();
  }

  /** The first real prompt's text. */
  firstPrompt(): string | undefined {
    const prompt = this.messages.find((m) => m.metadata?.kind === 'prompt');
    return prompt?.segments.find((s) => s.type === 'text')?.text;
  }

  // ---------------------------------------------------------------- event format

  private addEnvelope(record: RolloutLine, line: number): void {
    const type = record.type!;
    const payload = (record.payload ?? {}) as Record<string, unknown>;
    const ts = parseTime(record.timestamp);
    if (this.options.collectFingerprints) this.fingerprints.push(fingerprint(type, record.payload));
    if (this.isCopied(type, record, payload, line, ts)) return;
    switch (type) {
      case 'session_meta':
        this.addSessionMeta(payload as SessionMetaPayload, line, ts);
        break;
      case 'turn_context':
        this.addTurnContext(payload as TurnContextPayload, line, ts);
        break;
      case 'response_item':
        this.addItem(payload as ResponseItem, line, 'response_item', ts);
        break;
      case 'event_msg':
        this.addEvent(payload as EventPayload, line, ts);
        break;
      case 'compacted':
        this.addCompacted(payload as CompactedPayload, line, ts);
        break;
      default:
        if (SILENT_LINES.has(type)) {
          this.push(line, ts, {
            role: 'meta',
            source_type: 'meta',
            segments: [],
            event: type,
            metadata: { kind: 'system_event', subtype: type },
          });
        } else {
          this.push(line, ts, {
            role: 'meta',
            source_type: 'meta',
            segments: [],
            event: type,
            payloadType: typeof payload.type === 'string' ? payload.type : undefined,
            metadata: { kind: 'unknown', subtype: type },
            record: scrub(record),
          });
        }
    }
  }

  /**
   * Forks and subagents start with a copy of another session's lines (a second `session_meta`, or
   * right after a `session_meta` with `forked_from_id`). When that session is known, the copy is
   * left out (it is counted there) and one marker stands in for it; its token totals still set the
   * baseline, so the first request after the copy is counted alone.
   */
  private isCopied(
    type: string,
    record: RolloutLine,
    payload: Record<string, unknown>,
    line: number,
    ts: string | undefined,
  ): boolean {
    const isMeta = type === 'session_meta';
    const metaId = isMeta ? idOf(payload as SessionMetaPayload) : undefined;
    if (isMeta && !this.meta) {
      // The file's own identity. A fork's copy follows it.
      const forkedFrom = (payload as SessionMetaPayload).forked_from_id;
      if (typeof forkedFrom === 'string' && forkedFrom) this.openCopy(forkedFrom, ts);
      return false;
    }
    if (isMeta && metaId && metaId !== this.sessionId && !this.copy) this.openCopy(metaId, ts);
    const region = this.copy;
    if (!region) return false;
    let copied: boolean;
    if ('fingerprints' in region.source) {
      const fp = this.options.collectFingerprints
        ? this.fingerprints[this.fingerprints.length - 1]!
        : fingerprint(type, record.payload);
      const at = region.positions!.get(fp)?.find((i) => i >= region.cursor);
      copied = at !== undefined;
      if (at !== undefined) region.cursor = at + 1;
    } else {
      const ms = ts ? Date.parse(ts) : NaN;
      copied = !Number.isNaN(ms) && ms <= region.startMs + COPY_WINDOW_MS;
    }
    if (!copied) {
      this.closeCopy();
      if (isMeta && metaId && metaId !== this.sessionId) return this.isCopied(type, record, payload, line, ts);
      return false;
    }
    region.lines += 1;
    if (!region.marker) {
      region.marker = this.push(line, ts, {
        role: 'system',
        source_type: 'meta',
        segments: [],
        event: 'copied_history',
        metadata: { kind: 'system_event', subtype: 'copied history', copied_from: region.from },
      });
    }
    if (type === 'event_msg' && (payload as EventPayload).type === 'token_count') {
      const total = (payload as EventPayload).info?.total_token_usage;
      if (total) this.lastTotal = usageKey(total);
    }
    return true;
  }

  private openCopy(from: string, ts: string | undefined): void {
    const source = this.options.copySource?.(from);
    if (!source) return;
    let positions: Map<string, number[]> | undefined;
    if ('fingerprints' in source) {
      positions = new Map();
      source.fingerprints.forEach((fp, i) => {
        const list = positions!.get(fp);
        if (list) list.push(i);
        else positions!.set(fp, [i]);
      });
    }
    const startMs = ts ? Date.parse(ts) : NaN;
    this.copy = { from, source, cursor: 0, positions, startMs, lines: 0 };
  }

  private closeCopy(): void {
    const region = this.copy;
    this.copy = undefined;
    if (!region?.marker) return;
    this.copiedFrom.add(region.from);
    region.marker.metadata!.copied_lines = region.lines;
    region.marker.segments = [
      {
        channel: 'system',
        type: 'text',
        format: 'copied_history',
        text: `${region.lines} lines copied from session ${region.from} are not repeated here; they belong to that session.`,
      },
    ];
  }

  private addSessionMeta(payload: SessionMetaPayload, line: number, ts: string | undefined): void {
    const own = !this.meta;
    const id = idOf(payload);
    if (own) {
      this.meta = payload;
      this.sessionId = id ?? this.options.nameId;
      if (payload.cwd) this.cwd = payload.cwd;
      if (payload.cli_version) this.cliVersion = payload.cli_version;
      if (payload.git?.branch) this.gitBranch = payload.git.branch;
    }
    const instructions = typeof payload.instructions === 'string' ? payload.instructions.trim() : '';
    const parts = own && instructions ? 2 : undefined;
    this.push(
      line,
      ts,
      {
        role: 'meta',
        source_type: 'session',
        segments: [],
        metadata: {
          kind: 'system_event',
          subtype: own
            ? 'session_meta'
            : id && id === this.sessionId
              ? 'session_meta (again)'
              : 'session_meta (another session)',
          ...(id ? { session_id: id } : {}),
          ...pick(payload, [
            'cwd',
            'originator',
            'cli_version',
            'model_provider',
            'forked_from_id',
            'parent_thread_id',
          ]),
          ...(payload.source !== undefined ? { session_source: payload.source } : {}),
          ...(payload.agent_nickname ? { agent_nickname: payload.agent_nickname } : {}),
          ...(payload.agent_role ? { agent_role: payload.agent_role } : {}),
          ...(payload.git ? { git: payload.git } : {}),
          ...(typeof payload.base_instructions?.text === 'string'
            ? { base_instructions_length: payload.base_instructions.text.length }
            : {}),
        },
      },
      parts ? 0 : undefined,
    );
    if (parts) {
      this.push(
        line,
        ts,
        {
          role: 'meta',
          source_type: 'message',
          segments: [{ channel: 'system', type: 'text', format: 'instructions', text: instructions }],
          metadata: { kind: 'injected', subtype: 'instructions' },
        },
        1,
      );
    }
  }

  private addTurnContext(payload: TurnContextPayload, line: number, ts: string | undefined): void {
    const model = payload.model ?? payload.collaboration_mode?.settings?.model;
    if (typeof model === 'string' && model) this.model = model;
    this.cwd ??= payload.cwd;
    this.push(line, ts, {
      role: 'meta',
      source_type: 'meta',
      segments: [],
      metadata: {
        kind: 'system_event',
        subtype: 'turn_context',
        ...pick(payload, ['turn_id', 'model', 'effort', 'summary', 'cwd', 'approval_policy']),
        ...(payload.sandbox_policy !== undefined ? { sandbox_policy: payload.sandbox_policy } : {}),
      },
    });
  }

  private addCompacted(payload: CompactedPayload, line: number, ts: string | undefined): void {
    this.closeResponse();
    const summary = typeof payload.message === 'string' ? payload.message.trim() : '';
    this.push(
      line,
      ts,
      {
        role: 'system',
        source_type: 'meta',
        segments: [],
        metadata: {
          kind: 'compact_boundary',
          subtype: 'compacted',
          compact: { trigger: summary ? 'local' : 'remote' },
          ...(Array.isArray(payload.replacement_history)
            ? { replacement_items: payload.replacement_history.length }
            : {}),
          ...pick(payload as Record<string, unknown>, ['window_id', 'window_number']),
        },
      },
      summary ? 0 : undefined,
    );
    if (summary) {
      this.push(
        line,
        ts,
        {
          role: 'system',
          source_type: 'message',
          segments: [{ channel: 'system', type: 'text', format: 'compact_summary', text: summary }],
          metadata: { kind: 'compact_summary' },
        },
        1,
      );
    }
  }

  // ---------------------------------------------------------------- response items

  private addItem(item: ResponseItem, line: number, event: string, ts: string | undefined): void {
    const type = item.type ?? item.record_type ?? 'untyped';
    const base = { event, payloadType: type };
    if (type === 'message') return this.addMessage(item, line, ts, base);
    if (type === 'reasoning') return this.addReasoning(item, line, ts, base);
    if (CALL_TYPES.has(type)) return this.addCall(item, type, line, ts, base);
    if (OUTPUT_TYPES.has(type)) return this.addOutput(item, type, line, ts, base);
    if (type === 'agent_message') {
      // Inter-agent message (2026 multi-agent builds): context for this thread, not a human prompt.
      this.closeResponse();
      this.push(line, ts, {
        ...base,
        role: 'meta',
        source_type: 'message',
        segments: contentSegments(item.content, 'input'),
        metadata: {
          kind: 'injected',
          subtype: 'agent_message',
          ...pick(item as Record<string, unknown>, ['author', 'recipient']),
          ...encryptedOf(item),
        },
      });
      return;
    }
    if (SILENT_ITEMS.has(type)) {
      this.push(line, ts, {
        ...base,
        role: 'meta',
        source_type: 'meta',
        segments: [],
        metadata: { kind: 'system_event', subtype: type, ...encryptedOf(item) },
      });
      return;
    }
    this.push(line, ts, {
      ...base,
      role: 'meta',
      source_type: 'meta',
      segments: [],
      metadata: { kind: 'unknown', subtype: type },
      record: scrub(item),
    });
  }

  private addMessage(item: ResponseItem, line: number, ts: string | undefined, base: ItemBase): void {
    const role = item.role ?? 'user';
    const content: ContentItem[] =
      typeof item.content === 'string'
        ? [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: item.content }]
        : Array.isArray(item.content)
          ? item.content
          : typeof item.text === 'string'
            ? [{ type: role === 'assistant' ? 'output_text' : 'input_text', text: item.text }]
            : [];
    if (role === 'assistant') {
      const responseId = this.continueResponse(line);
      const message = this.push(line, ts, {
        ...base,
        role: 'assistant',
        source_type: 'message',
        segments: contentSegments(content, 'output'),
        metadata: {
          kind: 'response',
          response_id: responseId,
          ...(this.model ? { model: this.model } : {}),
          ...(item.phase ? { phase: item.phase } : {}),
          ...encryptedOf(item),
        },
      });
      this.startedResponse(message);
      return;
    }
    this.closeResponse();
    const segments = contentSegments(content, 'input');
    if (role !== 'user') {
      this.push(line, ts, {
        ...base,
        role: 'system',
        source_type: 'message',
        segments: segments.map((s) => ({ ...s, channel: 'system' as const })),
        metadata: { kind: 'injected', subtype: `${role} message` },
      });
      return;
    }
    const texts = content.filter((c) => typeof c.text === 'string').map((c) => c.text!);
    const kind = classifyUserText(texts.join('\n'));
    const envCwd = /^\s*<environment_context>[\s\S]*?<cwd>([^<]+)<\/cwd>/.exec(texts.join('\n'))?.[1]?.trim();
    if (envCwd) this.envCwd ??= envCwd;
    const shown =
      kind === 'command'
        ? segments.map((s) =>
            s.type === 'text' ? { ...s, text: SHELL_COMMAND.exec(s.text?.trim() ?? '')?.[1]?.trim() ?? s.text } : s,
          )
        : segments;
    const message = this.push(line, ts, {
      ...base,
      role: kind === 'injected' ? 'meta' : 'user',
      source_type: 'message',
      segments: shown,
      metadata: { kind },
    });
    this.userItems.push({ message, texts, promptKind: kind });
  }

  private addReasoning(item: ResponseItem, line: number, ts: string | undefined, base: ItemBase): void {
    const responseId = this.continueResponse(line);
    const summary = (Array.isArray(item.summary) ? item.summary : [])
      .map((s) => (typeof s?.text === 'string' ? s.text : ''))
      .filter((t) => t.trim())
      .join('\n\n');
    const raw = Array.isArray(item.content)
      ? item.content
          .map((c) => (typeof c?.text === 'string' ? c.text : ''))
          .filter((t) => t.trim())
          .join('\n\n')
      : '';
    const encrypted = encryptedOf(item);
    const segments: MessageSegment[] = [];
    if (summary) segments.push({ channel: 'output', type: 'text', format: 'thinking', text: summary });
    if (raw) segments.push({ channel: 'output', type: 'text', format: 'thinking', text: raw });
    if (segments.length === 0 && encrypted.encrypted_sha256) {
      segments.push({ channel: 'output', type: 'text', format: 'redacted_thinking', text: '' });
    }
    const message = this.push(line, ts, {
      ...base,
      role: 'assistant',
      source_type: 'message',
      segments,
      metadata: {
        kind: 'response',
        subtype: 'reasoning',
        response_id: responseId,
        ...(this.model ? { model: this.model } : {}),
        ...encrypted,
      },
    });
    this.startedResponse(message);
  }

  private addCall(item: ResponseItem, type: string, line: number, ts: string | undefined, base: ItemBase): void {
    const responseId = this.continueResponse(line);
    let name: string;
    let args: unknown;
    let callId = item.call_id ?? item.id ?? `${type}@${line}`;
    let status: ToolStatus = 'unanswered';
    switch (type) {
      case 'function_call':
        name = item.name ?? 'unknown';
        if (item.namespace && !name.startsWith(`${item.namespace}`)) name = `${item.namespace}.${name}`;
        args = item.arguments;
        break;
      case 'custom_tool_call':
        name = item.name ?? 'unknown';
        args = item.input;
        break;
      case 'local_shell_call':
        name = 'local_shell';
        args = item.action;
        break;
      case 'web_search_call':
        name = 'web_search';
        args = item.action;
        callId = item.id ?? item.call_id ?? callId;
        status = item.status === 'failed' ? 'error' : item.status === 'completed' ? 'completed' : 'unanswered';
        break;
      case 'image_generation_call':
        name = 'image_generation';
        args = pick(item as Record<string, unknown>, ['revised_prompt']);
        status = item.status === 'failed' ? 'error' : item.status ? 'completed' : 'unanswered';
        break;
      default:
        name = 'tool_search';
        args = item.arguments;
    }
    const { text, json, invalid } = argumentsOf(args);
    const message = this.push(line, ts, {
      ...base,
      role: 'tool',
      source_type: 'tool_call',
      segments: [],
      tool_call: {
        call_id: callId,
        name,
        status,
        arguments: text,
        ...(json !== undefined ? { arguments_json: json } : {}),
      },
      metadata: {
        response_id: responseId,
        ...(this.model ? { model: this.model } : {}),
        ...(invalid ? { arguments_invalid_json: true } : {}),
      },
    });
    this.startedResponse(message);
    this.calls.set(callId, message);
  }

  private addOutput(item: ResponseItem, type: string, line: number, ts: string | undefined, base: ItemBase): void {
    this.closeResponse();
    const callId = item.call_id ?? '';
    const parsed =
      type === 'tool_search_output'
        ? { text: JSON.stringify((item as { tools?: unknown }).tools ?? [], null, 2), segments: [], metadata: {} }
        : outputOf(item.output);
    const status: ToolStatus = parsed.error ? 'error' : 'completed';
    const message = this.push(line, ts, {
      ...base,
      role: 'tool',
      source_type: 'tool_result',
      segments: parsed.segments,
      tool_call: {
        call_id: callId,
        name: 'unknown',
        status,
        output: parsed.text,
        ...(parsed.json !== undefined ? { output_json: parsed.json } : {}),
      },
      ...(Object.keys(parsed.metadata).length > 0 ? { metadata: parsed.metadata } : {}),
    });
    this.results.push(message);
  }

  // ---------------------------------------------------------------- events

  private addEvent(payload: EventPayload, line: number, ts: string | undefined): void {
    const kind = payload.type ?? payload.kind ?? 'unknown';
    const base = { payloadType: kind };
    const metadata: MessageMetadata = { kind: 'system_event', event_kind: kind, subtype: kind };
    if (kind === 'token_count') {
      const message = this.push(line, ts, {
        ...base,
        role: 'meta',
        source_type: 'meta',
        segments: [],
        metadata: { ...metadata, ...(payload.info ? { token_count: tokenInfo(payload.info) } : {}) },
      });
      this.countTokens(payload.info ?? undefined, message);
      return;
    }
    if (kind === 'user_message' || kind === 'task_started' || kind === 'turn_started') this.closeResponse();
    if (kind === 'task_complete' || kind === 'turn_complete') this.closeResponse();
    if (kind === 'turn_aborted') {
      this.closeResponse();
      this.push(line, ts, {
        ...base,
        role: 'system',
        source_type: 'meta',
        segments: [
          {
            channel: 'system',
            type: 'text',
            format: 'turn_aborted',
            text: `Turn aborted${payload.reason ? ` (${payload.reason})` : ''}`,
          },
        ],
        metadata: { kind: 'interrupt', event_kind: kind, ...(payload.reason ? { reason: payload.reason } : {}) },
      });
      return;
    }
    if (kind === 'error' || kind === 'stream_error' || kind === 'warning') {
      const text = typeof payload.message === 'string' ? payload.message : kind;
      this.push(line, ts, {
        ...base,
        role: 'system',
        source_type: 'meta',
        segments: [{ channel: 'system', type: 'text', format: kind, text }],
        metadata: { kind: kind === 'error' ? 'api_error' : 'system_event', event_kind: kind, subtype: kind },
      });
      return;
    }
    if (kind === 'thread_name_updated' && typeof payload.thread_name === 'string' && payload.thread_name.trim()) {
      this.threadName = payload.thread_name.trim();
      this.push(line, ts, {
        ...base,
        role: 'meta',
        source_type: 'meta',
        segments: [],
        metadata: { kind: 'title', event_kind: kind, subtype: kind, title: this.threadName },
      });
      return;
    }
    if (kind === 'collab_agent_spawn_end' && payload.new_thread_id && payload.call_id) {
      this.spawnedThreads.set(payload.new_thread_id, payload.call_id);
      metadata.new_thread_id = payload.new_thread_id;
    }
    if (MIRRORS.has(kind)) metadata.mirror = true;
    if (typeof payload.call_id === 'string') metadata.call_id = payload.call_id;
    const known = KNOWN_EVENTS.has(kind);
    const message = this.push(line, ts, {
      ...base,
      role: 'meta',
      source_type: 'meta',
      segments: [],
      metadata: known ? metadata : { ...metadata, kind: 'unknown' },
      ...(known ? {} : { record: scrub({ type: 'event_msg', payload }) }),
    });
    if (kind === 'user_message') this.userEvents.push({ message, payload });
    if (CALL_ENDS.has(kind) && typeof payload.call_id === 'string') this.callEnds.push({ message, payload, kind });
  }

  // ---------------------------------------------------------------- responses and tokens

  /** The response the current output item belongs to: the open one, or a new one. */
  private continueResponse(line: number): string {
    if (this.open) return this.open.id;
    return `${this.idPrefix}r${line}`;
  }

  private startedResponse(first: NormalizedMessage): void {
    if (this.open) return;
    this.open = { id: first.metadata!.response_id!, first, hasUsage: false };
    if (this.pendingUsage) {
      this.giveUsage(first, this.pendingUsage.usage);
      this.open.hasUsage = true;
      this.pendingUsage = undefined;
    }
  }

  private closeResponse(): void {
    this.open = undefined;
  }

  /**
   * Counts a request only when the thread's cumulative total changed (FORMATS.md §2.8), and puts its
   * usage on the first message of the response it belongs to: the open response (newer builds write
   * token_count after the items) or else the next one (0.4x builds write it before them).
   */
  private countTokens(info: TokenCountInfo | undefined, holder: NormalizedMessage): void {
    const total = info?.total_token_usage;
    if (!total) return;
    const key = usageKey(total);
    if (key === this.lastTotal) return;
    const previous = this.lastTotal ? JSON.parse(this.lastTotal) : undefined;
    this.lastTotal = key;
    const last = info.last_token_usage ?? difference(total, previous);
    const usage = toUsage(last);
    if (this.open && !this.open.hasUsage) {
      this.giveUsage(this.open.first, usage);
      this.open.hasUsage = true;
      return;
    }
    if (this.pendingUsage) this.giveUsage(this.pendingUsage.holder, this.pendingUsage.usage);
    this.pendingUsage = { usage, holder };
  }

  private giveUsage(message: NormalizedMessage, usage: TokenUsage): void {
    message.metadata ??= {};
    message.metadata.usage = usage;
  }

  // ---------------------------------------------------------------- linking

  /**
   * The human prompt is what the user typed: when the file has `user_message` events, a user item is
   * a prompt only if an event has its text, and an event without such an item is the prompt itself;
   * without events (legacy), user items are classified by their injected-context prefixes.
   */
  private resolvePrompts(): void {
    if (this.userEvents.length === 0) return;
    const unmatched = new Set(this.userItems);
    for (const event of this.userEvents) {
      const text = (event.payload.message ?? '').trim();
      const item = this.userItems.find(
        (u) => unmatched.has(u) && (u.texts.some((t) => t.trim() === text) || u.texts.join('\n').trim() === text),
      );
      if (item) {
        unmatched.delete(item);
        item.message.role = 'user';
        item.message.metadata!.kind = item.promptKind === 'command' ? 'command' : 'prompt';
        continue;
      }
      const m = event.message;
      m.role = 'user';
      m.source_type = 'message';
      m.segments = [
        ...(text ? [{ channel: 'input' as const, type: 'text' as const, format: 'user_message', text }] : []),
        ...(event.payload.images ?? []).map((url) => imageSegment(url, 'input', 'user_message_image')),
        ...(event.payload.local_images ?? []).map((p): MessageSegment => ({
          channel: 'input',
          type: 'image',
          format: 'local_image',
          media: { omitted: `local file ${p}` },
        })),
      ];
      m.metadata = { kind: 'prompt', event_kind: 'user_message' };
    }
    for (const item of unmatched) {
      item.message.role = 'meta';
      item.message.metadata!.kind = 'injected';
    }
  }

  private linkCallEnds(): void {
    const resultByCall = new Map<string, NormalizedMessage>();
    for (const r of this.results) if (r.tool_call) resultByCall.set(r.tool_call.call_id, r);
    for (const end of this.callEnds) {
      const callId = end.payload.call_id!;
      const details = endDetails(end.kind, end.payload);
      let result = resultByCall.get(callId);
      if (!result) {
        const call = this.calls.get(callId);
        if (!call) continue;
        // No output item: the end event is the result.
        result = end.message;
        result.role = 'tool';
        result.source_type = 'tool_result';
        result.tool_call = {
          call_id: callId,
          name: call.tool_call!.name,
          status: 'completed',
          output: details.output ?? '',
        };
        result.metadata = { event_kind: end.kind };
        this.results.push(result);
        resultByCall.set(callId, result);
      }
      result.metadata ??= {};
      Object.assign(result.metadata, details.metadata);
      if (details.error && result.tool_call) result.tool_call.status = 'error';
    }
  }

  private linkResults(): void {
    for (const r of this.results) {
      const resultCall = r.tool_call;
      if (!resultCall) continue;
      const exit = r.metadata?.exit_code;
      if (typeof exit === 'number' && exit !== 0) resultCall.status = 'error';
      const call = this.calls.get(resultCall.call_id)?.tool_call;
      if (!call) continue;
      resultCall.name = call.name;
      call.status = resultCall.status;
      call.result_id = r.id;
    }
  }

  // ---------------------------------------------------------------- legacy

  private addLegacyHeader(header: LegacyHeader, line: number): void {
    const ts = parseTime(header.timestamp);
    this.lineTimeEstimated = !ts;
    if (ts) this.legacyStartMs = Date.parse(ts);
    this.sessionId = typeof header.id === 'string' && header.id ? header.id : this.options.nameId;
    if (header.cwd) this.cwd = header.cwd;
    if (header.cli_version) this.cliVersion = header.cli_version;
    if (header.git?.branch) this.gitBranch = header.git.branch;
    this.addSessionMeta(
      { id: this.sessionId, timestamp: header.timestamp, instructions: header.instructions, cwd: header.cwd },
      line,
      ts,
    );
    this.meta = { id: this.sessionId, timestamp: header.timestamp, cwd: header.cwd };
  }

  /** Seed 004's legacy rule: the line's own time, else session start + 1 s per line, else file mtime. */
  private legacyTime(record: LegacyHeader, line: number): string | undefined {
    const own = parseTime(record.timestamp);
    this.lineTimeEstimated = !own;
    if (own) return own;
    if (this.legacyStartMs !== undefined) return new Date(this.legacyStartMs + (line - 1) * 1000).toISOString();
    return undefined;
  }

  // ---------------------------------------------------------------- messages

  private push(
    line: number,
    ts: string | undefined,
    fields: Pick<NormalizedMessage, 'role' | 'source_type' | 'segments'> &
      Partial<Pick<NormalizedMessage, 'tool_call' | 'metadata'>> & {
        event?: string;
        payloadType?: string;
        record?: unknown;
      },
    part?: number,
  ): NormalizedMessage {
    const legacy = this.format === 'legacy' || this.format === 'json';
    if (!legacy && ts) {
      this.lastTimestamp = ts;
      for (const m of this.undated) this.setTime(m, new Date(ts));
      this.undated.length = 0;
    }
    const timestamp = (legacy ? ts : (ts ?? this.lastTimestamp)) ?? '';
    const estimated = legacy ? this.lineTimeEstimated : !ts;
    const message: NormalizedMessage = {
      id: `${timestamp}#${this.idPrefix}${line}${part === undefined ? '' : `.${part}`}`,
      timestamp,
      ...(estimated ? { timestamp_estimated: true } : {}),
      role: fields.role,
      source_type: fields.source_type,
      segments: fields.segments,
      ...(fields.tool_call ? { tool_call: fields.tool_call } : {}),
      raw: {
        event_type: fields.event ?? this.lineEvent,
        ...(fields.payloadType ? { payload_type: fields.payloadType } : {}),
        file_path: this.file,
        line_index: line,
        ...(fields.record !== undefined ? { record: fields.record } : {}),
      },
      ...(fields.metadata ? { metadata: fields.metadata } : {}),
    };
    if (!timestamp) {
      if (legacy) this.legacyUndated.push(message);
      else this.undated.push(message);
    }
    this.messages.push(message);
    return message;
  }

  private setTime(m: NormalizedMessage, date: Date): void {
    const iso = date.toISOString();
    m.timestamp = iso;
    m.timestamp_estimated = true;
    m.id = `${iso}#${m.id.split('#').slice(1).join('#')}`;
  }
}

type ItemBase = { event: string; payloadType: string };

// -------------------------------------------------------------------- helpers

function parseTime(raw: unknown): string | undefined {
  return saneIsoFromText(raw);
}

const SAFE_ID = /^[\w.-]{1,200}$/;

/** A session_meta's thread id (`session_id ?? id`, FORMATS.md §2.3), when it is a usable id. */
export function idOf(meta: SessionMetaPayload | undefined): string | undefined {
  const id = meta?.id ?? meta?.session_id;
  return typeof id === 'string' && SAFE_ID.test(id) ? id : undefined;
}

/** The identity of a line's content, without its time (copies are re-stamped when written). */
export function fingerprint(type: string, payload: unknown): string {
  return createHash('sha1')
    .update(type)
    .update('\u0000')
    .update(JSON.stringify(payload ?? null))
    .digest('base64');
}

function pick(source: object, keys: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of keys) {
    const value = (source as Record<string, unknown>)[key];
    if (value !== undefined && value !== null && value !== '') out[key] = value;
  }
  return out;
}

/** `encrypted_content` is never kept: only its SHA-256 and length, for "encrypted reasoning". */
function encryptedOf(item: { encrypted_content?: unknown; content?: unknown }): {
  encrypted_sha256?: string;
  encrypted_length?: number;
} {
  const blobs: string[] = [];
  if (typeof item.encrypted_content === 'string' && item.encrypted_content) blobs.push(item.encrypted_content);
  if (Array.isArray(item.content)) {
    for (const c of item.content as ContentItem[]) {
      if (typeof c?.encrypted_content === 'string' && c.encrypted_content) blobs.push(c.encrypted_content);
    }
  }
  if (blobs.length === 0) return {};
  const joined = blobs.join('');
  return { encrypted_sha256: createHash('sha256').update(joined).digest('hex'), encrypted_length: joined.length };
}

/** A copy of an unknown record with every `encrypted_content` replaced by its hash and length. */
export function scrub(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(scrub);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      if (k === 'encrypted_content' && typeof v === 'string') {
        out[k] = `[encrypted: ${v.length} chars, sha256 ${createHash('sha256').update(v).digest('hex')}]`;
      } else out[k] = scrub(v);
    }
    return out;
  }
  return value;
}

function classifyUserText(text: string): MessageKind {
  const trimmed = text.trim();
  if (!trimmed) return 'injected';
  if (SHELL_COMMAND.test(trimmed)) return 'command';
  if (INJECTED_PREFIXES.some((p) => trimmed.startsWith(p))) return 'injected';
  if (trimmed.startsWith('<turn_aborted>') || INJECTED_TAG.test(trimmed)) return 'injected';
  return 'prompt';
}

function usageKey(u: TokenUsageCounts): string {
  return JSON.stringify([
    u.input_tokens ?? 0,
    u.cached_input_tokens ?? 0,
    u.output_tokens ?? 0,
    u.reasoning_output_tokens ?? 0,
    u.total_tokens ?? 0,
  ]);
}

function difference(total: TokenUsageCounts, previous: number[] | undefined): TokenUsageCounts {
  const [i = 0, c = 0, o = 0, r = 0, t = 0] = previous ?? [];
  return {
    input_tokens: (total.input_tokens ?? 0) - i,
    cached_input_tokens: (total.cached_input_tokens ?? 0) - c,
    output_tokens: (total.output_tokens ?? 0) - o,
    reasoning_output_tokens: (total.reasoning_output_tokens ?? 0) - r,
    total_tokens: (total.total_tokens ?? 0) - t,
  };
}

/** OpenAI semantics: cached ⊂ input, reasoning ⊂ output (FORMATS.md §2.8, §4). */
function toUsage(u: TokenUsageCounts): TokenUsage {
  const input = u.input_tokens ?? 0;
  const cached = u.cached_input_tokens ?? 0;
  return { input: Math.max(0, input - cached), output: u.output_tokens ?? 0, cacheRead: cached, cacheCreation: 0 };
}

function tokenInfo(info: TokenCountInfo): Record<string, unknown> {
  return pick(info as Record<string, unknown>, ['total_token_usage', 'last_token_usage', 'model_context_window']);
}
