import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { sqlite } from '../util/sqlite.ts';

/** Bump when the schema or what goes into a row changes: an index of another version is rebuilt. */
export const SEARCH_SCHEMA_VERSION = 3;

/** CJK n-grams up to this length go into the short-query table; longer queries use the trigram index. */
export const SHORT_GRAM = 2;

export function searchIndexPath(dataDir: string): string {
  return path.join(dataDir, 'search', 'index.sqlite');
}

/**
 * The search index, `<data>/search/index.sqlite` (derived data: deleting it costs a rebuild):
 * - `sessions`: one row per archived session, with what a hit shows and the stamp of the body header it was
 *   read from (a session is read again when its header changes);
 * - `messages`: one row per searchable text of a message (see extract.ts), with its time, kind and the
 *   main-thread index it anchors to. Its id orders rows by time (see rowIdFor), so "newest first, the first
 *   20" walks the full-text index backwards and stops after 20 hits instead of sorting every match;
 * - `messages_fts`: FTS5 trigram index over `messages.text` (external content) without positions
 *   (`detail=none`, a sixth of the size): `text LIKE '%…%'` finds rows holding every trigram of the term,
 *   then checks the text itself, so any substring of three or more characters matches, in any script;
 * - `messages_cjk`: the one- and two-character CJK n-grams of each row (contentless), for the CJK queries
 *   too short for trigrams;
 * - `index_state`: `archive`, the stamp of the archive's `index/sessions.json` the index was last brought up
 *   to date with (see ensureSearchIndex).
 */
export function openSearchDb(dataDir: string, options: { readonly?: boolean } = {}): Database.Database {
  const file = searchIndexPath(dataDir);
  if (options.readonly) return new (sqlite())(file, { readonly: true, fileMustExist: true });
  mkdirSync(path.dirname(file), { recursive: true });
  let db = new (sqlite())(file);
  db.pragma('busy_timeout = 10000');
  const version = db.pragma('user_version', { simple: true }) as number;
  if (version !== SEARCH_SCHEMA_VERSION && version !== 0) {
    // Another schema: start afresh (the archive has everything to rebuild it).
    db.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    db = new (sqlite())(file);
    db.pragma('busy_timeout = 10000');
  }
  // Derived data: a crash costs a re-index of the sessions not yet marked done, so no fsync per commit.
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -32768'); // 32 MB: a cold build touches the whole FTS index
  if ((db.pragma('user_version', { simple: true }) as number) === 0) {
    db.exec(`
      CREATE TABLE IF NOT EXISTS sessions (
        id INTEGER PRIMARY KEY,
        key TEXT NOT NULL UNIQUE,
        source TEXT NOT NULL,
        session_id TEXT NOT NULL,
        project TEXT NOT NULL,
        project_name TEXT NOT NULL,
        cwd TEXT NOT NULL,
        title TEXT NOT NULL,
        started_at TEXT NOT NULL,
        page_starts TEXT,
        stamp TEXT NOT NULL
      );
      CREATE TABLE IF NOT EXISTS messages (
        id INTEGER PRIMARY KEY,
        session INTEGER NOT NULL,
        ts TEXT NOT NULL,
        kind TEXT NOT NULL,
        thread TEXT NOT NULL,
        message_index INTEGER,
        text TEXT NOT NULL
      );
      CREATE INDEX IF NOT EXISTS messages_session ON messages (session, thread);
      CREATE VIRTUAL TABLE IF NOT EXISTS messages_fts USING fts5 (
        text, content = 'messages', content_rowid = 'id', tokenize = 'trigram', detail = none
      );
      CREATE VIRTUAL TABLE IF NOT EXISTS messages_cjk USING fts5 (
        grams, content = '', contentless_delete = 1, detail = none,
        tokenize = 'unicode61 remove_diacritics 0'
      );
    `);
    db.pragma(`user_version = ${SEARCH_SCHEMA_VERSION}`);
  }
  // Added after version 3 came out: created here rather than by a new version, which would rebuild every index.
  db.exec('CREATE TABLE IF NOT EXISTS index_state (key TEXT PRIMARY KEY, value TEXT NOT NULL)');
  return db;
}

/** Row ids per second of message time: ids are `seconds × ROWS_PER_SECOND + n`, so id order is time order. */
export const ROWS_PER_SECOND = 16;

/** The first row id a message written at `iso` may take (0 for a time that does not parse). */
export function rowIdFor(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isFinite(ms) && ms > 0 ? Math.floor(ms / 1000) * ROWS_PER_SECOND : 0;
}
