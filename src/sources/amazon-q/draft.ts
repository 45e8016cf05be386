import type { MessageMetadata, NormalizedMessage, RawRef } from '../../model/message.ts';

/** The unit of the transcript-fallback notice, and of the pending `next_message`. */
export const NOTICE_UNIT = 't:notice';
export const NEXT_UNIT = 'n:next';

/** A message before its time is known: the id is `<time>#<local>` once times are resolved. */
export interface Draft {
  message: NormalizedMessage;
  /** The stored unit it belongs to (one history element, the summary, one transcript entry, next_message). */
  unit: string;
  part: number;
  local: string;
  dataTime?: string;
}

export type DraftFields = Pick<NormalizedMessage, 'role' | 'source_type' | 'segments'> &
  Partial<Pick<NormalizedMessage, 'tool_call'>> & { metadata: MessageMetadata };

export type DraftRaw = Omit<RawRef, 'file_path'>;

/** Makes a draft of a message read from one stored conversation (`file`). */
export type MakeDraft = (
  unit: string,
  local: string,
  part: number,
  dataTime: string | undefined,
  raw: DraftRaw,
  fields: DraftFields,
) => Draft;

export function draftMaker(file: string): MakeDraft {
  return (unit, local, part, dataTime, raw, fields) => {
    const message: NormalizedMessage = {
      id: '',
      timestamp: '',
      role: fields.role,
      source_type: fields.source_type,
      segments: fields.segments,
      ...(fields.tool_call ? { tool_call: fields.tool_call } : {}),
      raw: { ...raw, file_path: file },
      metadata: { ...fields.metadata, q_unit: unit },
    };
    return { message, unit, part, local, dataTime };
  };
}

/** The stored unit a message was made from (kept in its metadata, so the archive remembers it). */
export function unitOf(m: NormalizedMessage): string | undefined {
  const unit = m.metadata?.q_unit;
  return typeof unit === 'string' ? unit : undefined;
}
