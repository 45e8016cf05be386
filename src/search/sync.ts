import { existsSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { bodyMessages, DataDir, type IndexEntry } from '../archive/data-dir.ts';
import { MAIN_THREAD } from '../model/body.ts';
import { projectName } from '../model/project.ts';
import { type Session, type SessionSummary, subagentAnchor } from '../model/session.ts';
import { readJsonFile } from '../util/fs.ts';
import { cjkGrams, hasCjk } from './cjk.ts';
import { searchableTexts } from '../model/search-text.ts';
import { openSearchDb, rowIdFor, ROWS_PER_SECOND, SHORT_GRAM, searchIndexPath } from './store.ts';
import { summariesStamp } from '../archive/stamps.ts';
import { fileStamp } from '../util/stamp.ts';

/** How long one write transaction may run while the index is brought up to date. */
const BATCH_MS = 3000;

export interface SearchIndexUpdate {
  /** Sessions read into the index in this call (new or changed). */
  indexed: number;
  /** Sessions dropped from the index (gone from the archive). */
  removed: number;
  /** Sessions in the index now. */
  sessions: number;
}

export interface EnsureOptions {
  /** Called before sessions are read, with how many (only when there are some). */
  onStart?: (sessions: number) => void;
}

/** A one-line error when `dataDir` is not a data directory yet. */
export function assertDataDir(dataDir: string): void {
  if (!existsSync(path.join(dataDir, 'format.json'))) {
    throw new Error(`${dataDir} is not an agent-logbook data directory yet; run agent-logbook collect first`);
  }
}

/** Below this many sessions to read, bringing the index up to date is quick enough to go unannounced. */
const ANNOUNCE_FROM = 50;

/** For EnsureOptions.onStart: a line on stderr when many sessions are to be read. */
export function announceIndexing(stderr: (text: string) => void): (sessions: number) => void {
  return (sessions) => {
    if (sessions >= ANNOUNCE_FROM) stderr(`Search index: reading ${sessions} new or changed sessions…\n`);
  };
}

/** After a collect: keeps an index that exists up to date (the first search builds it). */
export async function updateSearchIndexAfterCollect(dataDir: string, stderr: (t: string) => void): Promise<void> {
  if (existsSync(searchIndexPath(dataDir))) await ensureSearchIndex(dataDir, { onStart: announceIndexing(stderr) });
}

/**
 * Brings the search index of a data directory up to date and returns what it did: sessions whose body header
 * changed since they were indexed (collect rewrites the header of every session it writes) are read again,
 * sessions gone from the archive are dropped, the rest is not touched. So whoever wrote the archive, and
 * whenever, a search sees it as it is. The index also keeps the stamp of the archive's summaries file
 * (`index/sessions.json`) it was last brought up to date with: a collect that writes any session writes that
 * file too, so while it is unchanged nothing is read or stat'ed but that one file.
 * The index is created on first use, and rebuilt when it is of an older schema.
 */
export async function ensureSearchIndex(dataDir: string, options: EnsureOptions = {}): Promise<SearchIndexUpdate> {
  assertDataDir(dataDir);
  // Taken before the summaries are read: a collect writing meanwhile leaves a stamp that differs next time.
  const archive = summariesStamp(dataDir);
  const db = openSearchDb(dataDir);
  try {
    const countSessions = () => (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
    const getStamp = db.prepare("SELECT value FROM index_state WHERE key = 'archive'").pluck();
    if (archive !== undefined && getStamp.get() === archive)
      return { indexed: 0, removed: 0, sessions: countSessions() };
    const entries = await new DataDir(dataDir).readIndexEntries();
    const indexed = new Map(
      (db.prepare('SELECT id, key, stamp FROM sessions').all() as { id: number; key: string; stamp: string }[]).map(
        (r) => [r.key, r],
      ),
    );
    const stale: { entry: IndexEntry; stamp: string }[] = [];
    const present = new Set<string>();
    for (const entry of entries) {
      const stamp = headerStamp(dataDir, entry.body);
      if (!stamp) continue;
      present.add(entry.id);
      if (indexed.get(entry.id)?.stamp !== stamp) stale.push({ entry, stamp });
    }
    const writer = new IndexWriter(db);
    let removed = 0;
    db.exec('BEGIN');
    for (const [key, row] of indexed) {
      if (present.has(key)) continue;
      writer.removeSession(row.id);
      removed += 1;
    }
    db.exec('COMMIT');
    if (stale.length > 0) options.onStart?.(stale.length);
    // Sessions go in by the batch: FTS5 writes its pending terms out at each commit, so a commit per session
    // would make many small segments to merge (a third of a cold build's time).
    let batchStarted = 0;
    try {
      for (const { entry, stamp } of stale) {
        if (batchStarted === 0) {
          db.exec('BEGIN');
          batchStarted = Date.now();
        }
        const old = indexed.get(entry.id);
        if (old) writer.removeSession(old.id);
        await writer.addSession(dataDir, entry, stamp);
        if (Date.now() - batchStarted >= BATCH_MS) {
          db.exec('COMMIT');
          batchStarted = 0;
        }
      }
      if (batchStarted !== 0) db.exec('COMMIT');
    } catch (error) {
      if (db.inTransaction) db.exec('ROLLBACK');
      throw error;
    }
    if (archive !== undefined) {
      db.prepare("INSERT OR REPLACE INTO index_state (key, value) VALUES ('archive', ?)").run(archive);
    }
    return { indexed: stale.length, removed, sessions: countSessions() };
  } finally {
    db.close();
  }
}

/** The body header's stamp: a header written again (new inode) means the session changed. */
function headerStamp(dataDir: string, body: string): string | undefined {
  return fileStamp(path.join(dataDir, body));
}

class IndexWriter {
  private readonly insertSession: Database.Statement;
  private readonly insertMessage: Database.Statement;
  private readonly insertFts: Database.Statement;
  private readonly insertCjk: Database.Statement;
  private readonly setThreadIndex: Database.Statement;
  private readonly deleteFts: Database.Statement;
  private readonly deleteCjk: Database.Statement;
  private readonly deleteMessages: Database.Statement;
  private readonly deleteSession: Database.Statement;

  constructor(db: Database.Database) {
    this.insertSession = db.prepare(
      'INSERT INTO sessions (key, source, session_id, project, project_name, cwd, title, started_at, page_starts, stamp) ' +
        'VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.insertMessage = db.prepare(
      'INSERT OR IGNORE INTO messages (id, session, ts, kind, thread, message_index, text) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.insertFts = db.prepare('INSERT INTO messages_fts (rowid, text) VALUES (?, ?)');
    this.insertCjk = db.prepare('INSERT INTO messages_cjk (rowid, grams) VALUES (?, ?)');
    this.setThreadIndex = db.prepare('UPDATE messages SET message_index = ? WHERE session = ? AND thread = ?');
    this.deleteFts = db.prepare(
      "INSERT INTO messages_fts (messages_fts, rowid, text) SELECT 'delete', id, text FROM messages WHERE session = ?",
    );
    this.deleteCjk = db.prepare('DELETE FROM messages_cjk WHERE rowid IN (SELECT id FROM messages WHERE session = ?)');
    this.deleteMessages = db.prepare('DELETE FROM messages WHERE session = ?');
    this.deleteSession = db.prepare('DELETE FROM sessions WHERE id = ?');
  }

  removeSession(id: number): void {
    this.deleteFts.run(id);
    this.deleteCjk.run(id);
    this.deleteMessages.run(id);
    this.deleteSession.run(id);
  }

  /** The last row id taken, so rows of one second follow each other without probing. */
  private lastId = 0;

  private addText(session: number, ts: string, kind: string, thread: string, index: number | null, text: string) {
    let rowid = rowIdFor(ts);
    const sameSecond = Math.floor(rowid / ROWS_PER_SECOND) === Math.floor(this.lastId / ROWS_PER_SECOND);
    if (sameSecond && rowid <= this.lastId) rowid = this.lastId + 1;
    // Another session's row may hold the id: take the next free one (a few ids at most, in practice).
    while (this.insertMessage.run(rowid, session, ts, kind, thread, index, text).changes === 0) rowid += 1;
    this.lastId = rowid;
    this.insertFts.run(rowid, text);
    if (hasCjk(text)) this.insertCjk.run(rowid, cjkGrams(text, SHORT_GRAM).join(' '));
  }

  /** Reads one session's messages (streamed: a session of any size) into the index. */
  async addSession(dataDir: string, entry: IndexEntry, stamp: string): Promise<void> {
    const header = await readJsonFile<{ summary: SessionSummary; session: Session }>(path.join(dataDir, entry.body));
    if (!header?.summary || !header.session) return;
    const { summary, session } = header;
    const id = Number(
      this.insertSession.run(
        summary.id,
        summary.source,
        summary.sessionId,
        summary.project,
        projectName(summary.cwd),
        summary.cwd,
        summary.title,
        summary.startedAt,
        summary.pageStarts ? JSON.stringify(summary.pageStarts) : null,
        stamp,
      ).lastInsertRowid,
    );
    // A session without a title of its own is titled with its first prompt, which has its own row.
    const first = summary.prompts?.[0]?.text.replace(/…$/, '') ?? '';
    const ownTitle = first && summary.title.startsWith(first.slice(0, 40)) ? '' : summary.title;
    const about = [ownTitle, projectName(summary.cwd), summary.cwd].filter(Boolean).join('\n');
    this.addText(id, summary.startedAt, 'session', MAIN_THREAD, null, about);
    /** Main-thread index of each tool call, to anchor a subagent's messages at the call that started it. */
    const callIndex = new Map<string, number>();
    /** The subagent whose messages hold each of its tool calls (a subagent it spawned is anchored as it is). */
    const callOwner = new Map<string, string>();
    let index = 0;
    for await (const { thread, message } of bodyMessages(dataDir, entry.body)) {
      const main = thread === MAIN_THREAD;
      const at = main ? index++ : null;
      if (message.tool_call && message.source_type !== 'tool_result') {
        if (main) callIndex.set(message.tool_call.call_id, at!);
        else callOwner.set(message.tool_call.call_id, thread);
      }
      for (const { kind, text } of searchableTexts(message))
        this.addText(id, message.timestamp || summary.startedAt, kind, thread, at, text);
    }
    const parentOf = new Map((session.subagents ?? []).map((agent) => [agent.agentId, agent.parentCallId]));
    for (const agent of session.subagents ?? []) {
      const at = subagentAnchor(agent, parentOf, callIndex, callOwner);
      if (at !== undefined) this.setThreadIndex.run(at, id, agent.agentId);
    }
  }
}
