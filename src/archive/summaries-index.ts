import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SessionSummary } from '../model/session.ts';
import { readJsonFile, writeFileAtomic } from '../util/fs.ts';
import { TEMP_FILE } from '../util/line-writer.ts';
import { sharedParseAsync } from '../util/shared-parse.ts';
import { fileStamp } from '../util/stamp.ts';
import { leadingId } from './json-prefix.ts';

/** Of cache/collect-index.json: bump it when IndexEntry's row changes, and older copies are rebuilt. */
const COLLECT_INDEX_VERSION = 3;

/** The files of the summaries index: the summaries (index/sessions.json), and the part of them collect checks
 * (cache/collect-index.json); `root` is the data directory, whose body headers hold every summary too. */
export interface SummariesFiles {
  root: string;
  summaries: string;
  collectIndex: string;
}

/** An IndexEntry as collect-index.json stores it: `[id, startedAt, sourcePresent (1 or 0), body (0 when it is
 * `sessions/<id>.json`), file, stamp, file, stamp, …]`. One flat list per session rather than an object with
 * lists: a warm collect parses thousands, and every object it makes is copied by the garbage collector while
 * the collect runs. */
type IndexRow = (string | number | null)[];

/** The part of a SessionSummary that collect needs to decide what to read again, and to order the index. */
export class IndexEntry {
  private filesMemo: string[] | undefined;

  private constructor(private readonly row: IndexRow) {}

  static of(
    fields: Pick<SessionSummary, 'id' | 'startedAt' | 'files' | 'sourcePresent' | 'body'> & {
      stamps: readonly (string | null)[];
    },
  ): IndexEntry {
    const { id, startedAt, files, stamps, sourcePresent, body } = fields;
    const row: IndexRow = [id, startedAt, sourcePresent ? 1 : 0, body === `sessions/${id}.json` ? 0 : body];
    files.forEach((file, i) => row.push(file, stamps[i] ?? null));
    return new IndexEntry(row);
  }

  /** A row read from collect-index.json; undefined when it is not one. */
  static fromRow(row: unknown): IndexEntry | undefined {
    if (!Array.isArray(row) || row.length % 2 !== 0 || typeof row[0] !== 'string' || typeof row[1] !== 'string')
      return undefined;
    return new IndexEntry(row as IndexRow);
  }

  get id(): string {
    return this.row[0] as string;
  }

  get startedAt(): string {
    return this.row[1] as string;
  }

  get sourcePresent(): boolean {
    return this.row[2] === 1;
  }

  get body(): string {
    const body = this.row[3];
    return typeof body === 'string' ? body : `sessions/${this.id}.json`;
  }

  /** How many files the session was read from; `file(i)` and `stamp(i)` read them without making a list. */
  get fileCount(): number {
    return (this.row.length - 4) / 2;
  }

  file(i: number): string {
    return this.row[4 + 2 * i] as string;
  }

  /** The stamp `file(i)` had when it was read (SessionSummary.fileStamps), null when none was taken. */
  stamp(i: number): string | null {
    const stamp = this.row[5 + 2 * i];
    return typeof stamp === 'string' ? stamp : null;
  }

  get files(): string[] {
    if (this.filesMemo) return this.filesMemo;
    const files: string[] = [];
    for (let i = 0; i < this.fileCount; i++) files.push(this.file(i));
    return (this.filesMemo = files);
  }

  get stamps(): (string | null)[] {
    const stamps: (string | null)[] = [];
    for (let i = 0; i < this.fileCount; i++) stamps.push(this.stamp(i));
    return stamps;
  }

  withPresence(sourcePresent: boolean): IndexEntry {
    if (sourcePresent === this.sourcePresent) return this;
    const row = [...this.row];
    row[2] = sourcePresent ? 1 : 0;
    return new IndexEntry(row);
  }

  toJSON(): IndexRow {
    return this.row;
  }
}

export function indexEntry(summary: SessionSummary): IndexEntry {
  const { fileStamps, files } = summary;
  return IndexEntry.of({ ...summary, stamps: files.map((file) => fileStamps?.[file] ?? null) });
}

/**
 * Every summary of the archive. A missing index is made from the body headers (each holds its session's
 * summary); an index that cannot be read or parsed stops the command (read as empty, the next collect would
 * write an index without the sessions only the archive has).
 */
export async function readSummaries(files: SummariesFiles): Promise<SessionSummary[]> {
  const bytes = await readIndexBytes(files.summaries);
  if (!bytes) return summariesFromBodies(files.root);
  return parseIndex(files.summaries, bytes);
}

/** `readSummaries`, frozen, and shared with the other readers of the same index in this process while one holds it
 * (see shared-parse.ts): a site build's renderer reads it again. */
export async function readSharedSummaries(files: SummariesFiles): Promise<readonly SessionSummary[]> {
  return sharedParseAsync(files.summaries, fileStamp(files.summaries), () => readSummaries(files));
}

/** Writes the index from the body headers when it is missing and the archive has sessions (under the lock). */
export async function rebuildMissingIndex(files: SummariesFiles): Promise<number> {
  // A stat, not a read: every collect comes here, and a warm one reads nothing else of a multi-megabyte index.
  if (await indexExists(files.summaries)) return 0;
  const summaries = await summariesFromBodies(files.root);
  if (summaries.length === 0) return 0;
  await writeSummaries(files, summaries.map(indexEntry), new Map(summaries.map((s) => [s.id, s])), new Map());
  return summaries.length;
}

