import type { MessageDraft } from '../../model/message.ts';
import type { OcPart } from './schema.ts';

/** A normalized message before it has its id (given in order, once every message of a record is made). */
export interface Draft extends MessageDraft {
  /** epoch ms */
  time?: number;
  event: string;
  row: { id: string; file: string };
  record?: unknown;
}

/** A parsed part and the row it came from. */
export interface PartEntry {
  part: OcPart;
  row: Draft['row'];
}

/** A record we do not know: kept whole, never dropped. */
export function unknown(record: unknown, event: string, time: number | undefined, row: Draft['row']): Draft {
  return {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: { kind: 'unknown', subtype: event },
    time,
    event,
    row,
    record,
  };
}
