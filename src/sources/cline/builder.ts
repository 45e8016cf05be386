import type { MessageDraft, MessageSegment, NormalizedMessage } from '../../model/message.ts';

export interface Draft extends MessageDraft {
  /** Kept whole for records we do not understand. */
  record?: unknown;
}

export { isObject, num, str } from '../../model/json-value.ts';

export function text(channel: MessageSegment['channel'], value: string, format = 'text'): MessageSegment {
  return { channel, type: 'text', format, text: value };
}

export function isoOf(ms: number | undefined): string | undefined {
  if (ms === undefined || !Number.isFinite(ms) || ms <= 0) return undefined;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

/** The messages of one task, in order: ids `<time>#<record>[.<part>]`, calls joined to their results. */
export class MessageBuilder {
  readonly messages: NormalizedMessage[] = [];
  private readonly undated: NormalizedMessage[] = [];
  private lastTime?: string;
  private readonly calls = new Map<string, NormalizedMessage>();

  constructor(private readonly eventPrefix: string) {}

  /** `index`: the record's 1-based place in its file; `part`: which of the messages one record became. */
  push(d: Draft, file: string, index: number, part: number | undefined, time: string | undefined, event: string) {
    const local = part === undefined ? `${index}` : `${index}.${part}`;
    const m: NormalizedMessage = {
      id: `#${this.eventPrefix}${local}`,
      timestamp: time ?? '',
      role: d.role,
      source_type: d.source_type,
      segments: d.segments,
      ...(d.tool_call ? { tool_call: d.tool_call } : {}),
      raw: {
        event_type: event,
        file_path: file,
        line_index: index,
        ...(d.record !== undefined ? { record: d.record } : {}),
      },
      ...(d.metadata ? { metadata: d.metadata } : {}),
    };
    const call = m.tool_call;
    if (m.source_type === 'tool_call' && call?.call_id) this.calls.set(call.call_id, m);
    if (m.source_type === 'tool_result' && call) {
      const linked = this.calls.get(call.call_id);
      if (linked?.tool_call) {
        if (call.name === 'unknown') call.name = linked.tool_call.name;
        linked.tool_call.status = call.status;
        linked.tool_call.result_id = m.id;
      }
    }
    if (time) {
      for (const u of this.undated.splice(0)) this.date(u, time, true);
      this.date(m, time, false);
      this.lastTime = time;
    } else if (this.lastTime) this.date(m, this.lastTime, true);
    else this.undated.push(m);
    this.messages.push(m);
    return m;
  }

  hasCall(callId: string): boolean {
    return this.calls.has(callId);
  }

  private date(m: NormalizedMessage, time: string, estimated: boolean): void {
    m.timestamp = time;
    m.id = `${time}${m.id.slice(m.id.indexOf('#'))}`;
    if (estimated) m.timestamp_estimated = true;
  }

  /** Dates what no record dated (`fallback`: the folder's time), then points calls at their results' full ids. */
  finish(fallback: string): NormalizedMessage[] {
    for (const u of this.undated.splice(0)) this.date(u, fallback, true);
    const byLocal = new Map(this.messages.map((m) => [m.id.slice(m.id.indexOf('#')), m.id]));
    for (const m of this.messages) {
      const call = m.tool_call;
      if (m.source_type === 'tool_call' && call?.result_id) {
        call.result_id = byLocal.get(call.result_id.slice(call.result_id.indexOf('#'))) ?? call.result_id;
      }
    }
    return this.messages;
  }
}
