import { isUtf8 } from 'node:buffer';
import { closeSync, fstatSync, readSync } from 'node:fs';
import type { Hash } from 'node:crypto';
import { cutDeeperThan } from '../model/message-schema.ts';
import { openRegular, openRegularSync } from './fs.ts';
import type { WarningSink } from './warnings.ts';

/** Parts of a record nested deeper than this are replaced with a marker: recursive code (JSON.stringify among
 * it) would overflow the stack on them, and no real record comes close. */
export const MAX_JSON_DEPTH = 1000;

export interface JsonlRecord {
  /** 1-based line number. */
  line: number;
  value: unknown;
  /** Byte offset of the line start, and of the byte after its newline. */
  start: number;
  end: number;
}

export interface JsonlOptions {
  /** Byte offset to start reading at (must be a line start). */
  start?: number;
  /** Line number of the line at `start` (1-based). */
  firstLine?: number;
  onWarning?: WarningSink;
  /** Read size in bytes (default 1 MiB); a smaller one suits reading only the head of many files. */
  chunkSize?: number;
  /** Fed every byte read (from `start`), e.g. to tell next time whether what was read is still the same. */
  hash?: Hash;
  /** Told, once the stream ends, where it ended. */
  onEnd?: (end: JsonlEnd) => void;
  /** A value for a line known from its bytes alone, so it is neither decoded nor parsed (undefined: parse it). */
  standIn?: (bytes: Buffer) => unknown;
}

export interface JsonlEnd {
  /** Byte offset after the last byte read. */
  offset: number;
  /** Lines read, counting from line 1 of the file. */
  lines: number;
  /** Whether the last line ended with a newline (else it may still be being written). */
  terminated: boolean;
}

const NEWLINE = 0x0a;
const LONE_SURROGATE_ESCAPE = /\\u[dD][89a-fA-F][0-9a-fA-F]{2}/;

/**
 * Streams a JSON Lines file record by record. Never holds more than one line (plus one read chunk)
 * in memory. Bad lines are reported through `onWarning` with their line number and skipped;
 * invalid UTF-8 and lone surrogates are repaired (U+FFFD) and reported.
 */
export function readJsonl(file: string, options: JsonlOptions = {}): AsyncGenerator<JsonlRecord> {
  return readJsonlChunks(fileChunks(file, options.start ?? 0, options.chunkSize ?? 1 << 20), file, options);
}

/**
 * A file's bytes from `start`, at most `chunkSize` at a time, the next read already under way while a chunk is
 * handled. Plain reads rather than a ReadStream: a warm collect reads a few small files (prompt histories), and
 * a stream's setup costs more than reading them. The file is closed when the reader stops, early or not.
 */
async function* fileChunks(file: string, start: number, chunkSize: number): AsyncGenerator<Buffer> {
  // Only a regular file is read (a FIFO would block forever); see openRegular.
  const handle = await openRegular(file);
  // Reads are sized to what is left of the file, so a small file does not cost a whole chunk's allocation; once
  // a read finds the file longer than it was (it is being written), whole chunks again.
  let size = fstatSync(handle.fd).size;
  const read = async (position: number): Promise<Buffer> => {
    const buffer = Buffer.allocUnsafe(Math.min(chunkSize, Math.max(size - position, 0) + 4096));
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (position + bytesRead > size) size = Number.POSITIVE_INFINITY;
    return buffer.subarray(0, bytesRead);
  };
  let next = read(start);
  try {
    for (let position = start; ;) {
      const chunk = await next;
      if (chunk.length === 0) return;
      position += chunk.length;
      next = read(position);
      yield chunk;
    }
  } finally {
    await next.catch(() => undefined);
    await handle.close();
  }
}

/**
 * The same reader over any byte stream (a `Readable`, or a decompressor's output), e.g. a
 * `.jsonl.zst` file decoded on the fly. `file` names the source in warnings; byte offsets count
 * the stream's bytes, from `options.start`.
 */
export async function* readJsonlChunks(
  chunks: AsyncIterable<Uint8Array>,
  file: string,
  options: JsonlOptions = {},
): AsyncGenerator<JsonlRecord> {
  const lines = new JsonlLines(file, options);
  for await (const raw of chunks) yield* lines.push(raw);
  yield* lines.end();
}

/**
 * readJsonl, synchronously: for a worker thread that has nothing else to do meanwhile, where each awaited read
 * and each awaited line would leave it idle for a round trip through the event loop. (The site build's Markdown
 * pass over 4,072 bodies took 8.2 s instead of 12.1 s, and each of its two workers 7.3 CPU-s instead of 12.1.)
 */
