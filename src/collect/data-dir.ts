import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { HistoryPrompt, Session, SessionSummary } from '../model/session.ts';
import type { SourceId } from '../model/message.ts';
import { readJsonFile, writeFileAtomic } from '../util/fs.ts';

/**
 * The data directory: the archive of every session ever collected (one body file per session),
 * plus the small indexes the site loads. Layout (version 1):
 *
 *   format.json                              { format, version }
 *   sessions/<source>/<session-id>.json      SessionBody: summary + full normalized session
 *   index/sessions.json                      SessionSummary[] (what the site's collections load)
 *   prompts/<source>.json                    HistoryPrompt[] (prompt history, merged, never shrinks)
 */
export const DATA_FORMAT = 'agent-logbook-data';
export const DATA_VERSION = 1;

export interface SessionBody {
  version: number;
  summary: SessionSummary;
  session: Session;
}

export class DataDir {
  constructor(readonly root: string) {}

  async open(): Promise<void> {
    const formatFile = path.join(this.root, 'format.json');
    const format = await readJsonFile<{ format?: string; version?: number }>(formatFile);
    if (format && (format.format !== DATA_FORMAT || format.version !== DATA_VERSION)) {
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
      await writeFileAtomic(formatFile, `${JSON.stringify({ format: DATA_FORMAT, version: DATA_VERSION })}\n`);
    }
  }

  bodyPath(source: SourceId, sessionId: string): string {
    return `sessions/${source}/${sessionId.replace(/[^A-Za-z0-9._-]/g, '_')}.json`;
  }

  async readSummaries(): Promise<SessionSummary[]> {
    return (await readJsonFile<SessionSummary[]>(path.join(this.root, 'index', 'sessions.json'))) ?? [];
  }

  async writeSummaries(summaries: SessionSummary[]): Promise<void> {
    const sorted = [...summaries].sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id));
    await writeFileAtomic(path.join(this.root, 'index', 'sessions.json'), JSON.stringify(sorted));
  }

  async readBody(relative: string): Promise<SessionBody | undefined> {
    return readJsonFile<SessionBody>(path.join(this.root, relative));
  }

  async writeBody(body: SessionBody): Promise<void> {
    await writeFileAtomic(path.join(this.root, body.summary.body), JSON.stringify(body));
  }

  async readPrompts(source: SourceId): Promise<HistoryPrompt[]> {
    return (await readJsonFile<HistoryPrompt[]>(path.join(this.root, 'prompts', `${source}.json`))) ?? [];
  }

  async writePrompts(source: SourceId, prompts: HistoryPrompt[]): Promise<void> {
    await writeFileAtomic(path.join(this.root, 'prompts', `${source}.json`), JSON.stringify(prompts));
  }
}
