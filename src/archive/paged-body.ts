import { createHash, type Hash } from 'node:crypto';
import { closeSync, openSync, readSync } from 'node:fs';
import { applyPatch, type BodyLine, MAIN_THREAD, type MessagePatch } from '../model/body.ts';
import type { NormalizedMessage } from '../model/message.ts';
import type { Session, SubagentThread } from '../model/session.ts';
import { archiveWarning, badArchiveLine } from './warnings.ts';

const CHUNK = 1 << 20;
const NEWLINE = 0x0a;

/** Where one line of the message file is (and, for a patch, its bytes while they fit in PATCH_BYTES_KEPT). */
interface Span {
  offset: number;
  length: number;
  bytes?: Buffer;
}

/** Bytes of patches a body keeps from its first pass: a page then applies them without a read each (a page at
 * bench scale 1 reads ~90; its longest session keeps under 4 MB). A session with more (a 2 GB one has tens of MB,
 * and the build's thread and each render worker open it) reads the rest where they are. */
const PATCH_BYTES_KEPT = 4 * 1024 * 1024;

/**
 * A long session read a page at a time, for its paginated session pages: one pass over the message lines
 * notes where each page's slice of the main thread starts, where each subagent's lines are, and keeps the
 * patches are; a page then reads only its own lines and their patches. However big the session, memory holds
 * one page (with the subagents its calls spawned, and theirs) and where the lines are, and the file is read about twice
 * in all. (Patches are not kept parsed: a 2 GB session has hundreds of thousands, tens of MB of JSON.)
 *
 * `starts` are the main-thread message indexes where pages start (SessionSummary.pageStarts).
 */
export class PagedBody {
  private readonly pageOffsets: number[] = [];
  private readonly agentLines = new Map<string, Span[]>();
  /** thread → message id → where its patches are, in file order */
  private readonly patches = new Map<string, Map<string, Span[]>>();
  private mainCount = 0;
  /** Offsets of lines that do not parse (skipped, with a warning). */
  private readonly damaged = new Set<number>();
  private patchBytesKept = 0;
  /** page → the digest of the bytes its last read read (see `digest`). */
  private readonly digests = new Map<number, string>();

  constructor(
    private readonly file: string,
    private readonly header: Session,
    private readonly starts: number[],
    private readonly patchBytesBudget = PATCH_BYTES_KEPT,
  ) {
    const fd = openSync(file, 'r');
    try {
      let nextStart = 0;
      forEachLine(fd, 0, file, (line, offset) => {
        let peek: ReturnType<typeof peekLine>;
        try {
          peek = peekLine(line);
        } catch (error) {
          archiveWarning({ file, message: `${badArchiveLine(false, error)} (at byte ${offset})` });
          this.damaged.add(offset);
          return true;
        }
        if (peek.kind === 'patch') {
          let patch: MessagePatch;
          try {
            patch = (JSON.parse(line.toString('utf8')) as { patch: MessagePatch }).patch;
          } catch (error) {
            // A patch that does not parse costs itself only, as a message line that does not parse does.
            archiveWarning({ file, message: `${badArchiveLine(false, error)} (at byte ${offset})` });
            this.damaged.add(offset);
            return true;
          }
          let byId = this.patches.get(peek.thread);
          if (!byId) this.patches.set(peek.thread, (byId = new Map()));
          const span: Span = { offset, length: line.length };
          if (this.patchBytesKept + line.length <= this.patchBytesBudget) {
            span.bytes = Buffer.from(line);
            this.patchBytesKept += line.length;
          }
          const list = byId.get(patch.id);
          if (list) list.push(span);
          else byId.set(patch.id, [span]);
        } else if (peek.thread === MAIN_THREAD) {
          while (nextStart < starts.length && starts[nextStart] === this.mainCount) {
            this.pageOffsets[nextStart] = offset;
            nextStart += 1;
          }
          this.mainCount += 1;
        } else {
          let spans = this.agentLines.get(peek.thread);
          if (!spans) this.agentLines.set(peek.thread, (spans = []));
          spans.push({ offset, length: line.length });
        }
        return true;
      });
    } finally {
      closeSync(fd);
    }
  }

