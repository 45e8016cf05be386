import type { MessageKind, MessageMetadata, NormalizedMessage } from '../../model/message.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { unknown, type Draft, type PartEntry } from './draft.ts';
import { userDrafts } from './user-message.ts';
import {
  fileSegment,
  patchFiles,
  reasoningOf,
  taskSessionOf,
  textOf,
  toolInputOf,
  toolOutputOf,
  toolStatusOf,
  usageOf,
} from './parts.ts';
import {
  isObject,
  isoOf,
  num,
  str,
  type OcMessageInfo,
  type OcMessageRow,
  type OcPart,
  type OcPartRow,
  type OcToolState,
} from './schema.ts';

/** Parts that carry nothing to show: a step's start (its end carries the usage) and a file-tree snapshot hash. */
const SILENT_PARTS = new Set(['step-start', 'snapshot']);

/**
 * Turns one OpenCode session's messages and parts (in order) into normalized messages. Each assistant message is
 * one agent turn made of steps (`step-start` … `step-finish`); each step is one model request, so each is one
 * response (`response_id`) and carries its own tokens and dollar cost (`costUsd`) from its `step-finish` part.
 * A tool part is a call and, once it ran, its result (two messages joined by call id). Records are never dropped
 * for being unknown: an unknown part type is kept as `kind: 'unknown'` with the part in `raw.record`.
 */
export class ThreadNormalizer {
  readonly messages: NormalizedMessage[] = [];
  readonly models = new Set<string>();
  /** Child sessions the `task` tool ran, by the call that ran them. */
  readonly taskCalls = new Map<string, string>();
  cwd?: string;
  firstPrompt?: string;
  agent?: string;
  private seq = 0;

  constructor(
    /** `<agentId>:` for a subagent thread, '' for the main one. */
    private readonly idPrefix: string,
    private readonly warn: WarningSink,
    /** When a message has no time of its own (epoch ms). */
    private readonly fallbackTime: number | undefined,
  ) {}

  add(row: OcMessageRow, parts: OcPartRow[]): void {
    const info = this.parse<OcMessageInfo>(row.data, row.file, `message ${row.id}`);
    if (!info) {
      if (parts.length)
        this.warn({ file: row.file, message: `message ${row.id}: its ${parts.length} parts skipped with it` });
      return;
    }
    const created = num(info.time?.created) ?? row.timeCreated ?? this.fallbackTime;
    const drafts: Draft[] = [];
    const rowRef = { id: row.id, file: row.file };
    if (info.role === 'user') {
      this.agent ??= str(info.agent);
      const prompt = userDrafts(info, this.partsOf(parts), created, drafts, rowRef);
      if (prompt !== undefined && this.firstPrompt === undefined) this.firstPrompt = prompt;
    } else if (info.role === 'assistant') this.assistant(info, row.id, parts, created, drafts, rowRef);
    else {
      this.warn({
        file: row.file,
        message: `message ${row.id}: unknown role ${JSON.stringify(info.role)}; kept as meta`,
      });
      drafts.push(unknown(info, String(info.role ?? 'message'), created, rowRef));
    }
    for (const d of drafts) this.push(d);
  }