export function* readJsonlSync(file: string, options: JsonlOptions = {}): Generator<JsonlRecord> {
  const lines = new JsonlLines(file, options);
  const fd = openRegularSync(file);
  try {
    let size = fstatSync(fd).size;
    const chunkSize = options.chunkSize ?? 1 << 20;
    for (let position = options.start ?? 0; ;) {
      // Sized to what is left of the file, as fileChunks does (whole chunks once the file is found growing).
      const chunk = Buffer.allocUnsafe(Math.min(chunkSize, Math.max(size - position, 0) + 4096));
      const read = readSync(fd, chunk, 0, chunk.length, position);
      if (read === 0) break;
      if (position + read > size) size = Number.POSITIVE_INFINITY;
      position += read;
      yield* lines.push(chunk.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
  yield* lines.end();
}

/** Cuts a stream's chunks into lines and parses them (see readJsonl), fed synchronously. */
class JsonlLines {
  private pending: Buffer[] = [];
  private lineNo: number;
  private offset: number;
  private readonly warn: WarningSink;

  constructor(
    private readonly file: string,
    private readonly options: JsonlOptions,
  ) {
    this.lineNo = (options.firstLine ?? 1) - 1;
    this.offset = options.start ?? 0;
    this.warn = options.onWarning ?? (() => {});
  }

  *push(raw: Uint8Array): Generator<JsonlRecord> {
    const chunk = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    this.options.hash?.update(chunk);
    let from = 0;
    let at = chunk.indexOf(NEWLINE, from);
    while (at !== -1) {
      const piece = chunk.subarray(from, at);
      const bytes = this.pending.length > 0 ? Buffer.concat([...this.pending, piece]) : piece;
      this.pending = [];
      const record = this.parseLine(bytes, false);
      if (record) yield record;
      from = at + 1;
      at = chunk.indexOf(NEWLINE, from);
    }
    if (from < chunk.length) this.pending.push(chunk.subarray(from));
  }

  *end(): Generator<JsonlRecord> {
    const terminated = this.pending.length === 0;
    if (!terminated) {
      const record = this.parseLine(Buffer.concat(this.pending), true);
      if (record) yield record;
    }
    this.options.onEnd?.({ offset: this.offset, lines: this.lineNo, terminated });
  }

  private parseLine(bytes: Buffer, isUnterminated: boolean): JsonlRecord | undefined {
    const { file, warn, options } = this;
    this.lineNo += 1;
    const lineNo = this.lineNo;
    const start = this.offset;
    this.offset += bytes.length + (isUnterminated ? 0 : 1);
    const end = this.offset;
    let body = bytes;
    if (body.length > 0 && body[body.length - 1] === 0x0d) body = body.subarray(0, body.length - 1);
    if (start === 0 && body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf) {
      body = body.subarray(3);
    }
    if (body.length === 0 || isBlank(body)) return undefined;
    const standIn = options.standIn?.(body);
    if (standIn !== undefined) return { line: lineNo, value: standIn, start, end };
    // Decoding replaces invalid bytes with U+FFFD; only then is the (slower) validity check needed.
    const text = body.toString('utf8');
    if (text.includes('\uFFFD') && !isUtf8(body)) {
      warn({ file, line: lineNo, message: 'invalid UTF-8, replaced with U+FFFD' });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const reason = isUnterminated
        ? 'truncated last line (no newline, not valid JSON); the writer may still be appending'
        : `invalid JSON (${(error as Error).message})`;
      warn({ file, line: lineNo, message: `${reason}; line skipped` });
      return undefined;
    }
    if (body.length > MAX_JSON_DEPTH && nestedDeeperThan(body, value, MAX_JSON_DEPTH)) {
      // Only the deep part is lost: the rest of the record (a tool call around a deep input) is still read.
      cutDeeperThan(value, MAX_JSON_DEPTH);
      warn({
        file,
        line: lineNo,
        message: `nested more than ${MAX_JSON_DEPTH} levels deep; the deeper part replaced with a marker`,
      });
    }
    if (LONE_SURROGATE_ESCAPE.test(text) && hasLoneSurrogate(value)) {
      value = makeWellFormed(value);
      warn({ file, line: lineNo, message: 'lone UTF-16 surrogate in a string, replaced with U+FFFD' });
    }
    return { line: lineNo, value, start, end };
  }
}

/**
 * Whether a parsed line nests deeper than `max`. JSON.parse itself does not recurse, but much of what handles
 * a record later does. Most lines are ruled out by counting their `{` and `[` bytes (depth cannot exceed
 * that count), which is cheap next to the parse; only the rare line with more is walked, without recursion.
 */
export function nestedDeeperThan(bytes: Buffer | undefined, value: unknown, max: number): boolean {
  if (bytes && countOpeners(bytes, max) <= max) return false;
  if (typeof value !== 'object' || value === null) return false;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop() as Record<string, unknown> | unknown[];
    const depth = depths.pop()!;
    if (depth > max) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        stack.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** `{` and `[` bytes in a line, counting up to just past `max`. */
function countOpeners(bytes: Buffer, max: number): number {
  let count = 0;
  for (const opener of [0x7b, 0x5b]) {
    for (let at = bytes.indexOf(opener); at !== -1; at = bytes.indexOf(opener, at + 1)) {
      if (++count > max) return count;
    }
  }
  return count;
}

function isBlank(bytes: Buffer): boolean {
  for (const b of bytes) if (b !== 0x20 && b !== 0x09 && b !== 0x0d) return false;
  return true;
}

function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return !value.isWellFormed();
  if (Array.isArray(value)) return value.some(hasLoneSurrogate);
  if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (!k.isWellFormed() || hasLoneSurrogate(v)) return true;
  }
  return false;
}

function makeWellFormed(value: unknown): unknown {
  if (typeof value === 'string') return value.toWellFormed();
  if (Array.isArray(value)) return value.map(makeWellFormed);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toWellFormed(), makeWellFormed(v)]));
  }
  return value;
}