  get pages(): number {
    return this.starts.length;
  }

  /** The session with only page `page`'s (1-based) main-thread messages and the subagents their calls spawned, with
   * those their own calls spawned (on the last page also those whose spawning call is unknown), as sessionPage in
   * transcript/session-view.ts cuts it from a whole session. */
  page(page: number): Session {
    return this.read(page, true).session!;
  }

  /**
   * For a page after the first, a digest of all that its last read read from the file and the header: the bytes
   * of its lines and their patches, the session's `resumedFrom`, and its subagents' entries, lines and patches.
   * The same bytes are the same page, so it stays the same when the session grows past the page; hashing bytes
   * costs far less than hashing the parsed messages again.
   */
  digest(page: number): string | undefined {
    return this.digests.get(page);
  }

  /**
   * The digest `page(page)` would leave for a page after the first (and the same kind of digest for the first),
   * from the bytes alone: a page whose digest is all that is asked (is it as the last build read it?) is not
   * parsed. Only a line that may be the call of one of the session's subagents
   * is, to know whether the page shows that subagent. Comparing a 2 GB session's later pages this way takes
   * its bytes through a hash, not its messages through the heap.
   */
  hashPage(page: number): string {
    return this.read(page, false).digest!;
  }

  /** Page `page` parsed (`parse`), or only hashed. */
  private read(page: number, parse: boolean): { session?: Session; digest?: string } {
    const from = this.starts[page - 1] ?? 0;
    const to = this.starts[page] ?? this.mainCount;
    const messages: NormalizedMessage[] = [];
    const calls = new Set<string>();
    const addCall = (m: NormalizedMessage) => {
      if (m.source_type === 'tool_call' && m.tool_call) calls.add(m.tool_call.call_id);
    };
    // Without parsing, a line is parsed only when it may hold a call that spawned one of the session's subagents.
    const spawning = !parse && this.header.subagents.some((a) => a.parentCallId);
    const offset = this.pageOffsets[page - 1];
    let taken = 0;
    // Only a later page is known by its digest (the first page's key holds the whole summary).
    const read = page > 1 || !parse ? createHash('sha256') : undefined;
    const fd = openSync(this.file, 'r');
    try {
      if (offset !== undefined && from < to) {
        forEachLine(fd, offset, this.file, (line, at) => {
          if (this.damaged.has(at)) return true;
          const peek = peekLine(line);
          if (peek.kind !== 'message' || peek.thread !== MAIN_THREAD) return true;
          taken += 1;
          try {
            if (parse) {
              const message = this.patched(fd, MAIN_THREAD, line, read);
              messages.push(message);
              addCall(message);
            } else {
              this.hashed(fd, MAIN_THREAD, line, read!);
              if (spawning && (line.includes(TOOL_CALL) || !threadFirst(line))) addCall(messageOf(line));
            }
          } catch (error) {
            archiveWarning({ file: this.file, message: `${badArchiveLine(false, error)} (at byte ${at})` });
          }
          return from + taken < to;
        });
      }
      const last = page === this.starts.length;
      // What the page reads besides its lines: the session's header, where its subagents are listed.
      read?.update(`\n${JSON.stringify(this.header.resumedFrom ?? null)}\n`);
      // The subagents the page's calls spawned, then those their calls spawned, and so on, in sessionPage's order:
      // each is shown under the call that spawned it, as on the page of a session of one page.
      const subagents: SubagentThread[] = [];
      const shownAgents = new Set<string>();
      for (let added = true; added;) {
        added = false;
        for (const agent of this.header.subagents) {
          if (shownAgents.has(agent.agentId) || !(agent.parentCallId ? calls.has(agent.parentCallId) : last)) continue;
          shownAgents.add(agent.agentId);
          added = true;
          read?.update(`\n${JSON.stringify(agent)}\n`);
          const lines = this.agentLines.get(agent.agentId) ?? [];
          const agentMessages = lines.flatMap((span) => {
            try {
              const line = readSpan(fd, span);
              if (parse) {
                const message = this.patched(fd, agent.agentId, line, read);
                addCall(message);
                return [message];
              }
              this.hashed(fd, agent.agentId, line, read!);
              if (spawning && (line.includes(TOOL_CALL) || !threadFirst(line))) addCall(messageOf(line));
            } catch (error) {
              archiveWarning({ file: this.file, message: `${badArchiveLine(false, error)} (at byte ${span.offset})` });
            }
            return [];
          });
          subagents.push({ ...agent, messages: agentMessages });
        }
      }
      const digest = read?.digest('hex');
      if (digest !== undefined && page > 1) this.digests.set(page, digest);
      return { session: parse ? { ...this.header, messages, subagents } : undefined, digest };
    } finally {
      closeSync(fd);
    }
  }

