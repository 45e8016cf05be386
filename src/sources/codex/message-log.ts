import type { NormalizedMessage } from '../../model/message.ts';

export type RolloutFormat = 'event' | 'legacy' | 'json';

/** What a builder says about one message; the log adds its id, time and `raw` origin. */
export type MessageFields = Pick<NormalizedMessage, 'role' | 'source_type' | 'segments'> &
  Partial<Pick<NormalizedMessage, 'tool_call' | 'metadata'>> & {
    event?: string;
    payloadType?: string;
    record?: unknown;
  };

/**
 * The messages of one rollout, in line order, with their ids and times. A line without a time takes
 * the last one seen (event format), or is dated once the file's mtime is known (`dateUndated`).
 */
export class MessageLog {
  readonly messages: NormalizedMessage[] = [];
  format?: RolloutFormat;
  /** The current line's type (`raw.event_type`) and, for legacy lines, whether its time is inferred. */
  lineEvent = 'unknown';
  lineTimeEstimated = false;
  private lastTimestamp?: string;
  private readonly undated: NormalizedMessage[] = [];
  private legacyUndated: NormalizedMessage[] = [];

  constructor(
    private readonly file: string,
    private readonly idPrefix: string,
  ) {}

  push(line: number, ts: string | undefined, fields: MessageFields, part?: number): NormalizedMessage {
    const legacy = this.format === 'legacy' || this.format === 'json';
    if (!legacy && ts) {
      this.lastTimestamp = ts;
      for (const m of this.undated) setTime(m, new Date(ts));
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

  /** Dates what is still undated from the file's mtime: legacy lines 1 s apart, ending at it; others at it. */
  dateUndated(mtime: string): void {
    const mtimeMs = Date.parse(mtime);
    if (this.legacyUndated.length > 0) {
      const last = Math.max(...this.legacyUndated.map((m) => m.raw.line_index));
      for (const m of this.legacyUndated) setTime(m, new Date(mtimeMs - (last - m.raw.line_index) * 1000));
      this.legacyUndated = [];
    }
    for (const m of this.undated) setTime(m, new Date(mtimeMs));
    this.undated.length = 0;
  }
}

function setTime(m: NormalizedMessage, date: Date): void {
  const iso = date.toISOString();
  m.timestamp = iso;
  m.timestamp_estimated = true;
  m.id = `${iso}#${m.id.split('#').slice(1).join('#')}`;
}
