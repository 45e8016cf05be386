/**
 * Real OpenCode databases for tests and the demo, made from the hand-written `fixtures/opencode/sessions.json`.
 * The tables are OpenCode's own: `project`, `session`, `message`, `part` as declared by the drizzle schema in
 * anomalyco/opencode `packages/opencode/src/session/session.sql.ts` and `project/project.sql.ts` (commit
 * 063e8306d9895af9bdd175306cfa4fa3291fd83a), plus `account` (credentials, which the reader must never read).
 * `writeOpenCodeStorage` writes the same sessions as the older `storage/` JSON tree.
 */
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const OPENCODE_FIXTURE = path.join(REPO, 'fixtures', 'opencode', 'sessions.json');
export const OPENCODE_SECRET = 'OPENCODE-FAKE-SECRET-DO-NOT-READ';

export interface OcFixturePart {
  id: string;
  data: Record<string, any>;
}
export interface OcFixtureMessage {
  id: string;
  data: Record<string, any>;
  parts: OcFixturePart[];
}
export interface OcFixtureSession {
  id: string;
  project_id: string;
  parent_id?: string;
  slug: string;
  directory: string;
  title: string;
  version: string;
  created: string;
  updated: string;
  messages: OcFixtureMessage[];
}
export interface OcFixture {
  projects: Array<{ id: string; worktree: string; vcs: string | null }>;
  sessions: OcFixtureSession[];
}

const TIME_KEYS = new Set(['created', 'completed', 'start', 'end', 'updated']);

/** ISO times in the fixture become epoch milliseconds, as OpenCode stores them. */
function toStored(value: unknown, key = ''): unknown {
  if (typeof value === 'string' && TIME_KEYS.has(key) && /^\d{4}-\d{2}-\d{2}T/.test(value)) return Date.parse(value);
  if (Array.isArray(value)) return value.map((v) => toStored(v));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, toStored(v, k)]));
  return value;
}

export function loadOpenCodeFixture(): OcFixture {
  return JSON.parse(readFileSync(OPENCODE_FIXTURE, 'utf8')) as OcFixture;
}

const SCHEMA = `
CREATE TABLE project (
  id text PRIMARY KEY, worktree text NOT NULL, vcs text, name text, icon_url text, icon_color text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_initialized integer, sandboxes text NOT NULL
);
CREATE TABLE session (
  id text PRIMARY KEY, project_id text NOT NULL REFERENCES project(id) ON DELETE CASCADE, workspace_id text,
  parent_id text, slug text NOT NULL, directory text NOT NULL, path text, title text NOT NULL, version text NOT NULL,
  share_url text, summary_additions integer, summary_deletions integer, summary_files integer, summary_diffs text,
  cost real DEFAULT 0 NOT NULL, tokens_input integer DEFAULT 0 NOT NULL, tokens_output integer DEFAULT 0 NOT NULL,
  tokens_reasoning integer DEFAULT 0 NOT NULL, tokens_cache_read integer DEFAULT 0 NOT NULL,
  tokens_cache_write integer DEFAULT 0 NOT NULL, revert text, permission text, agent text, model text,
  time_created integer NOT NULL, time_updated integer NOT NULL, time_compacting integer, time_archived integer
);
CREATE TABLE message (
  id text PRIMARY KEY, session_id text NOT NULL REFERENCES session(id) ON DELETE CASCADE,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL
);
CREATE TABLE part (
  id text PRIMARY KEY, message_id text NOT NULL REFERENCES message(id) ON DELETE CASCADE, session_id text NOT NULL,
  time_created integer NOT NULL, time_updated integer NOT NULL, data text NOT NULL
);
CREATE TABLE account (id text PRIMARY KEY, email text NOT NULL, access_token text NOT NULL, refresh_token text NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_parent_idx ON session (parent_id);
`;

/** Writes an `opencode.db` (WAL mode, as OpenCode keeps it) holding the fixture's sessions. */
export function writeOpenCodeDb(file: string, fixture: OcFixture = loadOpenCodeFixture()): void {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
    db.prepare('INSERT INTO account VALUES (?, ?, ?, ?)').run(
      'acc_1',
      'alice@example.com',
      OPENCODE_SECRET,
      OPENCODE_SECRET,
    );
    const now = Date.parse('2026-03-01T00:00:00Z');
    for (const p of fixture.projects)
      db.prepare(
        'INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, ?, ?)',
      ).run(p.id, p.worktree, p.vcs, now, now, '[]');
    const insertSession = db.prepare(
      'INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created, time_updated) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const insertMessage = db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)');
    const insertPart = db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)');
    for (const s of fixture.sessions) {
      insertSession.run(
        s.id,
        s.project_id,
        s.parent_id ?? null,
        s.slug,
        s.directory,
        s.title,
        s.version,
        Date.parse(s.created),
        Date.parse(s.updated),
      );
      for (const m of s.messages) {
        const data = toStored(m.data) as Record<string, any>;
        const created = data.time?.created ?? Date.parse(s.created);
        insertMessage.run(m.id, s.id, created, data.time?.completed ?? created, JSON.stringify(data));
        for (const p of m.parts) insertPart.run(p.id, m.id, s.id, created, created, JSON.stringify(toStored(p.data)));
      }
    }
  } finally {
    db.close();
  }
}

/** Writes the fixture as OpenCode's `storage/` tree (before the database): ids inside each record, as it kept them. */
export async function writeOpenCodeStorage(dataDir: string, fixture: OcFixture = loadOpenCodeFixture()): Promise<void> {
  const storage = path.join(dataDir, 'storage');
  const write = async (rel: string, value: unknown) => {
    const file = path.join(storage, rel);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, JSON.stringify(value, null, 2));
  };
  for (const p of fixture.projects) await write(`project/${p.id}.json`, { id: p.id, worktree: p.worktree, vcs: p.vcs });
  for (const s of fixture.sessions) {
    await write(`session/${s.project_id}/${s.id}.json`, {
      id: s.id,
      projectID: s.project_id,
      ...(s.parent_id ? { parentID: s.parent_id } : {}),
      directory: s.directory,
      title: s.title,
      version: s.version,
      time: { created: Date.parse(s.created), updated: Date.parse(s.updated) },
    });
    for (const m of s.messages) {
      await write(`message/${s.id}/${m.id}.json`, { id: m.id, sessionID: s.id, ...(toStored(m.data) as object) });
      for (const p of m.parts)
        await write(`part/${m.id}/${p.id}.json`, {
          id: p.id,
          sessionID: s.id,
          messageID: m.id,
          ...(toStored(p.data) as object),
        });
    }
  }
}

/** The demo's OpenCode history: `<home>/.local/share/opencode/opencode.db`. Returns its path. */
export async function writeDemoOpenCodeDb(home: string): Promise<string> {
  const dir = path.join(home, '.local', 'share', 'opencode');
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, 'opencode.db');
  await fs.rm(file, { force: true });
  writeOpenCodeDb(file);
  return file;
}