  /**
   * The session's subagents but those in `shown`, each with its messages: those whose spawning call is on no page
   * and in no subagent a page shows (its line damaged), which no page shows.
   */
  subagentsBut(shown: ReadonlySet<string>): SubagentThread[] {
    const fd = openSync(this.file, 'r');
    try {
      return this.header.subagents
        .filter((agent) => !shown.has(agent.agentId))
        .map((agent) => ({
          ...agent,
          messages: (this.agentLines.get(agent.agentId) ?? []).flatMap((span) => {
            try {
              return [this.patched(fd, agent.agentId, readSpan(fd, span), undefined)];
            } catch (error) {
              archiveWarning({ file: this.file, message: `${badArchiveLine(false, error)} (at byte ${span.offset})` });
              return [];
            }
          }),
        }));
    } finally {
      closeSync(fd);
    }
  }

  /** A message line parsed with its patches applied; every byte read goes into `read`. */
  private patched(fd: number, thread: string, line: Buffer, read: Hash | undefined): NormalizedMessage {
    read?.update(line).update('\n');
    const { message } = JSON.parse(line.toString('utf8')) as Extract<BodyLine, { message: unknown }>;
    for (const span of this.patches.get(thread)?.get(message.id) ?? []) {
      const patch = span.bytes ?? readSpan(fd, span);
      read?.update(patch).update('\n');
      applyPatch(message, (JSON.parse(patch.toString('utf8')) as { patch: MessagePatch }).patch);
    }
    return message;
  }

  /** What `patched` puts into `read` for the same line, in the same order, without parsing it. (Not for a line
   * that does not parse but whose id can be read: `patched` stops before its patches, this hashes them, so such a
   * page is made again at every build, which says what is damaged, and is never kept stale.) */
  private hashed(fd: number, thread: string, line: Buffer, read: Hash): void {
    read.update(line).update('\n');
    const byId = this.patches.get(thread);
    if (!byId) return;
    for (const span of byId.get(messageIdOf(line)) ?? []) read.update(span.bytes ?? readSpan(fd, span)).update('\n');
  }
}

/** How the archive writes a call's message (JSON.stringify, no spaces; a line in another shape is parsed);
 * patches never change what a message is. */
const TOOL_CALL = '"source_type":"tool_call"';
const THREAD_PREFIX = '{"thread":"';
const MESSAGE_ID = ',"message":{"id":"';

/** Whether a line starts as the archive writes it. */
function threadFirst(line: Buffer): boolean {
  return line.toString('latin1', 0, THREAD_PREFIX.length) === THREAD_PREFIX;
}

function messageOf(line: Buffer): NormalizedMessage {
  return (JSON.parse(line.toString('utf8')) as Extract<BodyLine, { message: unknown }>).message;
}

/** The id of a message line, from its first bytes when it is as the archive writes it
 * (`{"thread":"…","message":{"id":"…"`), else parsed (which throws where `patched` would). */
function messageIdOf(line: Buffer): string {
  if (threadFirst(line)) {
    const threadEnd = stringEnd(line, THREAD_PREFIX.length);
    if (threadEnd !== -1 && line.toString('latin1', threadEnd + 1, threadEnd + 1 + MESSAGE_ID.length) === MESSAGE_ID) {
      const idStart = threadEnd + MESSAGE_ID.length; // its opening quote
      const idEnd = stringEnd(line, idStart + 1);
      if (idEnd !== -1) return JSON.parse(line.toString('utf8', idStart, idEnd + 1)) as string;
    }
  }
  return messageOf(line).id;
}

