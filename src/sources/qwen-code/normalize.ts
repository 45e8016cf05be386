import type {
  MessageKind,
  MessageMetadata,
  MessageSegment,
  NormalizedMessage,
  ToolStatus,
} from '../../model/message.ts';
import { saneIsoFromText } from '../../util/time.ts';
import { LineThread } from '../line-thread.ts';
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
  readonly findings: Findings = { models: [] };
  private readonly thread: LineThread;

  constructor(file: string) {
    this.thread = new LineThread(file);
  }

  /** One line's record (already known to be an object). */
  add(record: QwenRecord, line: number): void {
    this.note(record);
    const drafts = this.drafts(record);
    const type = typeof record.type === 'string' ? record.type : 'record';
    const eventType = record.subtype ? `${type}:${record.subtype}` : type;
    this.thread.push(drafts, line, saneIsoFromText(record.timestamp), eventType, record);
  }

  /** Dates what no record dated (a file whose records all lack a time) and hands the messages over. */
  finish(fallbackTime: string): NormalizedMessage[] {
    return this.thread.finish(fallbackTime);
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
