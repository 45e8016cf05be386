import { promises as fs } from 'node:fs';
import path from 'node:path';
import { type BodyLine, type BodyOut, type MessagePatch, sessionHeader } from '../model/body.ts';
import type { NormalizedMessage } from '../model/message.ts';
import type { Session, SessionSummary } from '../model/session.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { LineWriter } from '../util/line-writer.ts';
import { type BodyHeader, messagesFile } from './body-format.ts';

/** Streams body lines to disk. A new body goes to a temp file renamed into place on commit; an append
 * writes in place. */
export class BodyWriter implements BodyOut {
  private readonly lines: LineWriter;

  constructor(
    private readonly header: string,
    append?: { bytes: number },
  ) {
    this.lines = new LineWriter(messagesFile(header), append);
  }

  message(thread: string, message: NormalizedMessage): void {
    this.line({ thread, message });
  }

  patch(thread: string, patch: MessagePatch): void {
    this.line({ thread, patch });
  }

  line(line: BodyLine): void {
    this.lines.write(JSON.stringify(line));
  }

  /** Finishes the message file and writes the header; returns the message file's size. */
  async commit(summary: SessionSummary, session: Session): Promise<number> {
    this.lines.commit();
    const header: BodyHeader = {
      version: 2,
      summary,
      session: sessionHeader(session),
      messages: path.basename(this.lines.target),
    };
    await writeFileAtomic(this.header, JSON.stringify(header));
    return (await fs.stat(this.lines.target)).size;
  }

  /** Drops what was written (a session that turned out to have nothing to keep, or a resume given up). */
  discard(): void {
    this.lines.discard();
  }
}
