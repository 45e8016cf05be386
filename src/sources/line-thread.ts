import type { MessageDraft, NormalizedMessage } from '../model/message.ts';

/** What a normalizer of a session file read record by record makes of a record: one message each. */
export interface LineDraft extends MessageDraft {
  /** The time of this part when it differs from its record's (a tool result's own time). */
  time?: string;
  /** A record of a kind not known: kept whole in the message's `raw.record`. */
  unknown?: boolean;
}

/**
 * The messages of a session file read record by record, where a record may lack a time (Gemini CLI, Qwen Code).
 * A record's drafts get ids from its line, unique in the file (`idPrefix` marks a subagent's lines). A message
 * without a time takes the next dated one's, or else the last one's before it, marked estimated. A tool result
 * is linked to its call; the first result a call gets is its result.
 */
export class LineThread {
  readonly messages: NormalizedMessage[] = [];
  private readonly calls = new Map<string, NormalizedMessage>();
  private readonly ids = new Set<string>();
  private readonly undated: NormalizedMessage[] = [];
  private lastTime?: string;

  constructor(
    private readonly file: string,
    private readonly idPrefix = '',
  ) {}

  /** Whether the call of this id has its result already. */
  hasResult(callId: string): boolean {
    return Boolean(this.calls.get(callId)?.tool_call?.result_id);
  }

  /** A record's drafts, from line `line`: `record` is kept whole when a draft is unknown, or when `keepRecord`. */
  push(
    drafts: LineDraft[],
    line: number,
    time: string | undefined,
    eventType: string,
    record: unknown,
    keepRecord = false,
  ): void {
    drafts.forEach((d, part) => {
      const at = `${this.idPrefix}${line}`;
      let local = `${at}${drafts.length > 1 ? `.${part}` : ''}`;
      for (let n = 1; this.ids.has(local); n++) local = `${at}.${drafts.length > 1 ? `${part}.` : ''}${n}`;
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
          ...(d.unknown || keepRecord ? { record } : {}),
        },
        ...(d.metadata ? { metadata: d.metadata } : {}),
      };
      const dated = d.time ?? time;
      if (dated) {
        for (const u of this.undated.splice(0)) this.date(u, dated, true);
        this.date(m, dated, false);
        if (!this.lastTime || dated > this.lastTime) this.lastTime = dated;
      } else if (this.lastTime) this.date(m, this.lastTime, true);
      else this.undated.push(m);
      this.link(m);
      this.messages.push(m);
    });
  }

  /** Dates what no record dated with `fallbackTime` (a file whose records all lack a time), and hands the
   * messages over. */
  finish(fallbackTime: string): NormalizedMessage[] {
    for (const m of this.undated.splice(0)) this.date(m, fallbackTime, true);
    return this.messages;
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
