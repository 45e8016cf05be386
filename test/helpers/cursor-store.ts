/**
 * Real Cursor CLI chat stores (`~/.cursor/chats/<md5 of cwd>/<agent id>/store.db`) for tests and the demo, made
 * with the CLI's own schema as reported from real stores (vshulcz/deja-vu issue #3772, corveil/crow PR #1105; see
 * docs/formats/cursor.md): `blobs (id TEXT PRIMARY KEY, data BLOB)`, content-addressed (`id` = SHA-256 of
 * `data`), and `meta (key TEXT PRIMARY KEY, value TEXT)` whose row `0` is the chat's metadata as hex-encoded
 * JSON. The root blob is a protobuf message whose repeated field 1 holds the message blobs' raw ids in order.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

/** Kept in the metadata as the CLI does; must never show up in anything the tool produces. */
export const STORE_SECRET = 'CURSOR-BLOB-KEY-DO-NOT-READ';

export const CLI_IDS = {
  /** The demo's CLI chat: a store only, in the webapp. */
  F: 'f0f0f0f0-0c0c-4c0c-8c0c-0000000000f0',
} as const;

export const md5 = (s: string) => createHash('md5').update(s).digest('hex');
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A protobuf length-delimited field (lengths under 128 bytes only, as here). */
function field(n: number, bytes: Buffer): Buffer {
  if (bytes.length > 127) throw new Error('short fields only');
  return Buffer.concat([Buffer.from([(n << 3) | 2, bytes.length]), bytes]);
}

export interface StoreSpec {
  agentId: string;
  name?: string;
  createdAt?: number;
  lastUsedModel?: string;
  /** Message blobs in order (JSON values), or groups of them, each under a tree node of its own. */
  messages: Array<unknown>;
  nested?: boolean;
  /** Blob ids written in the root but not stored. */
  missing?: number[];
  /** Leave the root id out of the metadata (a chat with nothing said yet). */
  noRoot?: boolean;
}

/** Writes `store.db` into `chatDir` (made if needed). Returns the database's path. With `keepOpen` the writer
 * stays open in WAL mode (as the CLI while it runs: `-wal` and `-shm` beside the file) and is returned. */
export function writeChatStore(chatDir: string, spec: StoreSpec, options: { keepOpen?: boolean } = {}) {
  const file = path.join(chatDir, 'store.db');
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('wal_autocheckpoint = 0');
  db.exec('CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)');
  db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)');
  const put = db.prepare('INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)');
  const store = (data: Buffer) => {
    const id = sha256(data);
    put.run(id, data);
    return id;
  };
  const ids = spec.messages.map((m, i) => {
    const data = Buffer.from(JSON.stringify(m), 'utf8');
    if (spec.missing?.includes(i)) return sha256(data);
    return store(data);
  });
  const node = (children: string[], extra: Buffer[] = []) =>
    Buffer.concat([...children.map((id) => field(1, Buffer.from(id, 'hex'))), ...extra]);
  // Fields the reader must skip: a workspace string (field 9, as in public test stores), a varint (field 2), and
  // field 8, a 32-byte hash naming no stored blob (seen in real roots), after bytes that hold `0a 20`.
  const extra = [
    field(9, Buffer.from('/work/space')),
    Buffer.from([0x10, 0x96, 0x01]),
    field(3, Buffer.from([0x0a, 0x20, 0xe3, 0x1a])),
    field(8, createHash('sha256').update('not stored').digest()),
  ];
  let rootChildren = ids;
  if (spec.nested) {
    const half = Math.ceil(ids.length / 2);
    rootChildren = [store(node(ids.slice(0, half))), store(node(ids.slice(half)))];
  }
  const root = store(node(rootChildren, extra));
  const meta = {
    agentId: spec.agentId,
    ...(spec.noRoot ? {} : { latestRootBlobId: root }),
    name: spec.name ?? 'New Agent',
    mode: 'default',
    createdAt: spec.createdAt,
    lastUsedModel: spec.lastUsedModel,
    blobEncryptionKey: STORE_SECRET,
  };
  db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(
    '0',
    Buffer.from(JSON.stringify(meta), 'utf8').toString('hex'),
  );
  if (options.keepOpen) return { file, db };
  db.close();
  return { file, db: undefined };
}

/** The chat folder for a workspace path under `<home>/.cursor/chats`. */
export function chatDirFor(home: string, cwd: string, agentId: string): string {
  return path.join(home, '.cursor', 'chats', md5(cwd), agentId);
}

const user = (query: string, cwd: string) => ({
  role: 'user',
  content: `<user_info>\nOS Version: linux 6.8\nWorkspace Path: ${cwd}\nShell: bash\n</user_info>\n\n<user_query>\n${query}\n</user_query>`,
});

/** The demo's CLI chat F in /home/alice/work/webapp: a read, a shell command, thinking and an answer. */
export function demoChatMessages(cwd = '/home/alice/work/webapp'): unknown[] {
  return [
    { role: 'system', content: 'You are an AI coding assistant, powered by GPT-5. You operate in the Cursor CLI.' },
    user('Why does the dev server print a warning on start?', cwd),
    {
      id: '1',
      role: 'assistant',
      content: [
        {
          type: 'reasoning',
          text: 'Check the dev script first.',
          providerOptions: { cursor: { modelName: 'gpt-5' } },
          signature: 'c2lnbmF0dXJl',
        },
        { type: 'text', text: 'Let me look at the dev script.' },
        {
          type: 'tool-call',
          toolCallId: 'call_f1',
          toolName: 'Read',
          args: { path: `${cwd}/package.json` },
          providerOptions: { cursor: { rawToolCallArgs: JSON.stringify({ path: `${cwd}/package.json` }) } },
        },
      ],
    },
    {
      role: 'tool',
      id: 'call_f1',
      content: [
        {
          type: 'tool-result',
          toolName: 'Read',
          toolCallId: 'call_f1',
          result: '{ "scripts": { "dev": "node --watch server.js" } }',
          isError: false,
        },
      ],
    },
    {
      id: '1',
      role: 'assistant',
      content: [
        {
          type: 'tool-call',
          toolCallId: 'call_f2',
          toolName: 'Shell',
          args: { command: 'node --version', working_directory: cwd },
        },
      ],
    },
    {
      role: 'tool',
      id: 'call_f2',
      content: [
        {
          type: 'tool-result',
          toolName: 'Shell',
          toolCallId: 'call_f2',
          result: [{ type: 'text', text: 'v18.19.0' }],
          isError: false,
        },
      ],
    },
    {
      id: '1',
      role: 'assistant',
      content: [{ type: 'text', text: 'Node 18 marks `--watch` as experimental: use Node 20, or drop the flag.' }],
    },
  ];
}

export const DEMO_CHAT_CREATED = '2026-03-12T15:00:00Z';
export const DEMO_CHAT_MTIME = '2026-03-12T15:04:00Z';

/** The demo's CLI chat store under `home` (never committed: made by the test setup and `npm run demo`). */
export async function writeDemoChatStore(home: string): Promise<string> {
  const dir = chatDirFor(home, '/home/alice/work/webapp', CLI_IDS.F);
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  const { file } = writeChatStore(dir, {
    agentId: CLI_IDS.F,
    name: 'Dev server warning on start',
    createdAt: Date.parse(DEMO_CHAT_CREATED),
    lastUsedModel: 'gpt-5',
    messages: demoChatMessages(),
  });
  const when = new Date(DEMO_CHAT_MTIME);
  await fs.utimes(file, when, when);
  return file;
}
