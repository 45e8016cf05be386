/**
 * The Cursor CLI's chat store of a benchmark conversation (docs/formats/cursor.md, "CLI chat stores"):
 * `~/.cursor/chats/<md5 of cwd>/<agent id>/store.db`, the same conversation as its agent transcript, in the
 * CLI's blob shape (a protobuf root listing content-addressed JSON messages; thinking and tool results, which the
 * transcript lacks; no times, no tokens). Made from the transcript's lines and the bubbles generated beside them
 * (one bubble per line, in order), so it draws nothing from the random stream.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

function varint(n: number): Buffer {
  const out: number[] = [];
  while (n > 127) {
    out.push((n & 0x7f) | 0x80);
    n = Math.floor(n / 128);
  }
  out.push(n);
  return Buffer.from(out);
}

export interface CliChatSource {
  home: string;
  cwd: string;
  id: string;
  title: string;
  started: number;
  ended: number;
  model: string;
  /** The transcript's JSONL lines and the bubbles made beside them, one for one. */
  lines: string[];
  bubbles: Array<Record<string, unknown>>;
}

/** Writes the store; returns its size in bytes. */
export async function writeCliStore(chat: CliChatSource): Promise<number> {
  const messages: unknown[] = [];
  chat.lines.forEach((text, i) => {
    const line = JSON.parse(text) as { role: string; message: { content: Array<Record<string, unknown>> } };
    const bubble = chat.bubbles[i] ?? {};
    if (line.role === 'user') {
      messages.push({ role: 'user', content: line.message.content });
      return;
    }
    const thinking = (bubble.thinking as { text?: string } | undefined)?.text;
    const tool = bubble.toolFormerData as { toolCallId: string; result: string } | undefined;
    const content: unknown[] = [];
    if (thinking)
      content.push({ type: 'reasoning', text: thinking, providerOptions: { cursor: { modelName: chat.model } } });
    for (const block of line.message.content) {
      if (block.type === 'tool_use' && tool) {
        content.push({ type: 'tool-call', toolCallId: tool.toolCallId, toolName: block.name, args: block.input });
      } else content.push(block);
    }
    messages.push({ id: '1', role: 'assistant', content });
    if (tool) {
      const name = line.message.content.find((b) => b.type === 'tool_use')?.name;
      messages.push({
        role: 'tool',
        id: tool.toolCallId,
        content: [
          { type: 'tool-result', toolCallId: tool.toolCallId, toolName: name, result: tool.result, isError: false },
        ],
      });
    }
  });
  const dir = path.join(chat.home, '.cursor', 'chats', createHash('md5').update(chat.cwd).digest('hex'), chat.id);
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, 'store.db');
  await fs.rm(file, { force: true });
  const db = new Database(file);
  try {
    db.pragma('journal_mode = WAL');
    db.exec('CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)');
    db.exec('CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)');
    const put = db.prepare('INSERT OR IGNORE INTO blobs (id, data) VALUES (?, ?)');
    db.transaction(() => {
      const refs = messages.map((m) => {
        const data = Buffer.from(JSON.stringify(m), 'utf8');
        const id = sha256(data);
        put.run(id, data);
        return Buffer.concat([Buffer.from([0x0a]), varint(32), Buffer.from(id, 'hex')]);
      });
      const root = Buffer.concat(refs);
      const rootId = sha256(root);
      put.run(rootId, root);
      const meta = {
        agentId: chat.id,
        latestRootBlobId: rootId,
        name: chat.title,
        mode: 'default',
        createdAt: chat.started,
        lastUsedModel: chat.model,
      };
      db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)').run(
        '0',
        Buffer.from(JSON.stringify(meta)).toString('hex'),
      );
    })();
  } finally {
    db.close();
  }
  await fs.utimes(file, new Date(chat.ended), new Date(chat.ended));
  // Newer builds write meta.json beside the store: its updatedAtMs ends a chat longer than half a day, which the
  // store's mtime alone does not (the reader takes a later mtime for a store touched or restored since).
  const sidecar = JSON.stringify({
    schemaVersion: 1,
    createdAtMs: chat.started,
    updatedAtMs: chat.ended,
    title: chat.title,
    cwd: chat.cwd,
  });
  await fs.writeFile(path.join(dir, 'meta.json'), sidecar);
  return (await fs.stat(file)).size + sidecar.length;
}
