import { promises as fs } from 'node:fs';
import path from 'node:path';
import { bodyLines } from '../model/body.ts';
import { idToPathSegment, sessionPathKey } from '../model/ids.ts';
import type { SourceId } from '../model/message.ts';
import type { HistoryPrompt, Session, SessionSummary } from '../model/session.ts';
import { readJsonFile, writeFileAtomic } from '../util/fs.ts';
import type { WarningSink } from '../util/warnings.ts';
import { type SessionBody, messagesFile } from './body-format.ts';
import { readBodyFile } from './body-reader.ts';
import { BodyWriter } from './body-writer.ts';
import { LOCK_FILE } from './lock.ts';
import * as summariesIndex from './summaries-index.ts';
import type { IndexEntry, SummariesFiles } from './summaries-index.ts';

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
 *                                                   collect-index.json: the part of the summaries collect checks,
 *                                                   history-files.json: the prompt histories read, by stamp)
 *
 * Messages are one JSON document per line so that a session of any size is written and read a line at a
 * time (one JSON string of a 2 GB session cannot exist), and a grown session is appended to. Version 1 kept
 * the whole session in the `.json` file.
 */
export const DATA_FORMAT = 'agent-logbook-data';
export const DATA_VERSION = 2;
const READABLE_VERSIONS = [1, 2];

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
      // What a collect writes before format.json does not make a directory foreign: its lock (taken before this
      // check), the lock's takeover files, the recovery marker under cache/, and a format.json it was killed
      // while writing (a temp file, removed here).
      const entries = await fs.readdir(this.root).catch(() => [] as string[]);
      const foreign: string[] = [];
      for (const entry of entries) {
        if (entry === LOCK_FILE || entry.startsWith(`${LOCK_FILE}.`) || entry === 'cache') continue;
        if (entry.startsWith('format.json.') && entry.endsWith('.tmp')) {
          await fs.rm(path.join(this.root, entry), { force: true });
          continue;
        }
        foreign.push(entry);
      }
      if (foreign.length > 0) {
        throw new Error(`${this.root} is not empty and is not an agent-logbook data directory; choose another --data`);
      }
    }
    if (format?.version !== DATA_VERSION) {
      await writeFileAtomic(formatFile, `${JSON.stringify({ format: DATA_FORMAT, version: DATA_VERSION })}\n`);
    }
    // A lost index is written again from the bodies now (a collect finding nothing changed writes none).
    await summariesIndex.rebuildMissingIndex(this.summariesFiles);
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
    return summariesIndex.readSummaries(this.summariesFiles);
  }

  /** The summaries, frozen and shared within the process (see summariesIndex.readSharedSummaries). */
  async readSharedSummaries(): Promise<readonly SessionSummary[]> {
    return summariesIndex.readSharedSummaries(this.summariesFiles);
  }

  /** Writes the index of `entries` (see summaries-index.ts). */
  async writeSummaries(
    entries: Iterable<IndexEntry>,
    changed: ReadonlyMap<string, SessionSummary>,
    present: ReadonlyMap<string, boolean> = new Map(),
  ): Promise<void> {
    return summariesIndex.writeSummaries(this.summariesFiles, entries, changed, present);
  }

  /** What collect checks of every archived session (see summaries-index.ts). */
  async readIndexEntries(): Promise<IndexEntry[]> {
    return summariesIndex.readIndexEntries(this.summariesFiles);
  }

  private get summariesFiles(): SummariesFiles {
    return {
      root: this.root,
      summaries: path.join(this.root, 'index', 'sessions.json'),
      collectIndex: path.join(this.root, 'cache', 'collect-index.json'),
    };
  }

  async readBody(relative: string): Promise<SessionBody | undefined> {
    return readBodyFile(this.root, relative);
  }

  /** Writes a session held in memory. */
  async writeBody(body: { summary: SessionSummary; session: Session }, warn?: WarningSink): Promise<void> {
    const writer = this.bodyWriter(body.summary.body, undefined, warn);
    for (const line of bodyLines(body.session)) writer.line(line);
    await writer.commit(body.summary, body.session);
  }

  /** A writer that streams a session's message lines to the archive; `append` carries on a body whose
   * message file is `append.bytes` long (anything after that, from an interrupted run, is cut); `warn` is told
   * of each message kept with parts replaced. */
  bodyWriter(relative: string, append?: { bytes: number }, warn?: WarningSink): BodyWriter {
    return new BodyWriter(this.inside(relative), append, warn);
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

  /** Where a source's merged prompt history is kept. */
  promptsPath(source: SourceId): string {
    return path.join(this.root, 'prompts', `${source}.json`);
  }

  async readPrompts(source: SourceId): Promise<HistoryPrompt[]> {
    return (await readJsonFile<HistoryPrompt[]>(this.promptsPath(source))) ?? [];
  }

  async writePrompts(source: SourceId, prompts: HistoryPrompt[]): Promise<void> {
    await writeFileAtomic(this.promptsPath(source), JSON.stringify(prompts));
  }
}
