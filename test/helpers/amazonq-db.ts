/**
 * Real Amazon Q / Kiro CLI databases for tests and the demo: the schema of the CLI's migrations 000–007
 * (FORMATS.md §3.2) plus Kiro's `conversations_v2`, filled from the hand-written `fixtures/amazon-q/*.json`.
 * `auth_kv` and `state` hold a fake secret that the source must never read.
 */
import { promises as fs, readFileSync, utimesSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const AMAZONQ_FIXTURES = path.join(REPO, 'fixtures', 'amazon-q');

/** Stored in `auth_kv` and `state`; must never show up in anything the tool produces. */
export const Q_SECRET = 'Q-FAKE-SECRET-DO-NOT-READ';

/** The mtime given to fixture databases, so that times estimated from it are known: 2026-03-20T12:00:00Z. */
export const FIXTURE_DB_MTIME = new Date('2026-03-20T12:00:00.000Z');

export const Q_IDS = {
  A: 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa',
  B: 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb',
  C: 'cccccccc-cccc-4ccc-8ccc-cccccccccccc',
  D: 'dddddddd-dddd-4ddd-8ddd-dddddddddddd',
  E: 'eeeeeeee-eeee-4eee-8eee-eeeeeeeeeeee',
} as const;

export const Q_FILES = {
  A: 'a-tuple-tools.json',
  B: 'b-object-japanese.json',
  C: 'c-incomplete-tooluse.json',
  D: 'd-compacted.json',
  E: 'e-new-chat-webapp.json',
} as const;

export type QState = Record<string, any>;

export interface V1Row {
  key: string;
  state: QState;
}
export interface V2Row extends V1Row {
  createdAt: number;
  updatedAt: number;
}

export interface QDatabaseSpec {
  /** `conversations` (migration 007); omitted means the table does not exist (Q before May 2025). */
  conversations?: V1Row[];
  /** Kiro's `conversations_v2`; omitted means the table does not exist. */
  conversationsV2?: V2Row[];
  /** File mtime after writing (default FIXTURE_DB_MTIME); `null` leaves it as written. */
  mtime?: Date | null;
}

/** A fixture conversation, parsed fresh each time (tests may change it). */
export function loadQFixture(name: string): QState {
  return JSON.parse(readFileSync(path.join(AMAZONQ_FIXTURES, name), 'utf8')) as QState;
}

/** Writes a new database file (replacing one that exists) in the default rollback-journal mode. */
export async function createQDatabase(file: string, spec: QDatabaseSpec): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.rm(file, { force: true });
  const db = new Database(file);
  try {
    db.exec(`
      CREATE TABLE migrations(id INTEGER PRIMARY KEY, version INTEGER NOT NULL, migration_time INTEGER NOT NULL);
      CREATE TABLE history(id INTEGER PRIMARY KEY, command TEXT, shell TEXT, pid INTEGER, session_id TEXT, cwd TEXT,
        start_time INTEGER, end_time INTEGER, duration INTEGER, hostname TEXT, exit_code INTEGER);
      CREATE TABLE state(key TEXT PRIMARY KEY, value BLOB);
      CREATE TABLE auth_kv(key TEXT PRIMARY KEY, value TEXT);
    `);
    const migration = db.prepare('INSERT INTO migrations(id, version, migration_time) VALUES (?, ?, ?)');
    const migrations = spec.conversations ? 8 : 7;
    for (let v = 0; v < migrations; v += 1) migration.run(v, v, 1_746_000_000 + v);
    db.prepare('INSERT INTO auth_kv(key, value) VALUES (?, ?)').run(
      'codewhisperer:odic:token',
      JSON.stringify({ access_token: Q_SECRET, refresh_token: Q_SECRET }),
    );
    db.prepare('INSERT INTO state(key, value) VALUES (?, ?)').run('auth.idc.cached', Buffer.from(Q_SECRET));
    if (spec.conversations) {
      db.exec('CREATE TABLE conversations(key TEXT PRIMARY KEY, value TEXT)');
      const insert = db.prepare('INSERT OR REPLACE INTO conversations(key, value) VALUES (?, ?)');
      for (const row of spec.conversations) insert.run(row.key, JSON.stringify(row.state));
    }
    if (spec.conversationsV2) {
      db.exec(`CREATE TABLE conversations_v2(key TEXT NOT NULL, conversation_id TEXT NOT NULL, value TEXT NOT NULL,
        created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, PRIMARY KEY (key, conversation_id))`);
      const insert = db.prepare(
        'INSERT OR REPLACE INTO conversations_v2(key, conversation_id, value, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
      );
      for (const row of spec.conversationsV2) {
        insert.run(row.key, row.state.conversation_id, JSON.stringify(row.state), row.createdAt, row.updatedAt);
      }
    }
  } finally {
    db.close();
  }
  await fs.chmod(file, 0o600);
  if (spec.mtime !== null) setMtime(file, spec.mtime ?? FIXTURE_DB_MTIME);
  return file;
}

/** What `q chat` does when it pushes a response: `INSERT OR REPLACE` the row of its directory. */
export function putConversation(file: string, key: string, state: QState, mtime: Date | null = null): void {
  const db = new Database(file, { fileMustExist: true });
  try {
    db.prepare('INSERT OR REPLACE INTO conversations(key, value) VALUES (?, ?)').run(key, JSON.stringify(state));
  } finally {
    db.close();
  }
  if (mtime) setMtime(file, mtime);
}

export function setMtime(file: string, mtime: Date): void {
  utimesSync(file, mtime, mtime);
}

/** The demo layout (fixtures/AMAZONQ.md): a Q database with v1 rows, and a Kiro database with v2 rows. */
export function demoDatabases(): Array<{ relative: string; spec: QDatabaseSpec }> {
  return [
    {
      relative: path.join('.local', 'share', 'amazon-q', 'data.sqlite3'),
      spec: {
        conversations: [
          { key: '/home/alice/work/webapp', state: loadQFixture(Q_FILES.A) },
          { key: '/home/alice/notes/日本語', state: loadQFixture(Q_FILES.B) },
        ],
      },
    },
    {
      relative: path.join('.local', 'share', 'kiro-cli', 'data.sqlite3'),
      spec: {
        conversations: [],
        conversationsV2: [
          {
            key: '/home/alice/work/api',
            state: loadQFixture(Q_FILES.C),
            createdAt: Date.parse('2026-03-12T13:00:00.000Z'),
            updatedAt: Date.parse('2026-03-12T13:00:12.500Z'),
          },
          {
            key: '/home/alice/work/api',
            state: loadQFixture(Q_FILES.D),
            createdAt: Date.parse('2026-03-14T10:00:00.000Z'),
            updatedAt: Date.parse('2026-03-14T10:20:08.000Z'),
          },
        ],
      },
    },
  ];
}

/** Writes the demo databases under `home`; returns their paths. */
export async function writeDemoDatabases(home: string): Promise<string[]> {
  const written: string[] = [];
  for (const { relative, spec } of demoDatabases()) {
    written.push(await createQDatabase(path.join(home, relative), spec));
  }
  return written;
}
