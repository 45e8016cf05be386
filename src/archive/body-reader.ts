import { closeSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { MAIN_THREAD, type BodyLine, ThreadAssembler } from '../model/body.ts';
import type { NormalizedMessage } from '../model/message.ts';
import type { Session, SessionSummary, SubagentThread } from '../model/session.ts';
import { NotRegularFileError, openRegularSync, readJsonFile } from '../util/fs.ts';
import { readJsonl, readJsonlSync } from '../util/jsonl.ts';
import type { BodyHeader, SessionBody } from './body-format.ts';
import { toolResultStandIn } from './json-prefix.ts';
import { PagedBody } from './paged-body.ts';
import { archiveWarning, badArchiveLine } from './warnings.ts';

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
 * bytes and never parsed, and so does any line `parse` turns down (with no thread, and a patch line among them):
 * for passes that read only prose (the Markdown to sanitize), as tool output is most of a body's bytes. Synchronous:
 * these passes run in worker threads, which have nothing else to do meanwhile (or, for a few small bodies, on
 * the build's thread, which would only wait for them).
 */
export function* bodyMessagesButToolResults(
  root: string,
  relative: string,
  parse?: (line: Buffer) => boolean,
): Generator<{ thread: string; message: NormalizedMessage | undefined }> {
  const header = readHeaderSync(root, relative);
  if (!header) return;
  if (header.version !== 2) {
    yield* bodyV1Messages(header as SessionBody);
    return;
  }
  const file = path.join(root, path.dirname(relative), (header as BodyHeader).messages);
  const standIn = parse
    ? (line: Buffer) => toolResultStandIn(line) ?? (parse(line) ? undefined : { thread: '' })
    : toolResultStandIn;
  try {
    for (const { value } of readJsonlSync(file, { onWarning: archiveWarning, standIn })) {
      const line = value as BodyLine | { thread: string; message?: undefined };
      if (!('patch' in line)) yield { thread: line.thread, message: line.message };
    }
  } catch (error) {
    if (error instanceof NotRegularFileError) archiveWarning({ file, message: `${error.message}; not read` });
    else if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

async function* readBodyLines(
  root: string,
  relative: string,
): AsyncGenerator<{ thread: string; message: NormalizedMessage | undefined }> {
  const header = await readJsonFile<SessionBody | BodyHeader>(path.join(root, relative));
  if (!header) return;
  if (header.version !== 2) {
    yield* bodyV1Messages(header as SessionBody);
    return;
  }
  const file = path.join(root, path.dirname(relative), (header as BodyHeader).messages);
  try {
    for await (const { value } of readJsonl(file, { onWarning: archiveWarning })) {
      const line = value as BodyLine;
      if (!('patch' in line)) yield { thread: line.thread, message: line.message };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** A body of the first format: the session whole, its subagents after its messages. */
function* bodyV1Messages({ session }: SessionBody): Generator<{ thread: string; message: NormalizedMessage }> {
  for (const message of session.messages) yield { thread: MAIN_THREAD, message };
  for (const agent of session.subagents) for (const message of agent.messages) yield { thread: agent.agentId, message };
}

/** A body's header (the whole body, of the first format); undefined when it cannot be read or is not an object.
 * Only a regular file is read: a FIFO put in its place would block the read forever. */
function readHeaderSync(root: string, relative: string): SessionBody | BodyHeader | undefined {
  let fd: number | undefined;
  try {
    fd = openRegularSync(path.join(root, relative));
    const header: unknown = JSON.parse(readFileSync(fd, 'utf8'));
    return typeof header === 'object' && header !== null ? (header as SessionBody | BodyHeader) : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A session's body as pages. `digest(n)`, where there is one (PagedBody's), is that of what the last `page(n)`
 * read (see PagedBody.digest); `hashPage(n)` is the same digest taken from the bytes without parsing them. */
export interface SessionPages {
  summary: SessionSummary;
  page(page: number): Session;
  /** The session's subagents but those in `shown` (by id), with their messages. */
  subagentsBut(shown: ReadonlySet<string>): SubagentThread[];
  digest?(page: number): string | undefined;
  hashPage?(page: number): string;
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
): SessionPages | undefined {
  const header = readHeaderSync(root, relative);
  if (!header) return undefined;
  if (header.version === 2 && starts.length > 1) {
    const v2 = header as BodyHeader;
    try {
      const paged = new PagedBody(path.join(root, path.dirname(relative), v2.messages), v2.session, starts);
      return {
        summary: v2.summary,
        page: (n) => paged.page(n),
        subagentsBut: (shown) => paged.subagentsBut(shown),
        digest: (n) => paged.digest(n),
        hashPage: (n) => paged.hashPage(n),
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  const body = wholeBody(root, relative, header);
  return {
    summary: body.summary,
    page: (n) => cut(body.session, n),
    subagentsBut: (shown) => body.session.subagents.filter((agent) => !shown.has(agent.agentId)),
  };
}

/** The same, synchronously (for Astro pages). */
export function readBodyFileSync(root: string, relative: string): SessionBody | undefined {
  const header = readHeaderSync(root, relative);
  return header && wholeBody(root, relative, header);
}

/** The body whose header is `header`, its messages read whole. */
function wholeBody(root: string, relative: string, header: SessionBody | BodyHeader): SessionBody {
  if (header.version !== 2) return header as SessionBody;
  let lines: Buffer;
  let fd: number | undefined;
  try {
    fd = openRegularSync(path.join(root, path.dirname(relative), (header as BodyHeader).messages));
    lines = readFileSync(fd);
  } catch {
    lines = Buffer.alloc(0);
  } finally {
    if (fd !== undefined) closeSync(fd);
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
