import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { kindOf, NotRegularFileError, readFailure } from '../../util/fs.ts';
import { sqlite } from '../../util/sqlite.ts';

const SQLITE_MAGIC = 'SQLite format 3\u0000';

export class CursorDbError extends Error {
  constructor(
    message: string,
    readonly reason: 'locked' | 'corrupt' | 'unreadable',
  ) {
    super(message);
  }
}

export interface KvRow {
  key: string;
  value: string | undefined;
}

/** An open `state.vscdb`, read-only. Only `cursorDiskKV` rows under `composerData:` and `bubbleId:` are ever
 * queried: `ItemTable` holds the editor's login tokens and is never read. */
export interface CursorDb {
  file: string;
  mtimeMs: number;
  composers(): KvRow[];
  bubbles(composerId: string): Map<string, string | undefined>;
  close(): Promise<void>;
}

export interface OpenOptions {
  busyTimeoutMs?: number;
  /** Every SQL statement run (better-sqlite3 `verbose`): lets tests prove which rows are read. */
  onSql?: (sql: string) => void;
}

/**
 * Opens Cursor's global `state.vscdb` without writing to it or beside it and without a lock that could make the
 * editor wait: a read-only connection never checkpoints nor takes a write lock. In WAL mode with the editor
 * running (`-wal` and `-shm` present) the database is read in place, WAL included. A WAL-mode database without
 * both (the editor closed; opening it would create them) or with a hot rollback journal is copied to a private
 * temp directory and read there.
 */
export async function openCursorDb(file: string, options: OpenOptions = {}): Promise<CursorDb> {
  let stat: import('node:fs').Stats;
  const header = Buffer.alloc(100);
  try {
    stat = await fs.stat(file);
    if (!stat.isFile()) throw new NotRegularFileError(file, kindOf(stat));
    const handle = await fs.open(file, 'r');
    try {
      await handle.read(header, 0, 100, 0);
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new CursorDbError(readFailure(error), 'unreadable');
  }
  if (header.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC) {
    throw new CursorDbError('not a SQLite database (no "SQLite format 3" header)', 'corrupt');
  }
  const wal = header[18] === 2 || header[19] === 2;
  const [hasWal, hasShm, hasJournal] = await Promise.all(
    ['-wal', '-shm', '-journal'].map((s) => exists(`${file}${s}`)),
  );
  const copy = wal ? !(hasWal && hasShm) : hasJournal;
  let tempDir: string | undefined;
  let openPath = file;
  if (copy) {
    tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-cursor-'));
    openPath = path.join(tempDir, path.basename(file));
    await fs.copyFile(file, openPath);
    for (const suffix of ['-wal', '-journal']) {
      await fs.copyFile(`${file}${suffix}`, `${openPath}${suffix}`).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
  }
  const cleanup = async () => {
    if (tempDir) await fs.rm(tempDir, { recursive: true, force: true });
  };
  let db: Database.Database;
  try {
    db = new (sqlite())(openPath, {
      readonly: true,
      fileMustExist: true,
      timeout: options.busyTimeoutMs ?? 1000,
      ...(options.onSql ? { verbose: (sql: unknown) => options.onSql!(String(sql)) } : {}),
    });
    const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'cursorDiskKV'").get();
    if (!table) {
      db.close();
      await cleanup();
      return emptyDb(file, stat.mtimeMs);
    }
  } catch (error) {
    await cleanup();
    throw toDbError(error);
  }
  const range = db.prepare('SELECT key, CAST(value AS TEXT) AS value FROM cursorDiskKV WHERE key >= ? AND key < ?');
  const rows = (prefix: string): KvRow[] => {
    try {
      return (range.all(prefix, `${prefix.slice(0, -1)};`) as Array<{ key: unknown; value: unknown }>).map((r) => ({
        key: String(r.key),
        value: typeof r.value === 'string' ? r.value : undefined,
      }));
    } catch (error) {
      throw toDbError(error);
    }
  };
  return {
    file,
    mtimeMs: stat.mtimeMs,
    composers: () => rows('composerData:'),
    bubbles: (composerId) => {
      const prefix = `bubbleId:${composerId}:`;
      return new Map(rows(prefix).map((r) => [r.key.slice(prefix.length), r.value]));
    },
    close: async () => {
      db.close();
      await cleanup();
    },
  };
}

function emptyDb(file: string, mtimeMs: number): CursorDb {
  return { file, mtimeMs, composers: () => [], bubbles: () => new Map(), close: async () => {} };
}

function toDbError(error: unknown): CursorDbError {
  const code = String((error as { code?: unknown })?.code ?? '');
  const message = (error as Error)?.message ?? String(error);
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return new CursorDbError(`database is locked (is Cursor writing to it?): ${message}`, 'locked');
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new CursorDbError(`corrupt database (${code}: ${message})`, 'corrupt');
  }
  return new CursorDbError(`could not read database (${code || 'error'}: ${message})`, 'unreadable');
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}
