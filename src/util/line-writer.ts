import { closeSync, mkdirSync, openSync, renameSync, truncateSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';

const BUFFER_BYTES = 1 << 20;

/**
 * Writes a text file line by line through a 1 MiB buffer, with synchronous writes: memory stays bounded
 * whatever the size, and there is no backpressure to manage. A new file goes to a temp file renamed into
 * place on `commit()`; `append` writes in place after cutting the file to that many bytes.
 */
export class LineWriter {
  private readonly file: string;
  private fd: number;
  private readonly buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;

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
    // A UTF-16 code unit is at most 3 bytes of UTF-8: a line that might not fit flushes first, and one longer
    // than the buffer is written on its own.
    const most = line.length * 3 + 1;
    if (this.used + most > BUFFER_BYTES) {
      this.flush();
      if (most > BUFFER_BYTES) {
        writeSync(this.fd, `${line}\n`);
        return;
      }
    }
    this.used += this.buffer.write(line, this.used);
    this.buffer[this.used++] = 0x0a;
  }

  private flush(): void {
    let done = 0;
    while (done < this.used) done += writeSync(this.fd, this.buffer, done, this.used - done);
    this.used = 0;
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
