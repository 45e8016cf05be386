import {
  closeSync,
  mkdirSync,
  openSync,
  promises as fs,
  readFileSync,
  renameSync,
  truncateSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import {
  MAIN_THREAD,
  type BodyLine,
  type BodyOut,
  bodyLines,
  type MessagePatch,
  sessionHeader,
  ThreadAssembler,
} from '../model/body.ts';
import { idToPathSegment, sessionPathKey } from '../model/ids.ts';
import type { NormalizedMessage, SourceId } from '../model/message.ts';
import type { HistoryPrompt, Session, SessionSummary } from '../model/session.ts';
import { readJsonFile, writeFileAtomic } from '../util/fs.ts';
import { readJsonl } from '../util/jsonl.ts';
import { LineWriter } from '../util/line-writer.ts';
import { archiveWarning, badArchiveLine } from './warnings.ts';
import { LOCK_FILE } from './lock.ts';
import { PagedBody } from './paged-body.ts';

/**
 * The data directory: the archive of every session ever collected, plus the small indexes the site loads.
 * Layout (version 2; a version 1 directory is read as it is and upgraded as sessions are written again):
 *
 *   format.json                                     { format, version }
 *   sessions/<source>/<session-id>.json             BodyHeader: summary + the session without its messages
 *   sessions/<source>/<session-id>.messages.jsonl   BodyLine per line: messages, and patches to earlier ones
 *   index/sessions.json                             SessionSummary[] (what the site's collections load)
 *   prompts/<source>.json                           HistoryPrompt[] (prompt history, merged, never shrinks)
 *   cache/                                          derived data, safe to delete (render cache, resume points,
 *                                                   collect-index.json: the part of the summaries collect checks)
 *
 * Messages are one JSON document per line so that a session of any size is written and read a line at a
 * time (one JSON string of a 2 GB session cannot exist), and a grown session is appended to. Version 1 kept
 * the whole session in the `.json` file.
 */
export const DATA_FORMAT = 'agent-logbook-data';
export const DATA_VERSION = 2;
const READABLE_VERSIONS = [1, 2];
/** Of cache/collect-index.json: bump it when IndexEntry changes, and older copies are rebuilt. */
const COLLECT_INDEX_VERSION = 2;

/** A session body as the rest of the program sees it, whatever its version on disk. */
export interface SessionBody {
  version: number;
  summary: SessionSummary;
  session: Session;
}

interface BodyHeader {
  version: 2;
  summary: SessionSummary;
  /** The session with empty message lists. */
  session: Session;
  /** File name of the message lines, beside the header. */
  messages: string;
}

export class DataDir {
  constructor(readonly root: string) {}

  async open(): Promise<void> {
    const formatFile = path.join(this.root, 'format.json');
    const format = await readJsonFile<{ format?: string; version?: number }>(formatFile);
    if (format && (format.format !== DATA_FORMAT || !READABLE_VERSIONS.includes(format.version ?? 0))) {
      throw new Error(
        `${formatFile}: data directory format ${format.format} v${format.version} is not ${DATA_FORMAT} v${DATA_VERSION}; ` +
          'use a new --data directory (the old one is left untouched)',
      );
    }
    if (!format) {
      // The lock file is the collect's own (taken before this check): it does not make a directory foreign.
      const entries = (await fs.readdir(this.root).catch(() => [] as string[])).filter((e) => e !== LOCK_FILE);
      if (entries.length > 0) {
        throw new Error(`${this.root} is not empty and is not an agent-logbook data directory; choose another --data`);
      }
    }
    if (format?.version !== DATA_VERSION) {
      await writeFileAtomic(formatFile, `${JSON.stringify({ format: DATA_FORMAT, version: DATA_VERSION })}\n`);
    }
  }

  bodyPath(source: SourceId, sessionId: string): string {
    return `sessions/${sessionPathKey(source, sessionId)}.json`;
  }

  messagesPath(relative: string): string {
    return path.join(this.root, messagesFile(relative));
  }

  /** Where a source keeps what it needs to carry on reading a grown file (derived data). */
  resumePath(source: SourceId, sessionId: string): string {
    return path.join(this.root, 'cache', 'resume', source, `${idToPathSegment(sessionId)}.json`);
  }

  async readSummaries(): Promise<SessionSummary[]> {
    return (await readJsonFile<SessionSummary[]>(this.summariesFile)) ?? [];
  }

  /**
   * Writes the index: one summary per line inside a JSON array, ordered by start. `changed` summaries are
   * written anew; every other session in `entries` keeps its line from the index on disk, copied as bytes
   * (a run that read one session should not parse and write megabytes of summaries), unless `present`
   * changes its sourcePresent.
   */
  async writeSummaries(
    entries: Iterable<IndexEntry>,
    changed: ReadonlyMap<string, SessionSummary>,
    present: ReadonlyMap<string, boolean> = new Map(),
  ): Promise<void> {
    const sorted = [...entries].sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
    const kept = sorted.some((e) => !changed.has(e.id)) ? await this.readSummaryLines() : new Map<string, Buffer>();
    const lines: Buffer[] = [];
    const written: IndexEntry[] = [];
    for (const entry of sorted) {
      let summary = changed.get(entry.id);
      let line = summary ? undefined : kept.get(entry.id);
      const presence = present.get(entry.id);
      if (line && presence !== undefined && presence !== entry.sourcePresent) {
        summary = JSON.parse(line.toString('utf8')) as SessionSummary;
        line = undefined;
      }
      if (summary) {
        if (presence !== undefined) summary.sourcePresent = presence;
        line = summaryLine(summary);
      }
      if (!line) continue; // not in the index on disk: nothing to keep
      lines.push(line);
      const sourcePresent = presence ?? entry.sourcePresent;
      written.push(summary ? indexEntry({ ...summary, sourcePresent }) : { ...entry, sourcePresent });
    }
    const body = lines.flatMap((line, i) => [Buffer.from(i === 0 ? '[\n' : ',\n'), line]);
    body.push(Buffer.from(lines.length === 0 ? '[]\n' : '\n]\n'));
    await writeFileAtomic(this.summariesFile, Buffer.concat(body));
    const stamp = await summariesStamp(this.summariesFile);
    if (stamp)
      await writeFileAtomic(
        this.collectIndexFile,
        JSON.stringify({ version: COLLECT_INDEX_VERSION, summaries: stamp, entries: written }),
      );
  }

  /** The index on disk as id → the bytes of its summary (an index written whole on one line is re-split). */
  private async readSummaryLines(): Promise<Map<string, Buffer>> {
    const bytes = await fs.readFile(this.summariesFile).catch(() => undefined);
    const lines = new Map<string, Buffer>();
    if (!bytes) return lines;
    if (!bytes.subarray(0, 2).equals(Buffer.from('[\n'))) {
      for (const summary of JSON.parse(bytes.toString('utf8')) as SessionSummary[])
        lines.set(summary.id, summaryLine(summary));
      return lines;
    }
    let from = 2;
    while (from < bytes.length) {
      let to = bytes.indexOf(0x0a, from);
      if (to === -1) to = bytes.length;
      let line = bytes.subarray(from, to);
      if (line[line.length - 1] === 0x2c) line = line.subarray(0, -1);
      if (line.length > 1) lines.set(leadingId(line), line);
      from = to + 1;
    }
    return lines;
  }
  /**
   * What collect checks of every archived session, read from a small copy kept beside the summaries: the
   * summaries carry per-quarter-hour activity and run to megabytes, which a collect that finds nothing
   * changed should not have to parse. The copy names the summaries file it was made from (size and mtime)
   * and is ignored, and rebuilt from the summaries, when that file is not the same any more.
   */
  async readIndexEntries(): Promise<IndexEntry[]> {
    const copy = await readJsonFile<{ version?: number; summaries?: string; entries?: IndexEntry[] }>(
      this.collectIndexFile,
    );
    const stamp = await summariesStamp(this.summariesFile);
    if (!stamp) return [];
    if (copy?.version === COLLECT_INDEX_VERSION && copy.entries && copy.summaries === stamp) return copy.entries;
    const entries = (await this.readSummaries()).map(indexEntry);
    await writeFileAtomic(
      this.collectIndexFile,
      JSON.stringify({ version: COLLECT_INDEX_VERSION, summaries: stamp, entries }),
    );
    return entries;
  }

  private get summariesFile(): string {
    return path.join(this.root, 'index', 'sessions.json');
  }

  private get collectIndexFile(): string {
    return path.join(this.root, 'cache', 'collect-index.json');
  }

  async readBody(relative: string): Promise<SessionBody | undefined> {
    return readBodyFile(this.root, relative);
  }

  /** Writes a session held in memory. */
  async writeBody(body: { summary: SessionSummary; session: Session }): Promise<void> {
    const writer = this.bodyWriter(body.summary.body);
    for (const line of bodyLines(body.session)) writer.line(line);
    await writer.commit(body.summary, body.session);
  }

  /** A writer that streams a session's message lines to the archive; `append` carries on a body whose
   * message file is `append.bytes` long (anything after that, from an interrupted run, is cut). */
  bodyWriter(relative: string, append?: { bytes: number }): BodyWriter {
    return new BodyWriter(this.inside(relative), append);
  }

  /** The absolute path of a file of the archive; throws for one that would be outside the data directory
   * (the one check every body write passes through). */
  inside(relative: string): string {
    const full = path.resolve(this.root, relative);
    const rel = path.relative(this.root, full);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) {
      throw new Error(`refusing to write ${full}: it is outside the data directory ${this.root}`);
    }
    return full;
  }

  /** Removes a body (header and message file) that no summary refers to any more, e.g. one written under an
   * older file-name mapping before its session was written again under the current one. */
  async removeBody(relative: string): Promise<void> {
    const header = this.inside(relative);
    await fs.rm(header, { force: true });
    await fs.rm(messagesFile(header), { force: true });
  }

  async readPrompts(source: SourceId): Promise<HistoryPrompt[]> {
    return (await readJsonFile<HistoryPrompt[]>(path.join(this.root, 'prompts', `${source}.json`))) ?? [];
  }

  async writePrompts(source: SourceId, prompts: HistoryPrompt[]): Promise<void> {
    await writeFileAtomic(path.join(this.root, 'prompts', `${source}.json`), JSON.stringify(prompts));
  }
}

