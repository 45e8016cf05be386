import type {
  MessageKind,
  MessageMetadata,
  MessageSegment,
  NormalizedMessage,
  ToolStatus,
} from '../../model/message.ts';
import { saneIsoFromText } from '../../util/time.ts';
import { displayText, partsOf, partsText, responseText, thoughtsText, usageOf } from './content.ts';
import { isObject, str, type Draft, type Findings, type QwenRecord } from './schema.ts';
import { systemDrafts } from './system-records.ts';

/** User-record subtypes the CLI wrote for something other than a typed prompt. */
const INJECTED_SUBTYPES = new Set(['notification', 'cron', 'goal_runtime']);

/** The scheduler's status (`packages/core/src/core/coreToolScheduler.ts`) in the model's words. */
export function statusOf(status: unknown, error: unknown): ToolStatus {
  if (status === 'error' || (status === undefined && error !== undefined && error !== null)) return 'error';
  if (status === 'cancelled') return 'rejected';
  return 'completed';
}

/** Turns one session file's records, in file order, into normalized messages. */
export class QwenNormalizer {
  readonly messages: NormalizedMessage[] = [];
  readonly findings: Findings = { models: [] };
  private readonly calls = new Map<string, NormalizedMessage>();
  private readonly ids = new Set<string>();
  private readonly undated: NormalizedMessage[] = [];
  private lastTime?: string;

  constructor(private readonly file: string) {}

  /** One line's record (already known to be an object). */
  add(record: QwenRecord, line: number): void {
    this.note(record);
    const drafts = this.drafts(record);
    const type = typeof record.type === 'string' ? record.type : 'record';
    const eventType = record.subtype ? `${type}:${record.subtype}` : type;
    this.push(drafts, line, saneIsoFromText(record.timestamp), eventType, record);
  }

  /** Dates what no record dated (a file whose records all lack a time) and hands the messages over. */
  finish(fallbackTime: string): NormalizedMessage[] {
    for (const m of this.undated.splice(0)) this.date(m, fallbackTime, true);
    return this.messages;
  }

  private note(r: QwenRecord): void {
    const f = this.findings;
    if (!f.sessionId && str(r.sessionId)) f.sessionId = r.sessionId;
    if (!f.cwd && str(r.cwd)) f.cwd = r.cwd;
    if (str(r.gitBranch)) f.gitBranch = r.gitBranch;
    if (str(r.version) && r.version !== 'unknown') f.version = r.version;
  }

  private drafts(r: QwenRecord): Draft[] {
    let drafts: Draft[];
    if (r.type === 'user') drafts = this.user(r);
    else if (r.type === 'assistant') drafts = this.assistant(r);
    else if (r.type === 'tool_result') drafts = this.toolResult(r);
    else if (r.type === 'system') drafts = systemDrafts(r, this.findings);
    else drafts = [unknownDraft(str(r.type))];
    const agent = str(r.agentId);
    if (agent || r.isSidechain === true) {
      for (const d of drafts) {
        d.metadata = {
          ...d.metadata,
          ...(agent ? { agent_id: agent } : {}),
          ...(r.isSidechain ? { sidechain: true } : {}),
        };
      }
    }
    return drafts;
  }

  private user(r: QwenRecord): Draft[] {
    const parts = partsOf(r.message);
    const responses = parts.filter((p) => isObject(p) && isObject(p.functionResponse));
    if (responses.length > 0 && responses.length === parts.length) return this.toolResult(r);
    const content = partsText(parts);
    const shown = str(r.systemPayload?.displayText) ?? '';
    const text = shown || content;
    const trimmed = text.trimStart();
    let kind: MessageKind = 'prompt';
    if (r.subtype && INJECTED_SUBTYPES.has(r.subtype)) kind = 'injected';
    else if (trimmed.startsWith('/')) kind = 'command';
    if (kind === 'prompt' && this.findings.firstPrompt === undefined && text.trim()) this.findings.firstPrompt = text;
    const injected = kind === 'injected';
    return [
      {
        role: injected ? 'system' : 'user',
        source_type: 'message',
        segments: [{ channel: injected ? 'system' : 'input', type: 'text', format: 'text', text }],
        metadata: {
          kind,
          ...(r.subtype ? { subtype: r.subtype } : {}),
          ...(shown && shown !== content ? { sent_text: content } : {}),
        },
      },
    ];
  }

