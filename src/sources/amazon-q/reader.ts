import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { kindOf, NotRegularFileError, openRegular, readFailure } from '../../util/fs.ts';
import { sqlite } from '../../util/sqlite.ts';
import { readSqliteHeader, SQLITE_MAGIC } from '../../util/sqlite-copy.ts';
import { isKiroPath } from './paths.ts';

/** One stored conversation, still as JSON text (parsed one at a time by the normalizer). */
export interface ConversationRow {
  /** The database or `/save` file it came from (the real path, never a temp copy). */
  file: string;
  kind: 'db' | 'json';
  table?: 'conversations' | 'conversations_v2';
  product?: 'Amazon Q CLI' | 'Kiro CLI';
  /** The row key: the absolute directory `q chat` ran in. Absent for `/save` files. */
  key?: string;
  /** `conversations_v2.conversation_id`. */
  conversationId?: string;
  /** `conversations_v2.created_at` / `updated_at`, epoch ms. */
  createdAt?: number;
  updatedAt?: number;
  value: Buffer;
  fileMtimeMs: number;
  /** 1-based position of the row in its table (ordered by key), or 1 for a file. */
  rowIndex: number;
}

export type QReadFailure = 'locked' | 'corrupt' | 'unreadable';

export class QReadError extends Error {
  constructor(
    message: string,
    readonly reason: QReadFailure,
  ) {
    super(message);
  }
}

export interface ReadDatabaseOptions {
  /** SQLite busy timeout per attempt (the wait inside SQLite for a lock to clear). */
  busyTimeoutMs?: number;
  attempts?: number;
  retryDelayMs?: number;
  /** Called with every SQL statement run (better-sqlite3 `verbose`): lets tests prove which tables are read. */
  onSql?: (sql: string) => void;
}

export const DEFAULT_READ_OPTIONS: Required<Omit<ReadDatabaseOptions, 'onSql'>> = {
  busyTimeoutMs: 1000,
  attempts: 3,
  retryDelayMs: 250,
};

export interface DatabaseContents {
  rows: ConversationRow[];
  /** Which of `conversations` / `conversations_v2` exist. */
  tables: string[];
  product: 'Amazon Q CLI' | 'Kiro CLI';
}

const CONVERSATION_TABLES = ['conversations', 'conversations_v2'] as const;

/**
 * Reads the conversation rows of one Q/Kiro `data.sqlite3`, read-only. Only `sqlite_master`, `conversations` and
 * `conversations_v2` are queried: `auth_kv` and `state` hold credentials and are never touched. Nothing is written
 * to the database or beside it: a WAL-mode database (which SQLite would open by creating `-shm`/`-wal` files next
 * to it) and one left with a hot rollback journal are copied to a private temp directory and read there.
 * A lock held by a running `q chat` is retried within a bound; then a `QReadError` says what went wrong.
 */
export async function readDatabase(file: string, options: ReadDatabaseOptions = {}): Promise<DatabaseContents> {
  const opts = { ...DEFAULT_READ_OPTIONS, ...options };
  let stat: import('node:fs').Stats;
  let header: Buffer;
  try {
    stat = await fs.stat(file);
    // Never open a FIFO or device: the open itself could block.
    if (!stat.isFile()) throw new NotRegularFileError(file, kindOf(stat));
    header = await readSqliteHeader(file);
  } catch (error) {
    throw new QReadError(readFailure(error), 'unreadable');
  }
  if (stat.size === 0) return { rows: [], tables: [], product: productOf(file, []) };
  if (header.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC) {
    throw new QReadError('not a SQLite database (no "SQLite format 3" header): corrupt or not a Q database', 'corrupt');
  }
  const walMode = header[18] === 2 || header[19] === 2;
  const needsCopy = walMode || (await exists(`${file}-wal`));

  let tempDir: string | undefined;
  try {
    let openPath = file;
    if (needsCopy) {
      tempDir = await copyToTemp(file, ['-wal', '-shm']);
      openPath = path.join(tempDir, path.basename(file));
    }
    for (let attempt = 1; ; attempt += 1) {
      try {
        return queryDatabase(openPath, file, stat.mtimeMs, opts.busyTimeoutMs, opts.onSql);
      } catch (error) {
        const code = errorCode(error);
        if ((code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') && attempt < opts.attempts) {
          await new Promise((resolve) => setTimeout(resolve, opts.retryDelayMs));
          continue;
        }
        if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
          const waited = (
            (opts.busyTimeoutMs * opts.attempts + opts.retryDelayMs * (opts.attempts - 1)) /
            1000
          ).toFixed(1);
          throw new QReadError(
            `database is locked (is q chat or kiro-cli writing to it?): gave up after ${opts.attempts} attempts over about ${waited}s`,
            'locked',
          );
        }
        if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT')) {
          throw new QReadError(`corrupt database (${code}: ${(error as Error).message})`, 'corrupt');
        }
        if (!tempDir && (code.startsWith('SQLITE_READONLY') || code === 'SQLITE_CANTOPEN')) {
          // A hot journal needs a rollback, which a read-only connection cannot do: roll it back in a copy.
          tempDir = await copyToTemp(file, ['-journal']);
          openPath = path.join(tempDir, path.basename(file));
          attempt = 0;
          continue;
        }
        throw new QReadError(`could not read database (${code}: ${(error as Error).message})`, 'unreadable');
      }
    }
  } finally {
    if (tempDir) await fs.rm(tempDir, { recursive: true, force: true });
  }
}

