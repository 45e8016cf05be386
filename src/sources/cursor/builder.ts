import type { MessageDraft, NormalizedMessage } from '../../model/message.ts';

/** How long after its last dated message a transcript's mtime is still taken as its end. */
export const LAST_MESSAGE_AFTER_MS = 12 * 3600_000;

/** One message before it has its id and time: what a record of either format becomes. */
export type Draft = MessageDraft;

export interface DraftOrigin {
  /** The file (transcript or state.vscdb) and the 1-based line or position in it. */
  file: string;
  line: number;
  event_type: string;
  /** A time the record itself carries (ISO UTC). */
  time?: string;
  /** `time` is an estimate (e.g. a CLI chat's creation, given to its first message). */
  estimated?: boolean;
  uuid?: string;
  /** Kept whole on `kind: 'unknown'` messages. */
  record?: unknown;
}

/**
 * Builds one thread's messages in order: ids `<time>#<line>[.<part>]` (prefixed for subagent threads), calls
 * joined to their results by call id, and times for records that carry none (estimated from the next dated
 * record, else the previous, else the fallback given to `finish`).
 */
export class ThreadBuilder {
  readonly messages: NormalizedMessage[] = [];
  private readonly calls = new Map<string, NormalizedMessage>();
  /** Calls per tool name not yet answered, for formats whose results name the tool but no call id. */
  private readonly openByName = new Map<string, NormalizedMessage[]>();
  private readonly pendingResults: NormalizedMessage[] = [];

  constructor(private readonly idPrefix = '') {}

  add(drafts: Draft[], origin: DraftOrigin): void {
    drafts.forEach((d, part) => {
      const local = drafts.length > 1 ? `${origin.line}.${part}` : `${origin.line}`;
      const m: NormalizedMessage = {
        id: `#${local}`,
        timestamp: origin.time ?? '',
        ...(origin.time && origin.estimated ? { timestamp_estimated: true } : {}),
        role: d.role,
        source_type: d.source_type,
        segments: d.segments,
        ...(d.tool_call ? { tool_call: d.tool_call } : {}),
        raw: {
          event_type: origin.event_type,
          file_path: origin.file,
          line_index: origin.line,
          ...(origin.uuid ? { uuid: origin.uuid } : {}),
          ...(d.metadata?.kind === 'unknown' ? { record: origin.record } : {}),
        },
        ...(d.metadata ? { metadata: d.metadata } : {}),
      };
      this.messages.push(m);
      const call = m.tool_call;
      if (m.source_type === 'tool_call' && call) {
        if (call.call_id) this.calls.set(call.call_id, m);
        const open = this.openByName.get(call.name) ?? [];
        open.push(m);
        this.openByName.set(call.name, open);
      } else if (m.source_type === 'tool_result' && call) this.pendingResults.push(m);
    });
  }

  /** Dates every message and joins results to calls; the thread is then complete. */
  finish(fallbackStart: string, fallbackEnd: string): NormalizedMessage[] {
    this.link();
    const n = this.messages.length;
    // Undated records: the time of the next dated one, else the previous, else the fallbacks (the last message
    // gets the end fallback: for a transcript, its file's mtime is when it was last written; but not when that
    // is more than half a day after the last dated message, as a file copied, restored or checked out has the
    // mtime of that day: such a session would seem to last for months).
    // Only times the records carry count here, not estimates given to them (a CLI chat's creation).
    const latest = this.messages.reduce((t, m) => (!m.timestamp_estimated && m.timestamp > t ? m.timestamp : t), '');
    const last = this.messages[n - 1];
    const plausibleEnd = !latest || Date.parse(fallbackEnd) - Date.parse(latest) <= LAST_MESSAGE_AFTER_MS;
    if (n > 1 && last && !last.timestamp && fallbackEnd >= latest && plausibleEnd) {
      last.timestamp = fallbackEnd;
      last.timestamp_estimated = true;
    }
    let next: string | undefined;
    const nextTimes: (string | undefined)[] = new Array(n);
    for (let i = n - 1; i >= 0; i -= 1) {
      if (this.messages[i]!.timestamp) next = this.messages[i]!.timestamp;
      nextTimes[i] = next;
    }
    let previous: string | undefined;
    this.messages.forEach((m, i) => {
      if (m.timestamp) previous = m.timestamp;
      else {
        m.timestamp = previous ?? nextTimes[i] ?? fallbackStart;
        m.timestamp_estimated = true;
      }
      m.id = `${this.idPrefix}${m.timestamp}${m.id}`;
    });
    const byLocal = new Map(this.messages.map((m) => [m.id.slice(m.id.indexOf('#') + 1), m.id]));
    for (const m of this.messages) {
      const call = m.tool_call;
      if (m.source_type === 'tool_call' && call?.result_id) call.result_id = byLocal.get(call.result_id);
    }
    return this.messages;
  }

  private link(): void {
    for (const r of this.pendingResults) {
      const result = r.tool_call!;
      let call = result.call_id ? this.calls.get(result.call_id) : undefined;
      const open = this.openByName.get(call?.tool_call?.name ?? result.name);
      if (!call && open) call = open.find((c) => !c.tool_call!.result_id);
      if (!call?.tool_call) continue;
      if (open) open.splice(open.indexOf(call), 1);
      if (!result.call_id) result.call_id = call.tool_call.call_id;
      if (result.name === 'unknown') result.name = call.tool_call.name;
      call.tool_call.status = result.status;
      call.tool_call.result_id = r.id.slice(r.id.indexOf('#') + 1);
    }
  }
}