  private assistant(r: QwenRecord): Draft[] {
    const model = str(r.model);
    if (model && !this.findings.models.includes(model)) this.findings.models.push(model);
    const meta = (): MessageMetadata => ({
      kind: 'response',
      ...(str(r.uuid) ? { response_id: r.uuid } : {}),
      ...(model ? { model } : {}),
    });
    const parts = partsOf(r.message);
    const segments: MessageSegment[] = thoughtsText(parts).map((text) => ({
      channel: 'output',
      type: 'text',
      format: 'thinking',
      text,
    }));
    const text = partsText(parts);
    if (text) segments.push({ channel: 'output', type: 'text', format: 'text', text });
    const out: Draft[] = [];
    if (segments.length) out.push({ role: 'assistant', source_type: 'message', segments, metadata: meta() });
    for (const p of parts) {
      if (!isObject(p) || !isObject(p.functionCall)) continue;
      const call = p.functionCall;
      const args = call.args ?? {};
      out.push({
        role: 'tool',
        source_type: 'tool_call',
        segments: [],
        tool_call: {
          call_id: str(call.id) ?? '',
          name: str(call.name) ?? 'unknown',
          // Unanswered until its result is read.
          status: 'unanswered',
          arguments: typeof args === 'string' ? args : JSON.stringify(args, null, 2),
          arguments_json: args,
        },
        metadata: meta(),
      });
    }
    if (out.length === 0) out.push({ role: 'assistant', source_type: 'message', segments: [], metadata: meta() });
    const usage = usageOf(r.usageMetadata);
    if (usage) out[0]!.metadata = { ...out[0]!.metadata, usage };
    return out;
  }

  /** A `tool_result` record: one result per `functionResponse` part, its status from `toolCallResult`. */
  private toolResult(r: QwenRecord): Draft[] {
    const info = isObject(r.toolCallResult) ? r.toolCallResult : undefined;
    const responses = partsOf(r.message).filter(
      (p): p is { functionResponse: Record<string, unknown> } => isObject(p) && isObject(p.functionResponse),
    );
    const out: Draft[] = [];
    const status = statusOf(info?.status, info?.error);
    responses.forEach((p, i) => {
      const fr = p.functionResponse;
      const callId = str(fr.id) ?? (i === 0 ? str(info?.callId) : undefined) ?? '';
      const response = fr.response;
      let output = responseText(response);
      if (!output && responses.length === 1) output = displayText(info?.resultDisplay);
      out.push({
        role: 'tool',
        source_type: 'tool_result',
        segments: [],
        tool_call: {
          call_id: callId,
          name: str(fr.name) ?? 'unknown',
          status,
          output,
          ...(isObject(response) ? { output_json: response } : {}),
        },
      });
    });
    if (out.length === 0) {
      // No response part: the display is all there is (or nothing).
      out.push({
        role: 'tool',
        source_type: 'tool_result',
        segments: [],
        tool_call: {
          call_id: str(info?.callId) ?? '',
          name: 'unknown',
          status,
          output: displayText(info?.resultDisplay) || partsText(partsOf(r.message)),
        },
      });
    }
    return out;
  }

  private push(drafts: Draft[], line: number, time: string | undefined, eventType: string, record: unknown): void {
    drafts.forEach((d, part) => {
      let local = `${line}${drafts.length > 1 ? `.${part}` : ''}`;
      for (let n = 1; this.ids.has(local); n++) local = `${line}.${drafts.length > 1 ? `${part}.` : ''}${n}`;
      this.ids.add(local);
      const m: NormalizedMessage = {
        id: `#${local}`,
        timestamp: '',
        role: d.role,
        source_type: d.source_type,
        segments: d.segments,
        ...(d.tool_call ? { tool_call: d.tool_call } : {}),
        raw: {
          event_type: eventType,
          file_path: this.file,
          line_index: line,
          ...(d.unknown ? { record } : {}),
        },
        ...(d.metadata ? { metadata: d.metadata } : {}),
      };
      if (time) {
        for (const u of this.undated.splice(0)) this.date(u, time, true);
        this.date(m, time, false);
        if (!this.lastTime || time > this.lastTime) this.lastTime = time;
      } else if (this.lastTime) this.date(m, this.lastTime, true);
      else this.undated.push(m);
      this.link(m);
      this.messages.push(m);
    });
  }

  /** A call and its result point at each other (the id is final once dated, so linking waits for it). */
  private link(m: NormalizedMessage): void {
    const call = m.tool_call;
    if (!call) return;
    if (m.source_type === 'tool_call' && call.call_id) this.calls.set(call.call_id, m);
    if (m.source_type === 'tool_result') {
      const linked = this.calls.get(call.call_id);
      if (linked?.tool_call && !linked.tool_call.result_id) {
        if (call.name === 'unknown') call.name = linked.tool_call.name;
        linked.tool_call.status = call.status;
        linked.tool_call.result_id = m.id;
      }
    }
  }

  private date(m: NormalizedMessage, time: string, estimated: boolean): void {
    const was = m.id;
    m.timestamp = time;
    m.id = `${time}${m.id.slice(m.id.indexOf('#'))}`;
    if (estimated) m.timestamp_estimated = true;
    const call = m.source_type === 'tool_result' ? this.calls.get(m.tool_call?.call_id ?? '')?.tool_call : undefined;
    if (call?.result_id === was) call.result_id = m.id;
  }
}

export function unknownDraft(subtype?: string): Draft {
  return {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: { kind: 'unknown', ...(subtype ? { subtype } : {}) },
    unknown: true,
  };
}
