import { closeSync, mkdirSync, openSync, renameSync, truncateSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

const FLUSH_CHARS = 1 << 20;

/**
 * Writes a text file line by line through a small buffer, with synchronous writes: memory stays bounded
 * whatever the size, and there is no backpressure to manage. A new file goes to a temp file renamed into
 * place on `commit()`; `append` writes in place after cutting the file to that many bytes.
 */
export class LineWriter {
  private readonly file: string;
  private fd: number;
  private buffer: string[] = [];
  private buffered = 0;

  constructor(
    readonly target: string,
    private readonly append?: { bytes: number },
  ) {
    if (append) {
      truncateSync(target, append.bytes);
      this.file = target;
      this.fd = openSync(target, 'a');
    } else {
      mkdirSync(path.dirname(target), { recursive: true });
      this.file = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      this.fd = openSync(this.file, 'w');
    }
  }

  write(line: string): void {
    this.buffer.push(line, '\n');
    this.buffered += line.length + 1;
    if (this.buffered >= FLUSH_CHARS) this.flush();
  }

  private flush(): void {
    if (this.buffer.length === 0) return;
    writeSync(this.fd, this.buffer.join(''));
    this.buffer = [];
    this.buffered = 0;
  }

  commit(): void {
    this.flush();
    closeSync(this.fd);
    this.fd = -1;
    if (this.file !== this.target) renameSync(this.file, this.target);
  }

  /** Drops what was written: the temp file, or what was appended. */
  discard(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    if (this.append) truncateSync(this.target, this.append.bytes);
    else unlinkSync(this.file);
  }
}
