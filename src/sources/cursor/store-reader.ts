import { promises as fs } from 'node:fs';
import type Database from 'better-sqlite3';
import type { ChatStoreRef } from './chats.ts';
import { CursorDbError, hasTable, openReadOnly, toDbError, type OpenOptions } from './sqlite-open.ts';
import { childIds } from './store-tree.ts';
import { isObject, isoOf, str } from './text.ts';

/** One blob of the chat's conversation, in order: a message's JSON, or why it could not be had. */
export interface StoreEntry {
  blobId: string;
  /** 1-based place in the conversation: the "line" warnings and message ids name. */
  position: number;
  value?: unknown;
  bad?: string;
}

/** A CLI chat as read from its `store.db` (and `meta.json`): only the fields used; the metadata's
 * `blobEncryptionKey` is never kept. */
export interface CliChat {
  ref: ChatStoreRef;
  mtimeMs: number;
  name?: string;
  /** ISO UTC, from the metadata's `createdAt` (else `meta.json`'s `createdAtMs`). */
  createdAt?: string;
  /** ISO UTC, from `meta.json`'s `updatedAtMs`: the store itself records no later time. */
  updatedAt?: string;
  /** `lastUsedModel`. */
  model?: string;
  /** `meta.json`'s `cwd`. */
  cwd?: string;
  entries: StoreEntry[];
}

/** The name a chat has until it is given one (seen in real metadata): no title. */
const UNNAMED = new Set(['New Agent', 'New Chat']);

/** A tree deeper than this is not followed further (a real conversation is one level under its root). */
const MAX_DEPTH = 64;
/** `meta.json` is one small JSON document: past this size it is not read. */
const MAX_SIDECAR_BYTES = 1024 * 1024;

/**
 * Reads one CLI chat: opens its `store.db` read-only (as the editor's database is: `openReadOnly`), decodes the
 * `meta` row (hex-encoded JSON), then follows the blob tree from `latestRootBlobId` (docs/formats/cursor.md).
 * A store without the `meta` and `blobs` tables, or whose metadata cannot be decoded, throws `CursorDbError`; a
 * chat without a root yet (nothing said) has no entries. A blob missing or not decodable is an entry with `bad`.
 */
export async function readChatStore(ref: ChatStoreRef, options: OpenOptions = {}): Promise<CliChat> {
  const opened = await openReadOnly(ref.file, options);
  try {
    const { db } = opened;
    let meta: Record<string, unknown>;
    try {
      if (!hasTable(db, 'meta') || !hasTable(db, 'blobs'))
        throw new CursorDbError('not a Cursor CLI chat store (no "meta" and "blobs" tables)', 'corrupt');
      meta = readMeta(db);
    } catch (error) {
      throw toDbError(error);
    }
    const sidecar = ref.sidecar ? await readSidecar(ref.sidecar) : {};
    const root = str(meta.latestRootBlobId);
    let entries: StoreEntry[] = [];
    try {
      if (root) entries = walk(db, root.toLowerCase());
    } catch (error) {
      throw toDbError(error);
    }
    const createdAt = isoOf(meta.createdAt) ?? isoOf(sidecar.createdAtMs);
    const updatedAt = isoOf(sidecar.updatedAtMs);
    const name = [str(meta.name), str(sidecar.title)].map((n) => n?.trim()).find((n) => n && !UNNAMED.has(n));
    const model = str(meta.lastUsedModel);
    const cwd = str(sidecar.cwd);
    return {
      ref,
      mtimeMs: opened.mtimeMs,
      ...(name ? { name } : {}),
      ...(createdAt ? { createdAt } : {}),
      ...(updatedAt ? { updatedAt } : {}),
      ...(model ? { model } : {}),
      ...(cwd ? { cwd } : {}),
      entries,
    };
  } finally {
    await opened.close();
  }
}

/** The fields read from the metadata; anything else (the blob encryption key among them) is dropped here. */
const META_FIELDS = ['agentId', 'latestRootBlobId', 'name', 'mode', 'createdAt', 'lastUsedModel'] as const;

/**
 * `meta`: one row, key `0`, whose value is the chat's metadata as hex-encoded JSON. A store that keeps one row
 * per field instead (`key` = field name) is read too.
 */
function readMeta(db: Database.Database): Record<string, unknown> {
  const rows = db.prepare('SELECT key, value FROM meta').all() as Array<{ key: unknown; value: unknown }>;
  const zero = rows.find((r) => String(r.key) === '0');
  let all: Record<string, unknown>;
  if (zero) {
    const decoded = decodeValue(zero.value);
    if (!isObject(decoded)) throw new CursorDbError('its "meta" row 0 is not hex-encoded JSON', 'corrupt');
    all = decoded;
  } else {
    all = Object.fromEntries(rows.map((r) => [String(r.key), decodeValue(r.value)]));
  }
  const out: Record<string, unknown> = {};
  for (const f of META_FIELDS) if (all[f] !== undefined) out[f] = all[f];
  return out;
}

/** A metadata value: hex of UTF-8 JSON (what the CLI writes), else JSON, else the text itself. */
function decodeValue(value: unknown): unknown {
  const text = Buffer.isBuffer(value) ? value.toString('utf8') : typeof value === 'string' ? value : undefined;
  if (text === undefined) return value;
  const trimmed = text.trim();
  const json = /^[0-9a-fA-F]+$/.test(trimmed) && trimmed.length % 2 === 0 ? hexText(trimmed) : trimmed;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    return text;
  }
}

function hexText(hex: string): string {
  return Buffer.from(hex, 'hex').toString('utf8');
}

/**
 * The conversation's blobs in order: depth first from the root, a tree node's children (protobuf field 1, each a
 * 32-byte SHA-256 blob id) in the order written; a blob whose first byte is `{` is one message's JSON.
 */
function walk(db: Database.Database, root: string): StoreEntry[] {
  const get = db.prepare('SELECT data FROM blobs WHERE id = ?').pluck();
  const out: StoreEntry[] = [];
  const seen = new Set<string>();
  const visit = (id: string, depth: number) => {
    if (seen.has(id)) return;
    seen.add(id);
    const raw = get.get(id) as unknown;
    const data = Buffer.isBuffer(raw) ? raw : typeof raw === 'string' ? Buffer.from(raw, 'utf8') : undefined;
    const position = out.length + 1;
    if (!data) {
      out.push({ blobId: id, position, bad: 'not stored' });
      return;
    }
    if (data[0] === 0x7b) {
      try {
        out.push({ blobId: id, position, value: JSON.parse(data.toString('utf8')) as unknown });
      } catch (error) {
        out.push({ blobId: id, position, bad: `not valid JSON (${(error as Error).message})` });
      }
      return;
    }
    const children = childIds(data);
    if (!children || (depth > 0 && children.length === 0)) {
      out.push({ blobId: id, position, bad: 'neither a JSON message nor a tree node' });
      return;
    }
    if (depth >= MAX_DEPTH) {
      out.push({ blobId: id, position, bad: `a tree deeper than ${MAX_DEPTH} levels; not followed` });
      return;
    }
    for (const child of children) visit(child, depth + 1);
  };
  visit(root, 0);
  return out;
}

/** `meta.json` beside the store: `createdAtMs`, `updatedAtMs`, `title`, `cwd`. Unreadable or odd: ignored. */
async function readSidecar(file: string): Promise<Record<string, unknown>> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size > MAX_SIDECAR_BYTES) return {};
    const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}