/** The part of a SessionSummary that collect needs to decide what to read again, and to order the index. */
export interface IndexEntry extends Pick<SessionSummary, 'id' | 'startedAt' | 'files' | 'sourcePresent' | 'body'> {
  /** The stamp of each of `files` when it was read (SessionSummary.fileStamps), in the same order, null when
   * none was taken. A list rather than an object keyed by path: parsing thousands of path keys is most of
   * what a warm collect spends reading this copy. */
  stamps: (string | null)[];
}

export function indexEntry(summary: SessionSummary): IndexEntry {
  const { id, startedAt, files, fileStamps, sourcePresent, body } = summary;
  return { id, startedAt, files, stamps: files.map((file) => fileStamps?.[file] ?? null), sourcePresent, body };
}

/** A summary as a line of the index, its id first (see leadingId). */
function summaryLine({ id, ...rest }: SessionSummary): Buffer {
  return Buffer.from(JSON.stringify({ id, ...rest }));
}

/** The id of a summary line, which starts `{"id":"…"` (written so); anything else is parsed whole. */
function leadingId(line: Buffer): string {
  const prefix = '{"id":"';
  if (line.toString('latin1', 0, prefix.length) === prefix) {
    for (let i = prefix.length; i < line.length; i++) {
      if (line[i] === 0x5c) i++;
      else if (line[i] === 0x22) return JSON.parse(line.toString('utf8', prefix.length - 1, i + 1)) as string;
    }
  }
  return (JSON.parse(line.toString('utf8')) as SessionSummary).id;
}