/** The index of the quote that ends the JSON string whose text starts at `from`, or -1. */
function stringEnd(line: Buffer, from: number): number {
  for (let i = from; i < line.length; i++) {
    if (line[i] === 0x5c) i++;
    else if (line[i] === 0x22) return i;
  }
  return -1;
}

/**
 * What a line is, from its first bytes: the archive writes `{"thread":"…","message":…}` and
 * `{"thread":"…","patch":…}` (thread first); a line in any other shape is parsed whole.
 */
function peekLine(line: Buffer): { thread: string; kind: 'message' | 'patch' } {
  if (threadFirst(line)) {
    const end = stringEnd(line, THREAD_PREFIX.length);
    const next = end === -1 ? '' : line.toString('latin1', end + 1, end + 10);
    const kind = next === ',"message' ? 'message' : next.startsWith(',"patch"') ? 'patch' : undefined;
    if (kind) return { thread: JSON.parse(line.toString('utf8', THREAD_PREFIX.length - 1, end + 1)) as string, kind };
  }
  const parsed = JSON.parse(line.toString('utf8')) as BodyLine;
  return { thread: parsed.thread, kind: 'message' in parsed ? 'message' : 'patch' };
}

/** Calls `onLine` with each non-empty line from `start` (and its byte offset) until it returns false. A last
 * line without a newline that is not whole JSON (a write cut short) is left out with a warning. */
function forEachLine(fd: number, start: number, file: string, onLine: (line: Buffer, offset: number) => boolean): void {
  const chunk = spareChunk ?? Buffer.allocUnsafe(CHUNK);
  spareChunk = undefined; // a read started inside onLine gets a buffer of its own
  try {
    readLines(fd, start, file, chunk, onLine);
  } finally {
    spareChunk = chunk;
  }
}

/**
 * forEachLine's read buffer, kept for its next call on this thread (a line it gives is a view of it, valid during
 * the call only: whoever keeps one copies it). With a buffer of its own per call, each of a 2 GB session's 2,234
 * pages took 1 MB that outlived the page's parsing, was promoted and waited for a full collection: rendering them
 * all took 329 full collections and 260 s, against 199 and 204 s with this (one run each).
 */
let spareChunk: Buffer | undefined;

function readLines(
  fd: number,
  start: number,
  file: string,
  chunk: Buffer,
  onLine: (line: Buffer, offset: number) => boolean,
): void {
  let pending: Buffer[] = [];
  let lineStart = start;
  let position = start;
  for (;;) {
    const read = readSync(fd, chunk, 0, CHUNK, position);
    if (read === 0) break;
    const data = read < CHUNK ? chunk.subarray(0, read) : chunk;
    let from = 0;
    for (let at = data.indexOf(NEWLINE, from); at !== -1; at = data.indexOf(NEWLINE, from)) {
      const piece = data.subarray(from, at);
      const line = pending.length > 0 ? Buffer.concat([...pending, piece]) : piece;
      pending = [];
      if (line.length > 0 && !onLine(line, lineStart)) return;
      lineStart = position + at + 1;
      from = at + 1;
    }
    if (from < read) pending.push(Buffer.from(data.subarray(from)));
    position += read;
  }
  const rest = Buffer.concat(pending);
  if (rest.length === 0) return;
  try {
    JSON.parse(rest.toString('utf8'));
  } catch (error) {
    archiveWarning({ file, message: badArchiveLine(true, error) });
    return;
  }
  onLine(rest, lineStart);
}

function readSpan(fd: number, span: Span): Buffer {
  const line = Buffer.allocUnsafe(span.length);
  let done = 0;
  while (done < span.length) {
    const read = readSync(fd, line, done, span.length - done, span.offset + done);
    if (read === 0) break;
    done += read;
  }
  return line.subarray(0, done);
}
