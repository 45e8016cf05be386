import type Database from 'better-sqlite3';
import { couldNotRead, openSqliteCopy } from '../../util/sqlite-copy.ts';
import { modelOf, num, str, timestampMs, type GooseMessageRecord, type GooseSessionRow } from './schema.ts';

export class GooseReadError extends Error {}

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
 * Goose's `sessions.db`, read-only on a private copy (`openSqliteCopy`: nothing beside the original is touched). Only `sessions` and `messages` are queried.
 */
export class GooseDb {
  private constructor(
    private readonly db: Database.Database,
    private readonly release: () => Promise<void>,
    readonly file: string,
    private readonly sessionColumns: Set<string>,
    private readonly messageColumns: Set<string>,
  ) {}

  static async open(file: string): Promise<GooseDb> {
    const copy = await openSqliteCopy(file, (message) => new GooseReadError(message));
    const db = copy.db;
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
      return new GooseDb(db, copy.close, file, sessionColumns, messageColumns);
    } catch (error) {
      await copy.close();
      if (error instanceof GooseReadError) throw error;
      throw new GooseReadError(couldNotRead(error));
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
    await this.release();
  }
}