  private parse<T>(text: string, file: string, what: string): T | undefined {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.warn({ file, message: `${what}: not valid JSON (${(error as Error).message}); skipped` });
      return undefined;
    }
    if (!isObject(value)) {
      this.warn({ file, message: `${what}: not a JSON object; skipped` });
      return undefined;
    }
    return value as T;
  }

  private partsOf(parts: OcPartRow[]): PartEntry[] {
    const out: PartEntry[] = [];
    for (const p of parts) {
      const part = this.parse<OcPart>(p.data, p.file, `part ${p.id} of message ${p.messageId}`);
      if (part) out.push({ part, row: { id: p.id, file: p.file } });
    }
    return out;
  }

  private assistant(
    info: OcMessageInfo,
    messageId: string,
    rows: OcPartRow[],
    created: number | undefined,
    out: Draft[],
    msg: Draft['row'],
  ) {
    const model = str(info.modelID);
    const provider = str(info.providerID);
    if (model) this.models.add(model);
    this.cwd ??= str(info.path?.cwd);
    const summary = info.summary === true;
    let step = 0;
    let stepStart = 0;
    let counted = false;
    const meta = (kind: MessageKind): MessageMetadata => ({
      kind,
      response_id: `${this.idPrefix}${messageId}#${step}`,
      ...(model ? { model } : {}),
      ...(provider ? { provider } : {}),
      ...((str(info.agent) ?? str(info.mode)) ? { agent: str(info.agent) ?? str(info.mode) } : {}),
    });
    const textKind: MessageKind = summary ? 'compact_summary' : 'response';
    for (const { part, row } of this.partsOf(rows)) {
      const time = num(part.time?.start) ?? created;
      if (part.type === 'step-start') {
        step += 1;
        stepStart = out.length;
      } else if (SILENT_PARTS.has(String(part.type))) {
        // Nothing to show.
      } else if (part.type === 'text') {
        const text = textOf(part.text);
        if (!text && part.synthetic) continue;
        out.push({
          role: 'assistant',
          source_type: 'message',
          segments: [{ channel: 'output', type: 'text', format: 'text', text }],
          metadata: meta(textKind),
          time,
          event: 'text',
          row,
        });
      } else if (part.type === 'reasoning') {
        out.push({
          role: 'assistant',
          source_type: 'message',
          segments: [{ channel: 'output', type: 'text', format: 'thinking', text: textOf(part.text) }],
          metadata: meta('thinking'),
          time,
          event: 'reasoning',
          row,
        });
      } else if (part.type === 'tool') {
        this.tool(part, row, meta('response'), created, out);
      } else if (part.type === 'step-finish') {
        const usage = usageOf(part.tokens);
        const cost = num(part.cost);
        if (!usage && !cost) continue;
        counted = true;
        const target = this.usageTarget(out, stepStart, meta('response'), num(part.time?.end) ?? created, row);
        target.metadata = {
          ...target.metadata,
          ...(usage ? { usage } : {}),
          ...(reasoningOf(part.tokens) ? { reasoningTokens: reasoningOf(part.tokens) } : {}),
          ...(cost ? { costUsd: cost } : {}),
        };
        stepStart = out.length;
      } else if (part.type === 'patch') {
        const files = patchFiles(part);
        out.push({
          role: 'system',
          source_type: 'meta',
          segments: [{ channel: 'system', type: 'text', format: 'patch', text: files.join('\n') }],
          metadata: { kind: 'system_event', subtype: 'patch', files },
          time,
          event: 'patch',
          row,
        });
      } else if (part.type === 'retry') {
        out.push({
          role: 'system',
          source_type: 'meta',
          segments: [{ channel: 'system', type: 'text', format: 'text', text: textOf(part.error) }],
          metadata: { kind: 'api_error', subtype: 'retry', attempt: num(part.attempt) },
          time: num(part.time?.created) ?? time,
          event: 'retry',
          row,
        });
      } else if (part.type === 'file') {
        out.push({
          role: 'assistant',
          source_type: 'message',
          segments: [fileSegment(part, 'output')],
          metadata: meta(textKind),
          time,
          event: 'file',
          row,
        });
      } else out.push(unknown(part, String(part.type ?? 'part'), time, row));
    }
    // No step-finish with tokens (older versions, an aborted step): the message's own tokens, counted once.
    if (!counted) {
      const usage = usageOf(info.tokens);
      const cost = num(info.cost);
      if (usage || cost) {
        const target = this.usageTarget(out, 0, meta('response'), num(info.time?.completed) ?? created, msg);
        target.metadata = {
          ...target.metadata,
          ...(usage ? { usage } : {}),
          ...(reasoningOf(info.tokens) ? { reasoningTokens: reasoningOf(info.tokens) } : {}),
          ...(cost ? { costUsd: cost } : {}),
        };
      }
    }
    const error = isObject(info.error) ? info.error : undefined;
    if (error) {
      const aborted = error.name === 'MessageAbortedError';
      out.push({
        role: 'system',
        source_type: 'meta',
        segments: [
          {
            channel: 'system',
            type: 'text',
            format: 'text',
            text: textOf(error.data) || String(error.name ?? 'error'),
          },
        ],
        metadata: { kind: aborted ? 'interrupt' : 'api_error', subtype: String(error.name ?? 'error') },
        time: num(info.time?.completed) ?? created,
        event: 'error',
        row: msg,
      });
    }
  }

  /** The first message of the step (from `start`) that belongs to the response, or a new empty one. */
  private usageTarget(
    out: Draft[],
    start: number,
    metadata: MessageMetadata,
    time: number | undefined,
    row: Draft['row'],
  ) {
    const found = out.slice(start).find((d) => d.metadata?.response_id === metadata.response_id);
    if (found) return found;
    const empty: Draft = {
      role: 'assistant',
      source_type: 'message',
      segments: [],
      metadata,
      time,
      event: 'step-finish',
      row,
    };
    out.push(empty);
    return empty;
  }

  private tool(part: OcPart, row: Draft['row'], metadata: MessageMetadata, created: number | undefined, out: Draft[]) {
    const state: OcToolState = isObject(part.state) ? part.state : {};
    const name = str(part.tool) ?? 'unknown';
    const callId = str(part.callID) ?? row.id;
    const input = toolInputOf(state);
    const status = toolStatusOf(state);
    const child = name === 'task' ? taskSessionOf(part) : undefined;
    if (child) this.taskCalls.set(child, callId);
    const start = num(state.time?.start) ?? created;
    out.push({
      role: 'tool',
      source_type: 'tool_call',
      segments: [],
      tool_call: {
        call_id: callId,
        name,
        status,
        arguments: typeof input === 'string' ? input : JSON.stringify(input, null, 2),
        arguments_json: input,
      },
      metadata: { ...metadata, ...(str(state.title) ? { title: str(state.title) } : {}) },
      time: start,
      event: 'tool',
      row,
    });
    const output = toolOutputOf(state);
    if (output === undefined) return;
    out.push({
      role: 'tool',
      source_type: 'tool_result',
      segments: [],
      tool_call: { call_id: callId, name, status, output },
      time: num(state.time?.end) ?? start,
      event: 'tool-result',
      row,
    });
  }

  private push(d: Draft): void {
    const n = ++this.seq;
    const iso = isoOf(d.time) ?? isoOf(this.fallbackTime) ?? new Date(0).toISOString();
    const m: NormalizedMessage = {
      id: `${this.idPrefix}${iso}#${n}`,
      timestamp: iso,
      ...(isoOf(d.time) ? {} : { timestamp_estimated: true }),
      role: d.role,
      source_type: d.source_type,
      segments: d.segments,
      ...(d.tool_call ? { tool_call: d.tool_call } : {}),
      raw: {
        event_type: d.event,
        file_path: d.row.file,
        line_index: /\.json$/i.test(d.row.file) ? 1 : n,
        uuid: d.row.id,
        ...(d.record !== undefined ? { record: d.record } : {}),
      },
      ...(d.metadata ? { metadata: d.metadata } : {}),
    };
    if (m.source_type === 'tool_result' && m.tool_call) {
      const call = this.messages.findLast(
        (c) => c.source_type === 'tool_call' && c.tool_call?.call_id === m.tool_call!.call_id && !c.tool_call.result_id,
      );
      if (call?.tool_call) call.tool_call.result_id = m.id;
    }
    this.messages.push(m);
  }
}
