import { promises as fs } from 'node:fs';
import type { SessionSummary } from '../model/session.ts';
import { readJsonFile, writeFileAtomic } from '../util/fs.ts';
import { fileStamp } from '../util/stamp.ts';
import { leadingId } from './json-prefix.ts';

/** Of cache/collect-index.json: bump it when IndexEntry changes, and older copies are rebuilt. */
const COLLECT_INDEX_VERSION = 2;

/** The files of the summaries index: the summaries (index/sessions.json), and the part of them collect checks
 * (cache/collect-index.json). */
export interface SummariesFiles {
  summaries: string;
  collectIndex: string;
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

export async function readSummaries(file: string): Promise<SessionSummary[]> {
  return (await readJsonFile<SessionSummary[]>(file)) ?? [];
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
    if (!line) continue; // not in the index on disk: nothing to keep
    lines.push(line);
    const sourcePresent = presence ?? entry.sourcePresent;
    written.push(summary ? indexEntry({ ...summary, sourcePresent }) : { ...entry, sourcePresent });
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
  const bytes = await fs.readFile(file).catch(() => undefined);
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
export async function readIndexEntries(files: SummariesFiles): Promise<IndexEntry[]> {
  const copy = await readJsonFile<{ version?: number; summaries?: string; entries?: IndexEntry[] }>(files.collectIndex);
  const stamp = fileStamp(files.summaries);
  if (!stamp) return [];
  if (copy?.version === COLLECT_INDEX_VERSION && copy.entries && copy.summaries === stamp) return copy.entries;
  const entries = (await readSummaries(files.summaries)).map(indexEntry);
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
