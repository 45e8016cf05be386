import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { kindOf, NotRegularFileError, readFailure } from './fs.ts';
import { sqlite } from './sqlite.ts';

/** The first 16 bytes of every SQLite database file. */
export const SQLITE_MAGIC = 'SQLite format 3\u0000';

/** An assistant's database opened on a private copy: `close` closes it and removes the copy. */
export interface SqliteCopy {
  db: Database.Database;
  close(): Promise<void>;
}

/**
 * An assistant's SQLite database (kept in WAL mode), opened read-only without touching anything beside it:
 * SQLite would open a WAL database by creating or writing its `-shm`, so the file and its `-wal`/`-shm` are
 * copied to a private temp folder and read there. A file that is not there, not a regular file, empty, not
 * SQLite or unreadable throws `fail(reason in words)`.
 */
export async function openSqliteCopy(file: string, fail: (message: string) => Error): Promise<SqliteCopy> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) throw new NotRegularFileError(file, kindOf(stat));
  } catch (error) {
    throw fail(readFailure(error));
  }
  const header = await readSqliteHeader(file).catch((error: unknown) => {
    throw fail(readFailure(error));
  });
  if (header.length === 0) throw fail('empty file, not yet a database');
  if (header.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC)
    throw fail('not a SQLite database (no "SQLite format 3" header)');
  const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-db-'));
  const removeCopy = () => fs.rm(tempDir, { recursive: true, force: true });
  try {
    const copy = path.join(tempDir, path.basename(file));
    await fs.copyFile(file, copy);
    for (const suffix of ['-wal', '-shm']) {
      await fs.copyFile(`${file}${suffix}`, `${copy}${suffix}`).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    }
    const db = new (sqlite())(copy, { readonly: true, fileMustExist: true, timeout: 1000 });
    return {
      db,
      close: async () => {
        db.close();
        await removeCopy();
      },
    };
  } catch (error) {
    await removeCopy();
    throw fail(couldNotRead(error));
  }
}

/** "could not read database (CODE: message)", for an error met while reading a database. */
export function couldNotRead(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return `could not read database (${typeof code === 'string' ? `${code}: ` : ''}${(error as Error).message})`;
}

/** A database file's 100-byte header (fewer bytes for a shorter file). */
export async function readSqliteHeader(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(100);
    const { bytesRead } = await handle.read(buffer, 0, 100, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
