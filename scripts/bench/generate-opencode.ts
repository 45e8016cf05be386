/**
 * OpenCode's database for the benchmark (docs/formats/opencode.md): `~/.local/share/opencode/opencode.db` in WAL
 * mode, one for every project, with OpenCode's tables `project`, `session`, `message` and `part` (the columns of
 * anomalyco/opencode `session.sql.ts`, as test/helpers/opencode-db.ts declares them). Per prompt a user message
 * with a text part, then an assistant message whose steps are `step-start`, `reasoning`, a `tool` part (call and
 * completed result in one) and `step-finish` with the step's tokens and cost, the last step ending on a text part.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fileSizes, prng, uuidFrom, wordsFrom } from './generate-claude.ts';
import { outputLines, type SessionProfile, sessionStart } from './profile.ts';

export const OPENCODE_PROFILE: SessionProfile = {
  sessions: 60,
  medianBytes: 60_000,
  maxBytes: 2_000_000,
  totalBytes: 7_000_000,
  projects: 4,
  seed: 29,
};

export function openCodeDatabase(home: string): string {
  return path.join(home, '.local', 'share', 'opencode', 'opencode.db');
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
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
CREATE INDEX part_session_idx ON part (session_id);
CREATE INDEX session_project_idx ON session (project_id);
CREATE INDEX session_parent_idx ON session (parent_id);
`;

const WORDS =
  'the migration fails on the staging database because the index name is too long so we shorten it and backfill the column in batches before the deploy'.split(
    ' ',
  );

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export async function generateOpenCode(home: string, profile: SessionProfile): Promise<number> {
  const random = prng(profile.seed);
  const words = (n: number) => wordsFrom(WORDS, random, n);
  // OpenCode's ids: a prefix, the time (and a counter) in hex, then random characters; ascending in time.
  let counter = 0;
  const id = (prefix: string, ms: number) => {
    let tail = '';
    for (let i = 0; i < 14; i++) tail += ALPHANUMERIC[Math.floor(random() * ALPHANUMERIC.length)];
    return `${prefix}_${(ms * 0x1000 + (counter++ % 0x1000)).toString(16).padStart(12, '0').slice(-12)}${tail}`;
  };
  const sizes = fileSizes({ ...profile, files: profile.sessions, minBytes: 3_000 }, random);
  const file = openCodeDatabase(home);
  await fs.mkdir(path.dirname(file), { recursive: true });
  for (const suffix of ['', '-wal', '-shm']) await fs.rm(`${file}${suffix}`, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec(SCHEMA);
    const projects = Array.from({ length: profile.projects }, (_, i) => ({
      id: uuidFrom(random).replace(/-/g, ''),
      worktree: `/home/bench/work/ledger-db-${i}`,
    }));
    const projectRow = db.prepare(
      'INSERT INTO project (id, worktree, vcs, time_created, time_updated, sandboxes) VALUES (?, ?, ?, ?, ?, ?)',
    );
    const sessionRow = db.prepare(
      `INSERT INTO session (id, project_id, slug, directory, title, version, cost, tokens_input, tokens_output,
        tokens_reasoning, tokens_cache_read, tokens_cache_write, agent, model, time_created, time_updated)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const messageRow = db.prepare('INSERT INTO message VALUES (?, ?, ?, ?, ?)');
    const partRow = db.prepare('INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)');
    db.transaction(() => {
      const start = sessionStart(0, 1, () => 0);
      for (const p of projects) projectRow.run(p.id, p.worktree, 'git', start, start, '[]');
      for (const [i, target] of sizes.entries()) {
        const project = projects[i % projects.length]!;
        const cwd = project.worktree;
        const started = sessionStart(i, sizes.length, random);
        let t = started;
        const sessionId = id('ses', t);
        const [providerID, modelID] = random() < 0.6 ? ['anthropic', 'claude-sonnet-4-5'] : ['openai', 'gpt-5.2'];
        const totals = { cost: 0, input: 0, output: 0, reasoning: 0, read: 0, write: 0 };
        const rows: Array<() => void> = [];
        let size = 0;
        let title = '';
        const part = (messageId: string, data: Record<string, unknown>) => {
          const json = JSON.stringify(data);
          size += json.length;
          const [partId, at] = [id('prt', t), t];
          rows.push(() => partRow.run(partId, messageId, sessionId, at, at, json));
        };
        const message = (data: Record<string, unknown>, created: number, completed: number) => {
          const messageId = id('msg', created);
          const json = JSON.stringify(data);
          size += json.length;
          rows.push(() => messageRow.run(messageId, sessionId, created, completed, json));
          return messageId;
        };
        for (let turn = 0; turn === 0 || size < target - 1_500; turn++) {
          t += 60_000 + Math.floor(random() * 900_000);
          const prompt = `${words(6 + Math.floor(random() * 25))}?`;
          title ||= prompt.slice(0, 60);
          const model = { providerID, modelID };
          const user = message({ role: 'user', time: { created: t }, agent: 'build', model }, t, t);
          part(user, { type: 'text', text: prompt });
          const created = (t += 1_000);
          const steps = 1 + Math.floor(random() * 5);
          const parts: Array<Record<string, unknown>> = [];
          let last = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };
          let cost = 0;
          for (let s = 0; s < steps; s++) {
            const final = s === steps - 1 || size >= target - 1_500;
            parts.push({ type: 'step-start', snapshot: uuidFrom(random).slice(0, 8) });
            parts.push({
              type: 'reasoning',
              text: words(15 + Math.floor(random() * 30)),
              time: { start: t, end: t + 900 },
            });
            t += 2_000 + Math.floor(random() * 15_000);
            if (final)
              parts.push({
                type: 'text',
                text: `${words(30 + Math.floor(random() * 60))}\n\n- ${words(10)}`,
                time: { start: t, end: t + 500 },
              });
            else
              parts.push(
                toolPart(cwd, Math.max(3, Math.min(100, Math.floor((target - size) / 150))), t, words, random),
              );
            const input = 200 + Math.floor(random() * 3_000);
            const read = 10_000 + Math.floor(random() * 50_000);
            last = {
              input,
              output: 40 + Math.floor(random() * 600),
              reasoning: Math.floor(random() * 300),
              cache: { read, write: Math.floor(random() * 2_000) },
            };
            const stepCost = Math.round((input * 3 + last.output * 15 + read * 0.3) / 10) / 1e5;
            cost += stepCost;
            totals.input += last.input;
            totals.output += last.output;
            totals.reasoning += last.reasoning;
            totals.read += last.cache.read;
            totals.write += last.cache.write;
            parts.push({ type: 'step-finish', reason: final ? 'stop' : 'tool-calls', cost: stepCost, tokens: last });
            if (final) break;
          }
          totals.cost += cost;
          const assistant = message(
            {
              role: 'assistant',
              time: { created, completed: t },
              parentID: user,
              modelID,
              providerID,
              mode: 'build',
              agent: 'build',
              path: { cwd, root: cwd },
              cost,
              tokens: last,
              finish: 'stop',
            },
            created,
            t,
          );
          for (const data of parts) part(assistant, data);
        }
        sessionRow.run(
          sessionId,
          project.id,
          words(2).replace(' ', '-'),
          cwd,
          title,
          '1.2.10',
          totals.cost,
          totals.input,
          totals.output,
          totals.reasoning,
          totals.read,
          totals.write,
          'build',
          JSON.stringify({ id: modelID, providerID }),
          started,
          t,
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

function toolPart(cwd: string, lines: number, t: number, words: (n: number) => string, random: () => number) {
  const file = `${cwd}/migrations/${words(1)}.sql`;
  const callID = `toolu_${uuidFrom(random).replace(/-/g, '').slice(0, 24)}`;
  const time = { start: t - 1_500, end: t };
  const kind = random();
  if (kind < 0.4) {
    const output = `<file>\n${outputLines(file, lines, words)}\n</file>`;
    const state = {
      status: 'completed',
      input: { filePath: file },
      output,
      title: path.relative(cwd, file),
      metadata: { preview: words(8) },
      time,
    };
    return { type: 'tool', callID, tool: 'read', state };
  }
  if (kind < 0.8) {
    const output = outputLines('test/migrate.test.ts', lines, words);
    const input = { command: 'npm test', description: words(5) };
    const state = {
      status: 'completed',
      input,
      output,
      title: 'npm test',
      metadata: { exit: random() < 0.2 ? 1 : 0, description: input.description },
      time,
    };
    return { type: 'tool', callID, tool: 'bash', state };
  }
  const input = { filePath: file, oldString: words(8), newString: outputLines(file, Math.min(lines, 12), words) };
  const state = {
    status: 'completed',
    input,
    output: '',
    title: path.relative(cwd, file),
    metadata: { diagnostics: {} },
    time,
  };
  return { type: 'tool', callID, tool: 'edit', state };
}
