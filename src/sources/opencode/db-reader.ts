import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { kindOf, NotRegularFileError, readFailure } from '../../util/fs.ts';
import { sqlite } from '../../util/sqlite.ts';
import { num, str, type OcMessageRow, type OcPartRow, type OcSessionRecords, type OcSessionRow } from './schema.ts';

export class OcReadError extends Error {}

const SQLITE_MAGIC = 'SQLite format 3\u0000';
const SESSION_COLUMNS = [
  'id',
  'parent_id',
  'project_id',
  'directory',
  'title',
  'version',
  'agent',
  'time_created',
  'time_updated',
] as const;

/**
 * OpenCode's `opencode.db`, read-only. OpenCode keeps it in WAL mode, and SQLite would open a WAL database by
 * creating or writing its `-shm` beside it; so the database and its `-wal`/`-shm` are copied to a private temp
 * folder and read there, and nothing next to the original is touched. Only `session`, `message` and `part` are
 * queried (`account`, `control_account` hold credentials).
 */
export class OpenCodeDb {
  private constructor(
    private readonly db: Database.Database,
    private readonly tempDir: string,
    readonly file: string,
    private readonly columns: Set<string>,
  ) {}

  static async open(file: string): Promise<OpenCodeDb> {
    try {
      const stat = await fs.stat(file);
      if (!stat.isFile()) throw new NotRegularFileError(file, kindOf(stat));
    } catch (error) {
      throw new OcReadError(readFailure(error));
    }
    const header = await readHeader(file).catch((error: unknown) => {
      throw new OcReadError(readFailure(error));
    });
    if (header.length === 0) throw new OcReadError('empty file, not yet a database');
    if (header.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC)
      throw new OcReadError('not a SQLite database (no "SQLite format 3" header)');
    const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-opencode-'));
    try {
      const copy = path.join(tempDir, path.basename(file));
      await fs.copyFile(file, copy);
      for (const suffix of ['-wal', '-shm']) {
        await fs.copyFile(`${file}${suffix}`, `${copy}${suffix}`).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== 'ENOENT') throw error;
        });
      }
      const db = new (sqlite())(copy, { readonly: true, fileMustExist: true, timeout: 1000 });
      try {
        const tables = new Set(
          (
            db
              .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')`)
              .all() as Array<{ name: string }>
          ).map((r) => r.name),
        );
        const missing = ['session', 'message', 'part'].filter((t) => !tables.has(t));
        if (missing.length > 0) throw new OcReadError(`no ${missing.join(', ')} table (not an OpenCode database?)`);
        const columns = new Set(
          (db.prepare('SELECT name FROM pragma_table_info(?)').all('session') as Array<{ name: string }>).map(
            (r) => r.name,
          ),
        );
        return new OpenCodeDb(db, tempDir, file, columns);
      } catch (error) {
        db.close();
        throw error;
      }
    } catch (error) {
      await fs.rm(tempDir, { recursive: true, force: true });
      if (error instanceof OcReadError) throw error;
      const code = (error as { code?: unknown }).code;
      throw new OcReadError(
        `could not read database (${typeof code === 'string' ? `${code}: ` : ''}${(error as Error).message})`,
      );
    }
  }

  /** Every session row, oldest first. Columns a version lacks are left out. */
  sessions(): OcSessionRow[] {
    const cols = SESSION_COLUMNS.filter((c) => this.columns.has(c));
    const order = this.columns.has('time_created') ? 'time_created, id' : 'id';
    const rows = this.db.prepare(`SELECT ${cols.join(', ')} FROM session ORDER BY ${order}`).all() as Array<
      Record<string, unknown>
    >;
    const out: OcSessionRow[] = [];
    for (const r of rows) {
      const id = str(r.id);
      if (!id) continue;
      out.push({
        id,
        parentId: str(r.parent_id),
        projectId: str(r.project_id),
        directory: str(r.directory),
        title: str(r.title),
        version: str(r.version),
        agent: str(r.agent),
        timeCreated: num(r.time_created),
        timeUpdated: num(r.time_updated),
        file: this.file,
      });
    }
    return out;
  }

  /** A session's messages (by creation time, then id) and their parts (by id, which is ascending in time). */
  records(sessionId: string): OcSessionRecords {
    const messages: OcMessageRow[] = [];
    for (const r of this.db
      .prepare(
        'SELECT id, time_created, CAST(data AS TEXT) AS data FROM message WHERE session_id = ? ORDER BY time_created, id',
      )
      .all(sessionId) as Array<Record<string, unknown>>) {
      const id = str(r.id);
      if (!id) continue;
      messages.push({ id, sessionId, timeCreated: num(r.time_created), data: String(r.data ?? ''), file: this.file });
    }
    const parts = new Map<string, OcPartRow[]>();
    for (const r of this.db
      .prepare(
        'SELECT id, message_id, CAST(data AS TEXT) AS data FROM part WHERE session_id = ? ORDER BY message_id, id',
      )
      .all(sessionId) as Array<Record<string, unknown>>) {
      const id = str(r.id);
      const messageId = str(r.message_id);
      if (!id || !messageId) continue;
      const list = parts.get(messageId) ?? [];
      list.push({ id, messageId, data: String(r.data ?? ''), file: this.file });
      parts.set(messageId, list);
    }
    return { messages, parts };
  }

  /** Per session, the count and latest `time_updated` of its messages and parts: what changes when anything in
   * the session does (undefined when the tables lack the columns). */
  changeMarks(): Map<string, string> | undefined {
    try {
      const marks = new Map<string, string>();
      for (const table of ['message', 'part']) {
        for (const r of this.db
          .prepare(`SELECT session_id, COUNT(*) AS n, MAX(time_updated) AS t FROM ${table} GROUP BY session_id`)
          .all() as Array<Record<string, unknown>>) {
          const id = str(r.session_id);
          if (id) marks.set(id, `${marks.get(id) ?? ''}${table}:${num(r.n) ?? 0}:${num(r.t) ?? 0};`);
        }
      }
      return marks;
    } catch {
      return undefined;
    }
  }

  async close(): Promise<void> {
    this.db.close();
    await fs.rm(this.tempDir, { recursive: true, force: true });
  }
}

async function readHeader(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(100);
    const { bytesRead } = await handle.read(buffer, 0, 100, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}
