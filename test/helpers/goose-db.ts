/**
 * Real Goose databases for tests and the demo, made from the hand-written `fixtures/goose/sessions.json`. The
 * tables are Goose's own: `sessions` and `messages` as block/goose `crates/goose/src/session/session_manager.rs`
 * creates them (commit 0164300649cf5e4ab327105d9155779ab8bfde4b) with the columns `migrations.rs` adds up to schema
 * version 13 (commit 865e4a030a67eb0c51869874b9c758cb1eb10595), in WAL mode as Goose keeps it.
 */
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { REPO } from './paths.ts';

export const GOOSE_FIXTURE = path.join(REPO, 'fixtures', 'goose', 'sessions.json');
export const GOOSE_LEGACY_DIR = path.join(REPO, 'fixtures', 'goose', 'legacy');

export interface GooseFixtureMessage {
  role: string;
  created: string;
  content: unknown[];
  metadata?: Record<string, unknown>;
}

export interface GooseFixtureSession {
  id: string;
  name: string;
  user_set_name?: boolean;
  session_type?: string;
  working_dir: string;
  created_at: string;
  updated_at: string;
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  accumulated_input_tokens?: number;
  accumulated_output_tokens?: number;
  accumulated_total_tokens?: number;
  provider_name?: string;
  model_config?: Record<string, unknown>;
  accumulated_cost?: number;
  messages: GooseFixtureMessage[];
}

export function loadGooseFixture(): GooseFixtureSession[] {
  return (JSON.parse(readFileSync(GOOSE_FIXTURE, 'utf8')) as { sessions: GooseFixtureSession[] }).sessions;
}

const SCHEMA = `
CREATE TABLE schema_version (version INTEGER PRIMARY KEY, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP);
CREATE TABLE sessions (
  id TEXT PRIMARY KEY, name TEXT NOT NULL DEFAULT '', description TEXT NOT NULL DEFAULT '',
  user_set_name BOOLEAN DEFAULT FALSE, session_type TEXT NOT NULL DEFAULT 'user', working_dir TEXT NOT NULL,
  created_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP, updated_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  extension_data TEXT DEFAULT '{}', total_tokens INTEGER, input_tokens INTEGER, output_tokens INTEGER,
  accumulated_total_tokens INTEGER, accumulated_input_tokens INTEGER, accumulated_output_tokens INTEGER,
  schedule_id TEXT, recipe_json TEXT, user_recipe_values_json TEXT, provider_name TEXT, model_config_json TEXT,
  goose_mode TEXT NOT NULL DEFAULT 'auto', thread_id TEXT, archived_at TIMESTAMP, project_id TEXT, accumulated_cost REAL
);
CREATE TABLE messages (
  id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id), role TEXT NOT NULL,
  content_json TEXT NOT NULL, created_timestamp INTEGER NOT NULL, timestamp TIMESTAMP DEFAULT CURRENT_TIMESTAMP,
  tokens INTEGER, metadata_json TEXT, message_id TEXT
);
CREATE INDEX idx_messages_session ON messages(session_id);
CREATE INDEX idx_messages_timestamp ON messages(timestamp);
CREATE INDEX idx_sessions_updated ON sessions(updated_at DESC);
CREATE INDEX idx_sessions_type ON sessions(session_type);
CREATE INDEX idx_messages_message_id ON messages(message_id);
`;

/** Writes a `sessions.db` holding the fixture's sessions. */
export function writeGooseDb(file: string, sessions: GooseFixtureSession[] = loadGooseFixture()): void {
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
    db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(13);
    const insertSession = db.prepare(
      `INSERT INTO sessions (id, name, user_set_name, session_type, working_dir, created_at, updated_at, extension_data,
        total_tokens, input_tokens, output_tokens, accumulated_total_tokens, accumulated_input_tokens,
        accumulated_output_tokens, provider_name, model_config_json, accumulated_cost)
        VALUES (?, ?, ?, ?, ?, ?, ?, '{}', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertMessage = db.prepare(
      `INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json, message_id)
        VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const s of sessions) {
      insertSession.run(
        s.id,
        s.name,
        s.user_set_name ? 1 : 0,
        s.session_type ?? 'user',
        s.working_dir,
        s.created_at,
        s.updated_at,
        s.total_tokens ?? null,
        s.input_tokens ?? null,
        s.output_tokens ?? null,
        s.accumulated_total_tokens ?? null,
        s.accumulated_input_tokens ?? null,
        s.accumulated_output_tokens ?? null,
        s.provider_name ?? null,
        s.model_config ? JSON.stringify(s.model_config) : null,
        s.accumulated_cost ?? null,
      );
      for (const [i, m] of s.messages.entries()) {
        const seconds = Math.floor(Date.parse(m.created) / 1000);
        insertMessage.run(
          s.id,
          m.role,
          JSON.stringify(m.content),
          seconds,
          new Date(seconds * 1000).toISOString().replace('T', ' ').slice(0, 19),
          JSON.stringify(m.metadata ?? { userVisible: true, agentVisible: true }),
          `msg_${s.id}_${i + 1}`,
        );
      }
    }
  } finally {
    db.close();
  }
}

/** The demo's Goose history: `<home>/.local/share/goose/sessions/sessions.db`. Returns its path. */
export async function writeDemoGooseDb(home: string): Promise<string> {
  const dir = path.join(home, '.local', 'share', 'goose', 'sessions');
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, 'sessions.db');
  for (const suffix of ['', '-wal', '-shm']) await fs.rm(`${file}${suffix}`, { force: true });
  writeGooseDb(file);
  return file;
}
