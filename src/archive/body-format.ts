import type { Session, SessionSummary } from '../model/session.ts';

/** A session body as the rest of the program sees it, whatever its version on disk. */
export interface SessionBody {
  version: number;
  summary: SessionSummary;
  session: Session;
}

/** The header of a version 2 body (its `.json` file); version 1 kept the whole session there instead. */
export interface BodyHeader {
  version: 2;
  summary: SessionSummary;
  /** The session with empty message lists. */
  session: Session;
  /** File name of the message lines, beside the header. */
  messages: string;
}

/** The message file that goes with a body's header. */
export function messagesFile(header: string): string {
  return header.replace(/\.json$/, '.messages.jsonl');
}
