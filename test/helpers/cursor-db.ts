/**
 * Real Cursor `state.vscdb` databases for tests and the demo. The schema is the editor's own (two key/value
 * tables, as listed from a real globalStorage database in michaeldhood/chatrxiv docs/cursor/storage-reference.md
 * at d28513a810b19068cc68e126dc3cfe369ae45fa4): `ItemTable` (settings, and the login tokens the source must never
 * read) and `cursorDiskKV` (`composerData:<id>`, `bubbleId:<composerId>:<bubbleId>`).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** Stored in `ItemTable`; must never show up in anything the tool produces. */
export const CURSOR_SECRET = 'CURSOR-FAKE-TOKEN-DO-NOT-READ';

export const CURSOR_IDS = {
  /** A transcript only, with a subagent. */
  A: 'aaaaaaaa-0c0c-4c0c-8c0c-00000000000a',
  /** A legacy `.txt` transcript. */
  B: 'bbbbbbbb-0c0c-4c0c-8c0c-00000000000b',
  /** A transcript and its composer in the database: one session. */
  C: 'cccccccc-0c0c-4c0c-8c0c-00000000000c',
  /** A composer only (an editor chat), its folder from workspaceStorage. */
  D: 'dddddddd-0c0c-4c0c-8c0c-00000000000d',
  /** A composer with no messages. */
  E: 'eeeeeeee-0c0c-4c0c-8c0c-00000000000e',
} as const;

export type Row = [key: string, value: string];

const ms = (iso: string) => Date.parse(iso);
const json = (v: unknown) => JSON.stringify(v);

function composer(id: string, fields: Record<string, unknown>, bubbles: Array<Record<string, unknown>>): Row[] {
  const headers = bubbles.map((b) => ({ bubbleId: b.bubbleId, type: b.type }));
  return [
    [`composerData:${id}`, json({ _v: 10, composerId: id, fullConversationHeadersOnly: headers, ...fields })],
    ...bubbles.map((b): Row => [`bubbleId:${id}:${String(b.bubbleId)}`, json({ _v: 3, ...b })]),
  ];
}

/** The demo's chats: C (also a transcript), D (an editor chat only), E (empty). */
export function demoRows(): Row[] {
  const { C, D, E } = CURSOR_IDS;
  return [
    ...composer(
      C,
      {
        name: 'Login form submits twice',
        createdAt: ms('2026-03-11T13:59:58Z'),
        lastUpdatedAt: ms('2026-03-11T14:01:00Z'),
        modelConfig: { modelName: 'claude-4-sonnet', maxMode: false },
      },
      [
        { bubbleId: 'c1', type: 1, text: 'The login form submits twice. Fix it.', createdAt: '2026-03-11T14:00:00Z' },
        {
          bubbleId: 'c2',
          type: 2,
          text: '',
          thinking: { text: 'Look at the form handler first.' },
          createdAt: '2026-03-11T14:00:05Z',
          toolFormerData: {
            tool: 5,
            name: 'read_file',
            toolCallId: 'toolu_c2',
            rawArgs: json({ target_file: 'src/login.tsx' }),
            result: json({ contents: 'form.onsubmit = submit;\nform.addEventListener("submit", submit);' }),
            status: 'completed',
          },
          tokenCount: { inputTokens: 1200, outputTokens: 80 },
        },
        {
          bubbleId: 'c3',
          type: 2,
          text: '',
          createdAt: '2026-03-11T14:00:20Z',
          toolFormerData: {
            tool: 15,
            name: 'run_terminal_cmd',
            toolCallId: 'toolu_c3',
            rawArgs: json({ command: 'npm test', is_background: false }),
            result: json({ output: '1 failing', exitCode: 1 }),
            status: 'error',
          },
          tokenCount: { inputTokens: 0, outputTokens: 0 },
        },
        {
          bubbleId: 'c4',
          type: 2,
          text: 'The submit handler was bound twice; removed the second binding.',
          createdAt: '2026-03-11T14:01:00Z',
          tokenCount: { inputTokens: 1500, outputTokens: 40 },
        },
      ],
    ),
    ...composer(
      D,
      {
        name: 'Explain the API rate limits',
        createdAt: ms('2026-03-12T09:59:59Z'),
        lastUpdatedAt: ms('2026-03-12T10:00:08Z'),
        modelConfig: { modelName: 'default' },
        workspaceIdentifier: { id: 'ws-api' },
      },
      [
        { bubbleId: 'd1', type: 1, text: 'How are rate limits enforced?', createdAt: '2026-03-12T10:00:00Z' },
        {
          bubbleId: 'd2',
          type: 2,
          text: 'A token bucket per API key, in `src/limits.ts`.',
          createdAt: '2026-03-12T10:00:08Z',
          modelInfo: { modelName: 'gpt-5' },
          tokenCount: { inputTokens: 800, outputTokens: 30 },
        },
      ],
    ),
    ...composer(E, { createdAt: ms('2026-03-12T11:00:00Z'), text: '' }, []),
  ];
}

/** Writes a `state.vscdb` with the editor's two tables, a login token in `ItemTable`, and these rows. */
export function writeCursorDb(file: string, rows: Row[], options: { wal?: boolean } = {}): void {
  const db = new Database(file);
  try {
    if (options.wal) db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
    db.exec('CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
    const item = db.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)');
    item.run('cursorAuth/accessToken', CURSOR_SECRET);
    item.run('workbench.colorTheme', 'Default Dark Modern');
    const kv = db.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)');
    for (const [key, value] of rows) kv.run(key, value);
  } finally {
    db.close();
  }
}

/**
 * The demo's editor database at the Linux default path under `home` (plus the `workspaceStorage/ws-api/
 * workspace.json` that names chat D's folder). Returns the database's path. Never committed: made by the test
 * setup and `npm run demo`.
 */
export async function writeDemoCursorDb(home: string): Promise<string> {
  const user = path.join(home, '.config', 'Cursor', 'User');
  const file = path.join(user, 'globalStorage', 'state.vscdb');
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.rm(file, { force: true });
  writeCursorDb(file, demoRows());
  const ws = path.join(user, 'workspaceStorage', 'ws-api');
  await fs.mkdir(ws, { recursive: true });
  await fs.writeFile(path.join(ws, 'workspace.json'), json({ folder: 'file:///home/alice/work/api' }));
  // The old `.txt` transcript has no time but its file's: a fixed one, not the checkout's.
  const txt = path.join(home, '.cursor', 'projects', 'home-alice-notes', 'agent-transcripts');
  const when = new Date('2026-03-12T09:30:00Z');
  for (const name of await fs.readdir(txt).catch(() => [])) {
    if (name.endsWith('.txt')) await fs.utimes(path.join(txt, name), when, when);
  }
  return file;
}
