import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type Database from 'better-sqlite3';
import { kindOf, NotRegularFileError, readFailure } from '../../util/fs.ts';
import { sqlite } from '../../util/sqlite.ts';
import { modelOf, num, str, timestampMs, type GooseMessageRecord, type GooseSessionRow } from './schema.ts';

export class GooseReadError extends Error {}

const SQLITE_MAGIC = 'SQLite format 3\u0000';
/** The `sessions` columns read, when the database has them (older schema versions lack some). */
const SESSION_COLUMNS = [
  'id',
  'name',
  'description',
  'session_type',
  'working_dir',
  'created_at',
  'updated_at',
  'total_tokens',
  'input_tokens',
  'output_tokens',
  'accumulated_total_tokens',
  'accumulated_input_tokens',
  'accumulated_output_tokens',
  'schedule_id',
  'provider_name',
  'model_config_json',
  'accumulated_cost',
] as const;

/**
 * Goose's `sessions.db`, read-only. Goose keeps it in WAL mode, and SQLite would open a WAL database by creating or
 * writing its `-shm` beside it; so the database and its `-wal`/`-shm` are copied to a private temp folder and read
 * there, and nothing next to the original is touched. Only `sessions` and `messages` are queried.
 */
export class GooseDb {
  private constructor(
    private readonly db: Database.Database,
    private readonly tempDir: string,
    readonly file: string,
    private readonly sessionColumns: Set<string>,
    private readonly messageColumns: Set<string>,
  ) {}

  static async open(file: string): Promise<GooseDb> {
    try {
      const stat = await fs.stat(file);
      if (!stat.isFile()) throw new NotRegularFileError(file, kindOf(stat));
    } catch (error) {
      throw new GooseReadError(readFailure(error));
    }
    const header = await readHeader(file).catch((error: unknown) => {
      throw new GooseReadError(readFailure(error));
    });
    if (header.length === 0) throw new GooseReadError('empty file, not yet a database');
    if (header.subarray(0, 16).toString('latin1') !== SQLITE_MAGIC)
      throw new GooseReadError('not a SQLite database (no "SQLite format 3" header)');
    const tempDir = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-goose-'));
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
        const columnsOf = (table: string) =>
          new Set(
            (db.prepare('SELECT name FROM pragma_table_info(?)').all(table) as Array<{ name: string }>).map(
              (r) => r.name,
            ),
          );
        const sessionColumns = columnsOf('sessions');
        const messageColumns = columnsOf('messages');
        const missing = [
          ...(sessionColumns.has('id') ? [] : ['sessions']),
          ...(['session_id', 'role', 'content_json'].every((c) => messageColumns.has(c)) ? [] : ['messages']),
        ];
        if (missing.length > 0) throw new GooseReadError(`no ${missing.join(', ')} table (not a Goose database?)`);
        return new GooseDb(db, tempDir, file, sessionColumns, messageColumns);
      } catch (error) {
        db.close();
        throw error;
      }
    } catch (error) {
      await fs.rm(tempDir, { recursive: true, force: true });
      if (error instanceof GooseReadError) throw error;
      const code = (error as { code?: unknown }).code;
      throw new GooseReadError(
        `could not read database (${typeof code === 'string' ? `${code}: ` : ''}${(error as Error).message})`,
      );
    }
  }

  /** Every session row, oldest first. Columns a schema version lacks are left out. */
  sessions(): GooseSessionRow[] {
    const cols = SESSION_COLUMNS.filter((c) => this.sessionColumns.has(c));
    const order = this.sessionColumns.has('created_at') ? 'created_at, id' : 'id';
    const rows = this.db.prepare(`SELECT ${cols.join(', ')} FROM sessions ORDER BY ${order}`).all() as Array<
      Record<string, unknown>
    >;
    const out: GooseSessionRow[] = [];
    for (const r of rows) {
      const id = str(typeof r.id === 'number' ? String(r.id) : r.id);
      if (!id) continue;
      out.push({
        id,
        name: str(r.name) ?? str(r.description),
        sessionType: str(r.session_type),
        workingDir: str(r.working_dir),
        createdAt: timestampMs(r.created_at),
        updatedAt: timestampMs(r.updated_at),
        updatedText: r.updated_at === null || r.updated_at === undefined ? undefined : String(r.updated_at),
        tokens: {
          input: num(r.input_tokens),
          output: num(r.output_tokens),
          total: num(r.total_tokens),
          accumulatedInput: num(r.accumulated_input_tokens),
          accumulatedOutput: num(r.accumulated_output_tokens),
          accumulatedTotal: num(r.accumulated_total_tokens),
        },
        providerName: str(r.provider_name),
        model: modelOf(r.model_config_json),
        costUsd: num(r.accumulated_cost),
        scheduleId: str(r.schedule_id),
        file: this.file,
      });
    }
    return out;
  }

  /** A session's messages in the order Goose wrote them (row id: a replaced conversation is written again whole). */
  messages(sessionId: string): GooseMessageRecord[] {
    const metadata = this.messageColumns.has('metadata_json') ? 'metadata_json' : 'NULL AS metadata_json';
    const messageId = this.messageColumns.has('message_id') ? 'message_id' : 'NULL AS message_id';
    const created = this.messageColumns.has('created_timestamp') ? 'created_timestamp' : 'NULL AS created_timestamp';
    const out: GooseMessageRecord[] = [];
    for (const r of this.db
      .prepare(
        `SELECT id, ${messageId}, role, CAST(content_json AS TEXT) AS content_json, ${created}, ${metadata}
         FROM messages WHERE session_id = ? ORDER BY id`,
      )
      .all(sessionId) as Array<Record<string, unknown>>) {
      const rowId = num(r.id) ?? 0;
      out.push({
        role: r.role,
        created: r.created_timestamp,
        content: r.content_json,
        metadata: r.metadata_json,
        ref: { file: this.file, line: rowId, id: str(r.message_id) ?? `row ${rowId}` },
      });
    }
    return out;
  }

  /** Per session, the count and the highest row id of its messages: what changes when a message is added or the
   * conversation is written again (undefined when the query fails). */
  changeMarks(): Map<string, string> | undefined {
    try {
      const marks = new Map<string, string>();
      for (const r of this.db
        .prepare('SELECT session_id, COUNT(*) AS n, MAX(id) AS m FROM messages GROUP BY session_id')
        .all() as Array<Record<string, unknown>>) {
        const id = str(typeof r.session_id === 'number' ? String(r.session_id) : r.session_id);
        if (id) marks.set(id, `${num(r.n) ?? 0}:${num(r.m) ?? 0}`);
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
