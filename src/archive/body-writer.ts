import { promises as fs } from 'node:fs';
import path from 'node:path';
import { type BodyLine, type BodyOut, type MessagePatch, sessionHeader } from '../model/body.ts';
import type { NormalizedMessage } from '../model/message.ts';
import { checkMessage } from '../model/message-schema.ts';
import type { Session, SessionSummary } from '../model/session.ts';
import { writeFileAtomic } from '../util/fs.ts';
import { LineWriter } from '../util/line-writer.ts';
import type { WarningSink } from '../util/warnings.ts';
import { type BodyHeader, messagesFile } from './body-format.ts';

/** Streams body lines to disk. A new body goes to a temp file renamed into place on commit; an append
 * writes in place. Every message is checked against the model first (model/message-schema.ts), whichever
 * source made it: a part of the wrong type or nested too deep is replaced, in place, with a note of what was
 * there, and the message is kept with a warning naming the line it came from. */
export class BodyWriter implements BodyOut {
  private readonly lines: LineWriter;
  /** The last good time written, for a message whose own time was not text. */
  private lastTimestamp = '';

  constructor(
    private readonly header: string,
    append?: { bytes: number },
    private readonly warn?: WarningSink,
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
    if ('message' in line) this.check(line.message);
    this.lines.write(JSON.stringify(line));
  }

  private check(message: NormalizedMessage): void {
    const repairs = checkMessage(message);
    if (repairs.length === 0) {
      this.lastTimestamp = message.timestamp;
      return;
    }
    if (Number.isNaN(Date.parse(message.timestamp))) {
      message.timestamp = this.lastTimestamp || new Date(0).toISOString();
      message.timestamp_estimated = true;
    } else this.lastTimestamp = message.timestamp;
    const raw = message.raw;
    this.warn?.({
      file: raw.file_path || this.lines.target,
      ...(raw.line_index > 0 ? { line: raw.line_index } : {}),
      message: `message kept with parts replaced (${repairs.join('; ')})`,
    });
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
