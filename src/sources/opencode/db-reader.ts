import type Database from 'better-sqlite3';
import { couldNotRead, openSqliteCopy } from '../../util/sqlite-copy.ts';
import { num, str, type OcMessageRow, type OcPartRow, type OcSessionRecords, type OcSessionRow } from './schema.ts';

export class OcReadError extends Error {}

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
 * OpenCode's `opencode.db`, read-only on a private copy (`openSqliteCopy`: nothing beside the original is touched).
 * Only `session`, `message` and `part` are queried (`account`, `control_account` hold credentials).
 */
export class OpenCodeDb {
  private constructor(
    private readonly db: Database.Database,
    private readonly release: () => Promise<void>,
    readonly file: string,
    private readonly columns: Set<string>,
  ) {}

  static async open(file: string): Promise<OpenCodeDb> {
    const copy = await openSqliteCopy(file, (message) => new OcReadError(message));
    const db = copy.db;
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
      return new OpenCodeDb(db, copy.close, file, columns);
    } catch (error) {
      await copy.close();
      if (error instanceof OcReadError) throw error;
      throw new OcReadError(couldNotRead(error));
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
    await this.release();
  }
}
