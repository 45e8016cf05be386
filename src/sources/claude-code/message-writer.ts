import type { NormalizedMessage } from '../../model/message.ts';
import { isOutOfRangeTime, saneIsoFromText, TIME_RANGE_TEXT } from '../../util/time.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { ClaudeRecord } from './schema.ts';

/** What a record handler says of one message; the writer adds its id, time and raw reference. */
export type MessageFields = Pick<NormalizedMessage, 'role' | 'source_type' | 'segments'> &
  Partial<Pick<NormalizedMessage, 'tool_call' | 'metadata'>> & { event?: string; record?: unknown };

function recordTimestamp(record: ClaudeRecord): string | undefined {
  return saneIsoFromText(record.timestamp ?? record.snapshot?.timestamp);
}

/**
 * Turns the messages made from one file's records into dated messages, handed to `emit` in file order. A
 * message without a time of its own takes the last one seen; before any, it waits for the next record that
 * has one (or `flushUndated` at the end of the file).
 */
export class MessageWriter {
  lastTimestamp?: string;
  /** Messages without a time of their own wait here for the next record that has one. */
  private readonly undated: NormalizedMessage[] = [];

  constructor(
    private readonly file: string,
    private readonly idPrefix: string,
    private readonly emit: (message: NormalizedMessage) => void,
    private readonly warn?: WarningSink,
  ) {}

  get hasUndated(): boolean {
    return this.undated.length > 0;
  }

  /** Writes one message of the record on `line` (`part`: its place among several messages of that line). */
  push(line: number, record: ClaudeRecord | undefined, fields: MessageFields, part?: number | string): void {
    const ts = record ? recordTimestamp(record) : undefined;
    if (!ts && record && isOutOfRangeTime(record.timestamp ?? record.snapshot?.timestamp)) {
      this.warn?.({
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
  flushUndated(ts: string): void {
    if (this.undated.length === 0) return;
    const waiting = this.undated.splice(0);
    for (const m of waiting) {
      m.timestamp = ts;
      m.id = `${ts}#${m.id.split('#')[1]}`;
      this.emit(m);
    }
  }
}