async function summariesStamp(file: string): Promise<string | undefined> {
  const stat = await fs.stat(file).catch(() => undefined);
  return stat && `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}

function messagesFile(header: string): string {
  return header.replace(/\.json$/, '.messages.jsonl');
}

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

/** Reads a body of either version. */
export async function readBodyFile(root: string, relative: string): Promise<SessionBody | undefined> {
  const header = await readJsonFile<SessionBody | BodyHeader>(path.join(root, relative));
  if (!header) return undefined;
  if (header.version !== 2) return header as SessionBody;
  const lines = await fs
    .readFile(path.join(root, path.dirname(relative), (header as BodyHeader).messages))
    .catch(() => Buffer.alloc(0));
  return assemble(
    header as BodyHeader,
    lines,
    path.join(root, path.dirname(relative), (header as BodyHeader).messages),
  );
}

/**
 * Every message of a body, one at a time, as first written (patches, which change only a tool call's
 * status and links and a response's usage, are not applied): for passes over the archive that need
 * only messages' text and must not hold a whole session.
 */
export async function* bodyMessages(
  root: string,
  relative: string,
): AsyncGenerator<{ thread: string; message: NormalizedMessage }> {
  for await (const line of readBodyLines(root, relative))
    if (line.message) yield { thread: line.thread, message: line.message };
}

/**
 * The same messages, but a tool result stands in as `{ thread, message: undefined }`, known from its first
 * bytes and never parsed: for passes that read only prose (the Markdown to sanitize, the site search's
 * prompts and answers) and count messages, as tool output is most of a body's bytes.
 */
export function bodyMessagesButToolResults(
  root: string,
  relative: string,
): AsyncGenerator<{ thread: string; message: NormalizedMessage | undefined }> {
  return readBodyLines(root, relative, toolResultStandIn);
}

async function* readBodyLines(
  root: string,
  relative: string,
  standIn?: (bytes: Buffer) => { thread: string } | undefined,
): AsyncGenerator<{ thread: string; message: NormalizedMessage | undefined }> {
  const header = await readJsonFile<SessionBody | BodyHeader>(path.join(root, relative));
  if (!header) return;
  if (header.version !== 2) {
    const { session } = header as SessionBody;
    for (const message of session.messages) yield { thread: MAIN_THREAD, message };
    for (const agent of session.subagents)
      for (const message of agent.messages) yield { thread: agent.agentId, message };
    return;
  }
  const file = path.join(root, path.dirname(relative), (header as BodyHeader).messages);
  try {
    for await (const { value } of readJsonl(file, { onWarning: archiveWarning, standIn })) {
      const line = value as BodyLine | { thread: string; message?: undefined };
      if (!('patch' in line)) yield { thread: line.thread, message: line.message };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * `{ thread }` when a message line (as the archive writes it: `{"thread":"…","message":{…`) is a tool
 * result, read from its first bytes: the message's leading fields are scalars up to `source_type`, so it is
 * a top-level field and not text inside one. Anything else, or in doubt: undefined (the line is parsed).
 */
export function toolResultStandIn(line: Buffer): { thread: string } | undefined {
  const head = '{"thread":"';
  if (line.toString('latin1', 0, head.length) !== head) return undefined;
  const threadEnd = stringEnd(line, head.length - 1);
  if (threadEnd === -1) return undefined;
  let at = threadEnd + 1;
  const opening = ',"message":{';
  if (line.toString('latin1', at, at + opening.length) !== opening) return undefined;
  at += opening.length;
  const limit = Math.min(line.length, at + 1024);
  while (at < limit && line[at] === QUOTE) {
    const keyEnd = stringEnd(line, at);
    if (keyEnd === -1 || line[keyEnd + 1] !== 0x3a) return undefined;
    const key = line.toString('latin1', at + 1, keyEnd);
    at = keyEnd + 2;
    if (key === 'source_type') {
      const value = '"tool_result"';
      if (line.toString('latin1', at, at + value.length) !== value) return undefined;
      const after = line[at + value.length];
      if (after !== 0x2c && after !== 0x7d) return undefined;
      return { thread: JSON.parse(line.toString('utf8', head.length - 1, threadEnd + 1)) as string };
    }
    if (line[at] === QUOTE) {
      const valueEnd = stringEnd(line, at);
      if (valueEnd === -1) return undefined;
      at = valueEnd + 1;
    } else {
      // A number, true, false or null; an object or an array ends the look.
      while (at < limit && line[at] !== 0x2c && line[at] !== 0x7d) {
        if (line[at] === 0x7b || line[at] === 0x5b || line[at] === QUOTE) return undefined;
        at += 1;
      }
    }
    if (line[at] !== 0x2c) return undefined;
    at += 1;
  }
  return undefined;
}

/** The index of the quote that closes the JSON string opening at `open`, or -1. */
function stringEnd(line: Buffer, open: number): number {
  for (let at = open + 1; at < line.length; at++) {
    if (line[at] === BACKSLASH) at += 1;
    else if (line[at] === QUOTE) return at;
  }
  return -1;
}

/**
 * The pages of a session (SessionSummary.pageStarts), synchronously for Astro pages: a version 2 body
 * with more than one page is read a page at a time (see PagedBody); anything else is read whole and
 * `cut` into pages. Undefined when the body is missing.
 */
export function openSessionPages(
  root: string,
  relative: string,
  starts: number[],
  cut: (session: Session, page: number) => Session,
): { summary: SessionSummary; page(page: number): Session } | undefined {
  let header: SessionBody | BodyHeader;
  try {
    header = JSON.parse(readFileSync(path.join(root, relative), 'utf8'));
  } catch {
    return undefined;
  }
  if (header.version === 2 && starts.length > 1) {
    const v2 = header as BodyHeader;
    try {
      const paged = new PagedBody(path.join(root, path.dirname(relative), v2.messages), v2.session, starts);
      return { summary: v2.summary, page: (n) => paged.page(n) };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const body = readBodyFileSync(root, relative);
  if (!body) return undefined;
  return { summary: body.summary, page: (n) => cut(body.session, n) };
}

/** The same, synchronously (for Astro pages). */
export function readBodyFileSync(root: string, relative: string): SessionBody | undefined {
  let header: SessionBody | BodyHeader;
  try {
    header = JSON.parse(readFileSync(path.join(root, relative), 'utf8'));
  } catch {
    return undefined;
  }
  if (header.version !== 2) return header as SessionBody;
  let lines: Buffer;
  try {
    lines = readFileSync(path.join(root, path.dirname(relative), (header as BodyHeader).messages));
  } catch {
    lines = Buffer.alloc(0);
  }
  return assemble(
    header as BodyHeader,
    lines,
    path.join(root, path.dirname(relative), (header as BodyHeader).messages),
  );
}

function assemble(header: BodyHeader, bytes: Buffer, file: string): SessionBody {
  const threads = new ThreadAssembler();
  let from = 0;
  let line = 0;
  while (from < bytes.length) {
    let to = bytes.indexOf(0x0a, from);
    const torn = to === -1;
    if (torn) to = bytes.length;
    line += 1;
    if (to > from) {
      let value: BodyLine;
      try {
        value = JSON.parse(bytes.toString('utf8', from, to)) as BodyLine;
      } catch (error) {
        archiveWarning({ file, line, message: badArchiveLine(torn, error) });
        from = to + 1;
        continue;
      }
      threads.add(value);
    }
    from = to + 1;
  }
  return { version: 2, summary: header.summary, session: threads.session(header.session) };
}
