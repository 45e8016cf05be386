/**
 * Goose's database for the benchmark (docs/formats/goose.md): `~/.local/share/goose/sessions/sessions.db` in WAL
 * mode, one for every project, with Goose's tables `sessions` and `messages` (the columns of block/goose
 * `session_manager.rs` and `migrations.rs` up to schema v13, as test/helpers/goose-db.ts declares them). Per prompt a
 * user message with a text item, then assistant messages each with a thinking item and a `toolRequest`
 * (`developer__shell` or `developer__text_editor`) answered by a user message with its `toolResponse`, the last
 * one ending on a text item. Tokens are the session's `accumulated_*` columns, as Goose keeps them.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fileSizes, prng, uuidFrom, wordsFrom } from './generate-claude.ts';
import { outputLines, type SessionProfile, sessionStart } from './profile.ts';

export const GOOSE_PROFILE: SessionProfile = {
  sessions: 40,
  medianBytes: 40_000,
  maxBytes: 1_500_000,
  totalBytes: 4_000_000,
  projects: 3,
  seed: 37,
};

export function gooseDatabase(home: string): string {
  return path.join(home, '.local', 'share', 'goose', 'sessions', 'sessions.db');
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

const WORDS =
  'the release script tags the build before the changelog is written so the version in the package is stale and the upload step fails on retry'.split(
    ' ',
  );

/** `YYYY-MM-DD HH:MM:SS`, as SQLite's `datetime('now')` writes it. */
const sqliteTime = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 19);

export async function generateGoose(home: string, profile: SessionProfile): Promise<number> {
  const random = prng(profile.seed);
  const words = (n: number) => wordsFrom(WORDS, random, n);
  const sizes = fileSizes({ ...profile, files: profile.sessions, minBytes: 3_000 }, random);
  const file = gooseDatabase(home);
  await fs.mkdir(path.dirname(file), { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) await fs.rm(`${file}${suffix}`, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
    db.prepare('INSERT INTO schema_version (version) VALUES (13)').run();
    const sessionRow = db.prepare(
      `INSERT INTO sessions (id, name, working_dir, created_at, updated_at, total_tokens, input_tokens, output_tokens,
        accumulated_total_tokens, accumulated_input_tokens, accumulated_output_tokens, provider_name,
        model_config_json) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const messageRow = db.prepare(
      `INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp, metadata_json, message_id)
        VALUES (?, ?, ?, ?, ?, ?, ?)`,
    );
    const perDay = new Map<string, number>();
    db.transaction(() => {
      for (const [i, target] of sizes.entries()) {
        const cwd = `/home/bench/work/release-tool-${i % profile.projects}`;
        const started = sessionStart(i, sizes.length, random);
        let t = started;
        const day = new Date(started).toISOString().slice(0, 10).replace(/-/g, '');
        const n = (perDay.get(day) ?? 0) + 1;
        perDay.set(day, n);
        const sessionId = `${day}_${n}`;
        const [provider, model] = random() < 0.6 ? ['anthropic', 'claude-sonnet-4-5'] : ['openai', 'gpt-5'];
        const totals = { input: 0, output: 0 };
        let last = { input: 0, output: 0 };
        const rows: Array<() => void> = [];
        let size = 0;
        let title = '';
        let seq = 0;
        const message = (role: string, content: unknown[], at: number) => {
          const json = JSON.stringify(content);
          size += json.length;
          const messageId = `msg_${sessionId}_${++seq}`;
          rows.push(() =>
            messageRow.run(
              sessionId,
              role,
              json,
              Math.floor(at / 1000),
              sqliteTime(at),
              '{"userVisible":true,"agentVisible":true}',
              messageId,
            ),
          );
        };
        for (let turn = 0; turn === 0 || size < target - 1_500; turn++) {
          t += 60_000 + Math.floor(random() * 900_000);
          const prompt = `${words(6 + Math.floor(random() * 25))}?`;
          title ||= prompt.slice(0, 60);
          message('user', [{ type: 'text', text: prompt }], t);
          const steps = 1 + Math.floor(random() * 5);
          for (let s = 0; s < steps; s++) {
            const final = s === steps - 1 || size >= target - 1_500;
            t += 2_000 + Math.floor(random() * 15_000);
            const thinking = { type: 'thinking', thinking: words(15 + Math.floor(random() * 30)), signature: 'sig' };
            last = { input: 10_000 + Math.floor(random() * 50_000), output: 40 + Math.floor(random() * 600) };
            totals.input += last.input;
            totals.output += last.output;
            if (final) {
              message('assistant', [thinking, { type: 'text', text: `${words(30 + Math.floor(random() * 60))}` }], t);
              break;
            }
            const lines = Math.max(3, Math.min(100, Math.floor((target - size) / 150)));
            const [request, response] = toolPair(cwd, lines, words, random);
            message('assistant', [thinking, request], t);
            t += 1_500;
            message('user', [response], t);
          }
        }
        sessionRow.run(
          sessionId,
          title,
          cwd,
          sqliteTime(started),
          sqliteTime(t),
          last.input + last.output,
          last.input,
          last.output,
          totals.input + totals.output,
          totals.input,
          totals.output,
          provider,
          JSON.stringify({
            model_name: model,
            context_limit: null,
            temperature: null,
            max_tokens: null,
            toolshim: false,
          }),
        );
        for (const row of rows) row();
      }
    })();
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return (await fs.stat(file)).size;
}

/** A tool request and its response: a file viewed, a command run, or an edit. */
function toolPair(cwd: string, lines: number, words: (n: number) => string, random: () => number): [unknown, unknown] {
  const id = `toolu_${uuidFrom(random).replace(/-/g, '').slice(0, 24)}`;
  const file = `${cwd}/src/${words(1)}.rs`;
  const kind = random();
  const [name, args, output] =
    kind < 0.4
      ? ['developer__text_editor', { command: 'view', path: file }, outputLines(file, lines, words)]
      : kind < 0.8
        ? ['developer__shell', { command: 'cargo test' }, outputLines('tests/release.rs', lines, words)]
        : [
            'developer__text_editor',
            {
              command: 'str_replace',
              path: file,
              old_str: words(8),
              new_str: outputLines(file, Math.min(lines, 12), words),
            },
            `The file ${file} has been edited`,
          ];
  const request = { type: 'toolRequest', id, toolCall: { status: 'success', value: { name, arguments: args } } };
  const response = {
    type: 'toolResponse',
    id,
    toolResult: {
      status: 'success',
      value: { content: [{ type: 'text', text: output, annotations: { audience: ['assistant'] } }], isError: false },
    },
  };
  return [request, response];
}