function queryDatabase(
  openPath: string,
  file: string,
  mtimeMs: number,
  busyTimeoutMs: number,
  onSql?: (sql: string) => void,
): DatabaseContents {
  const db = new (sqlite())(openPath, {
    readonly: true,
    fileMustExist: true,
    timeout: busyTimeoutMs,
    ...(onSql ? { verbose: (sql: unknown) => onSql(String(sql)) } : {}),
  });
  try {
    const tables = (
      db
        .prepare(
          `SELECT name FROM sqlite_master WHERE type = 'table' AND name IN (${CONVERSATION_TABLES.map(() => '?').join(', ')}) ORDER BY name`,
        )
        .all(...CONVERSATION_TABLES) as Array<{ name: string }>
    ).map((r) => r.name);
    const product = productOf(file, tables);
    const rows: ConversationRow[] = [];
    if (tables.includes('conversations')) {
      const v1 = db.prepare('SELECT key, CAST(value AS BLOB) AS value FROM conversations ORDER BY key').all() as Array<{
        key: unknown;
        value: Buffer | null;
      }>;
      v1.forEach((r, i) =>
        rows.push({
          file,
          kind: 'db',
          table: 'conversations',
          product,
          key: typeof r.key === 'string' ? r.key : undefined,
          value: r.value ?? Buffer.alloc(0),
          fileMtimeMs: mtimeMs,
          rowIndex: i + 1,
        }),
      );
    }
    if (tables.includes('conversations_v2')) {
      const v2 = db
        .prepare(
          'SELECT key, conversation_id, CAST(value AS BLOB) AS value, created_at, updated_at FROM conversations_v2 ORDER BY key, created_at, conversation_id',
        )
        .all() as Array<{
        key: unknown;
        conversation_id: unknown;
        value: Buffer | null;
        created_at: unknown;
        updated_at: unknown;
      }>;
      v2.forEach((r, i) =>
        rows.push({
          file,
          kind: 'db',
          table: 'conversations_v2',
          product,
          key: typeof r.key === 'string' ? r.key : undefined,
          conversationId: typeof r.conversation_id === 'string' ? r.conversation_id : undefined,
          createdAt: epochMs(r.created_at),
          updatedAt: epochMs(r.updated_at),
          value: r.value ?? Buffer.alloc(0),
          fileMtimeMs: mtimeMs,
          rowIndex: i + 1,
        }),
      );
    }
    return { rows, tables, product };
  } finally {
    db.close();
  }
}

/** Reads a `/save` export: the same `ConversationState` JSON as a database row's value. */
export async function readExport(file: string): Promise<ConversationRow> {
  try {
    const handle = await openRegular(file);
    try {
      const [value, stat] = await Promise.all([handle.readFile(), handle.stat()]);
      return { file, kind: 'json', value, fileMtimeMs: stat.mtimeMs, rowIndex: 1 };
    } finally {
      await handle.close();
    }
  } catch (error) {
    throw new QReadError(readFailure(error), 'unreadable');
  }
}

function productOf(file: string, tables: string[]): 'Amazon Q CLI' | 'Kiro CLI' {
  return isKiroPath(file) || tables.includes('conversations_v2') ? 'Kiro CLI' : 'Amazon Q CLI';
}

function epochMs(value: unknown): number | undefined {
  const n = typeof value === 'bigint' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : undefined;
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

/** Copies the database and whichever of its companion files exist into a new private temp directory. */
async function copyToTemp(file: string, companions: string[]): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-qcopy-'));
  const base = path.basename(file);
  await fs.copyFile(file, path.join(dir, base));
  for (const suffix of companions) {
    try {
      await fs.copyFile(`${file}${suffix}`, path.join(dir, `${base}${suffix}`));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return dir;
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : ((error as Error)?.message ?? String(error));
}
