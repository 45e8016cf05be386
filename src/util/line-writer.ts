import {
  closeSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  renameSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';

const BUFFER_BYTES = 1 << 20;

/** The write call LineWriter uses: a seam for tests that simulate a full disk (ENOSPC) part-way through a write. */
export const lineWriterIo = {
  writeSync: writeSync as (fd: number, buffer: Uint8Array, offset: number, length: number) => number,
};

/** Temp files LineWriter and writeFileAtomic leave only when a run is killed: `<name>.<pid>[.<tag>].tmp`. */
export const TEMP_FILE = /\.\d+(\.[a-z0-9]+)?\.tmp$/;

/**
 * Writes a text file line by line through a 1 MiB buffer, with synchronous writes: memory stays bounded
 * whatever the size, and there is no backpressure to manage. A new file goes to a temp file renamed into
 * place on `commit()`; `append` writes in place after cutting the file to that many bytes.
 *
 * Only whole lines are ever left in the file: the buffer holds whole lines, and a write that fails part-way
 * (a full disk) cuts the file back to the end of the last line written whole before the error is thrown;
 * a new file's temp file is removed.
 */
export class LineWriter {
  private readonly file: string;
  private fd: number;
  private readonly buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  /** Bytes in the file that end a whole line. */
  private whole: number;
  /** The error a write failed with: every later call throws it again (the file is closed). */
  private failure?: unknown;

  constructor(
    readonly target: string,
    private readonly append?: { bytes: number },
  ) {
    if (append) {
      truncateSync(target, append.bytes);
      this.file = target;
      this.fd = openSync(target, 'a');
      this.whole = append.bytes;
    } else {
      mkdirSync(path.dirname(target), { recursive: true });
      this.file = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      this.fd = openSync(this.file, 'w');
      this.whole = 0;
    }
  }

  write(line: string): void {
    if (this.failure) throw this.failure;
    // A UTF-16 code unit is at most 3 bytes of UTF-8: a line that might not fit flushes first, and one longer
    // than the buffer is written on its own.
    const most = line.length * 3 + 1;
    if (this.used + most > BUFFER_BYTES) {
      this.flush();
      if (most > BUFFER_BYTES) {
        this.writeWhole(Buffer.from(`${line}\n`));
        return;
      }
    }
    this.used += this.buffer.write(line, this.used);
    this.buffer[this.used++] = 0x0a;
  }

  private flush(): void {
    const used = this.used;
    this.used = 0;
    this.writeWhole(this.buffer.subarray(0, used));
  }

  /** Writes bytes that end a line; on failure the file is cut back to its last whole line and the error, with
   * this file's path, is thrown. */
  private writeWhole(bytes: Uint8Array): void {
    let done = 0;
    try {
      while (done < bytes.length) done += lineWriterIo.writeSync(this.fd, bytes, done, bytes.length - done);
    } catch (error) {
      try {
        ftruncateSync(this.fd, this.whole);
      } catch {
        // The error below says what happened; the next collect repairs a torn line.
      }
      this.abandon();
      this.failure = withPath(error, this.target);
      if (error && typeof error === 'object') writeFailures.add(error);
      throw this.failure;
    }
    this.whole += bytes.length;
  }

  commit(): void {
    if (this.failure) throw this.failure;
    this.flush();
    closeSync(this.fd);
    this.fd = -1;
    if (this.file !== this.target) renameSync(this.file, this.target);
  }

  /** Drops what was written: the temp file, or what was appended. Safe to call more than once. */
  discard(): void {
    if (this.fd >= 0) closeSync(this.fd);
    this.fd = -1;
    if (this.append) truncateSync(this.target, this.append.bytes);
    else {
      try {
        unlinkSync(this.file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }

  /** After a failed write: close, and remove a new file's temp file (an append keeps its whole lines). */
  private abandon(): void {
    try {
      if (this.fd >= 0) closeSync(this.fd);
    } catch {
      // already closed
    }
    this.fd = -1;
    if (!this.append) {
      try {
        unlinkSync(this.file);
      } catch {
        // gone already
      }
    }
  }
}

const writeFailures = new WeakSet<object>();

/** Whether an error is a failed archive write (a full disk), which must stop the run rather than be taken for a
 * bad input record. */
export function isWriteFailure(error: unknown): boolean {
  return typeof error === 'object' && error !== null && writeFailures.has(error);
}

/** Gives an error from a write on a descriptor (which names no file) the path it was writing. */
export function withPath(error: unknown, file: string): unknown {
  if (error && typeof error === 'object' && !(error as NodeJS.ErrnoException).path) {
    (error as NodeJS.ErrnoException).path = file;
  }
  return error;
}
