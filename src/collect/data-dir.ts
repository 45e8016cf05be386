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
  type BodyLine,
  type BodyOut,
  bodyLines,
  type MessagePatch,
  sessionHeader,
  ThreadAssembler,
} from '../model/body.ts';
import type { NormalizedMessage, SourceId } from '../model/message.ts';
import type { HistoryPrompt, Session, SessionSummary } from '../model/session.ts';
import { readJsonFile, writeFileAtomic } from '../util/fs.ts';
import { LineWriter } from '../util/line-writer.ts';

/**
 * The data directory: the archive of every session ever collected, plus the small indexes the site loads.
 * Layout (version 2; a version 1 directory is read as it is and upgraded as sessions are written again):
 *
 *   format.json                                     { format, version }
 *   sessions/<source>/<session-id>.json             BodyHeader: summary + the session without its messages
 *   sessions/<source>/<session-id>.messages.jsonl   BodyLine per line: messages, and patches to earlier ones
 *   index/sessions.json                             SessionSummary[] (what the site's collections load)
 *   prompts/<source>.json                           HistoryPrompt[] (prompt history, merged, never shrinks)
 *   cache/                                          derived data, safe to delete (render cache, resume points)
 *
 * Messages are one JSON document per line so that a session of any size is written and read a line at a
 * time (one JSON string of a 2 GB session cannot exist), and a grown session is appended to. Version 1 kept
 * the whole session in the `.json` file.
 */
export const DATA_FORMAT = 'agent-logbook-data';
export const DATA_VERSION = 2;
const READABLE_VERSIONS = [1, 2];

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
      const entries = await fs.readdir(this.root).catch(() => [] as string[]);
      if (entries.length > 0) {
        throw new Error(`${this.root} is not empty and is not an agent-logbook data directory; choose another --data`);
      }
    }
    if (format?.version !== DATA_VERSION) {
      await writeFileAtomic(formatFile, `${JSON.stringify({ format: DATA_FORMAT, version: DATA_VERSION })}\n`);
    }
  }

  bodyPath(source: SourceId, sessionId: string): string {
    return `sessions/${source}/${safeName(sessionId)}.json`;
  }

  messagesPath(relative: string): string {
    return path.join(this.root, messagesFile(relative));
  }

  /** Where a source keeps what it needs to carry on reading a grown file (derived data). */
  resumePath(source: SourceId, sessionId: string): string {
    return path.join(this.root, 'cache', 'resume', source, `${safeName(sessionId)}.json`);
  }

  async readSummaries(): Promise<SessionSummary[]> {
    return (await readJsonFile<SessionSummary[]>(path.join(this.root, 'index', 'sessions.json'))) ?? [];
  }

  async writeSummaries(summaries: SessionSummary[]): Promise<void> {
    const sorted = [...summaries].sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
    await writeFileAtomic(path.join(this.root, 'index', 'sessions.json'), JSON.stringify(sorted));
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
    return new BodyWriter(path.join(this.root, relative), append);
  }

  async readPrompts(source: SourceId): Promise<HistoryPrompt[]> {
    return (await readJsonFile<HistoryPrompt[]>(path.join(this.root, 'prompts', `${source}.json`))) ?? [];
  }

  async writePrompts(source: SourceId, prompts: HistoryPrompt[]): Promise<void> {
    await writeFileAtomic(path.join(this.root, 'prompts', `${source}.json`), JSON.stringify(prompts));
  }
}

function safeName(sessionId: string): string {
  return sessionId.replace(/[^A-Za-z0-9._-]/g, '_');
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
  return assemble(header as BodyHeader, lines);
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
  return assemble(header as BodyHeader, lines);
}

function assemble(header: BodyHeader, bytes: Buffer): SessionBody {
  const threads = new ThreadAssembler();
  let from = 0;
  while (from < bytes.length) {
    let to = bytes.indexOf(0x0a, from);
    if (to === -1) to = bytes.length;
    if (to > from) threads.add(JSON.parse(bytes.toString('utf8', from, to)) as BodyLine);
    from = to + 1;
  }
  return { version: 2, summary: header.summary, session: threads.session(header.session) };
}
