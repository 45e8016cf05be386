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

export interface OpenOptions {
  busyTimeoutMs?: number;
  /** Every SQL statement run (better-sqlite3 `verbose`): lets tests prove which rows are read. */
  onSql?: (sql: string) => void;
}

/** A database opened read-only, and how to let go of it (the private copy, when one was made, is removed). */
export interface ReadOnlyDb {
  db: Database.Database;
  mtimeMs: number;
  close(): Promise<void>;
}

/**
 * Opens one of Cursor's SQLite files (the editor's `state.vscdb`, the CLI's `store.db`) without writing to it or
 * beside it and without a lock that could make Cursor wait: a read-only connection never checkpoints nor takes a
 * write lock. In WAL mode with Cursor running (`-wal` and `-shm` present) the database is read in place, WAL
 * included. A WAL-mode database without both (Cursor closed; opening it would create them) or with a hot
 * rollback journal is copied to a private temp directory and read there.
 */
export async function openReadOnly(file: string, options: OpenOptions = {}): Promise<ReadOnlyDb> {
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
  try {
    const db = new (sqlite())(openPath, {
      readonly: true,
      fileMustExist: true,
      timeout: options.busyTimeoutMs ?? 1000,
      ...(options.onSql ? { verbose: (sql: unknown) => options.onSql!(String(sql)) } : {}),
    });
    return {
      db,
      mtimeMs: stat.mtimeMs,
      close: async () => {
        db.close();
        await cleanup();
      },
    };
  } catch (error) {
    await cleanup();
    throw toDbError(error);
  }
}

/** Whether the open database has this table. */
export function hasTable(db: Database.Database, name: string): boolean {
  return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;
}

export function toDbError(error: unknown): CursorDbError {
  if (error instanceof CursorDbError) return error;
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