/** The index's bytes; undefined when there is none; an error in words (path, what to do) when unreadable. */
async function readIndexBytes(file: string): Promise<Buffer | undefined> {
  try {
    return await fs.readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unusableIndex(file, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
}

/** Whether the index exists; an error in words when it cannot even be looked at. */
async function indexExists(file: string): Promise<boolean> {
  try {
    await fs.stat(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw unusableIndex(file, (error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
}

function parseIndex(file: string, bytes: Buffer): SessionSummary[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw unusableIndex(file, `not valid JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw unusableIndex(file, 'not a list of sessions');
  return parsed as SessionSummary[];
}

function unusableIndex(file: string, why: string): Error {
  return new Error(
    `cannot read the session index ${file} (${why.split('\n')[0]}); nothing was changed. Fix its permissions, ` +
      'or move it away and run collect again to rebuild it from the sessions in the archive',
  );
}

/** The summary in each body header under `sessions/<source>/`, for an index that is missing. */
async function summariesFromBodies(root: string): Promise<SessionSummary[]> {
  const summaries: SessionSummary[] = [];
  const sessions = path.join(root, 'sessions');
  for (const source of await fs.readdir(sessions, { withFileTypes: true }).catch(() => [])) {
    if (!source.isDirectory()) continue;
    for (const name of (await fs.readdir(path.join(sessions, source.name))).sort()) {
      if (!name.endsWith('.json') || TEMP_FILE.test(name)) continue;
      const summary = await headerSummary(root, `sessions/${source.name}/${name}`);
      if (summary) summaries.push(summary);
    }
  }
  return summaries.sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
}

/** The summary a body header holds (version 1 and 2 both keep it under `summary`), with the body it is in. */
async function headerSummary(root: string, relative: string): Promise<SessionSummary | undefined> {
  const header = await readJsonFile<{ summary?: SessionSummary }>(path.join(root, relative));
  return header?.summary?.id ? { ...header.summary, body: relative } : undefined;
}

/**
 * Writes the index: one summary per line inside a JSON array, ordered by start. `changed` summaries are
 * written anew; every other session in `entries` keeps its line from the index on disk, copied as bytes
 * (a run that read one session should not parse and write megabytes of summaries), unless `present`
 * changes its sourcePresent.
 */
export async function writeSummaries(
  files: SummariesFiles,
  entries: Iterable<IndexEntry>,
  changed: ReadonlyMap<string, SessionSummary>,
  present: ReadonlyMap<string, boolean>,
): Promise<void> {
  const sorted = [...entries].sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
  const kept = sorted.some((e) => !changed.has(e.id))
    ? await readSummaryLines(files.summaries)
    : new Map<string, Buffer>();
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
    if (!line && !summary) {
      // Not in the index on disk (it was lost): the body header still has the summary.
      summary = await headerSummary(files.root, entry.body);
      if (!summary) continue; // no body either: nothing to keep
      if (presence !== undefined) summary.sourcePresent = presence;
      line = summaryLine(summary);
    }
    if (!line) continue;
    lines.push(line);
    const sourcePresent = presence ?? entry.sourcePresent;
    written.push(summary ? indexEntry({ ...summary, sourcePresent }) : entry.withPresence(sourcePresent));
  }
  const body = lines.flatMap((line, i) => [Buffer.from(i === 0 ? '[\n' : ',\n'), line]);
  body.push(Buffer.from(lines.length === 0 ? '[]\n' : '\n]\n'));
  await writeFileAtomic(files.summaries, Buffer.concat(body));
  const stamp = fileStamp(files.summaries);
  if (stamp)
    await writeFileAtomic(
      files.collectIndex,
      JSON.stringify({ version: COLLECT_INDEX_VERSION, summaries: stamp, entries: written }),
    );
}

/** The index on disk as id → the bytes of its summary (an index written whole on one line is re-split). */
async function readSummaryLines(file: string): Promise<Map<string, Buffer>> {
  const bytes = await readIndexBytes(file);
  const lines = new Map<string, Buffer>();
  if (!bytes) return lines;
  if (!bytes.subarray(0, 2).equals(Buffer.from('[\n'))) {
    for (const summary of parseIndex(file, bytes)) lines.set(summary.id, summaryLine(summary));
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
export async function readIndexEntries(files: SummariesFiles): Promise<IndexEntry[]> {
  const copy = await readJsonFile<{ version?: number; summaries?: string; entries?: unknown }>(files.collectIndex);
  const stamp = fileStamp(files.summaries);
  // No index: the sessions of the body headers (collect writes the index from them, see rebuildMissingIndex).
  if (!stamp) return (await summariesFromBodies(files.root)).map(indexEntry);
  if (copy?.version === COLLECT_INDEX_VERSION && Array.isArray(copy.entries) && copy.summaries === stamp) {
    const entries: IndexEntry[] = [];
    for (const row of copy.entries) {
      const entry = IndexEntry.fromRow(row);
      if (!entry) break;
      entries.push(entry);
    }
    if (entries.length === copy.entries.length) return entries;
  }
  const entries = (await readSummaries(files)).map(indexEntry);
  await writeFileAtomic(
    files.collectIndex,
    JSON.stringify({ version: COLLECT_INDEX_VERSION, summaries: stamp, entries }),
  );
  return entries;
}

/** A summary as a line of the index, its id first (see leadingId). */
function summaryLine({ id, ...rest }: SessionSummary): Buffer {
  return Buffer.from(JSON.stringify({ id, ...rest }));
}
