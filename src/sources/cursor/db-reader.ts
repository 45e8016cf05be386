import { CursorDbError, hasTable, openReadOnly, toDbError, type OpenOptions } from './sqlite-open.ts';

export { CursorDbError, type OpenOptions };

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

/**
 * Opens Cursor's global `state.vscdb` read-only, as `openReadOnly` does (in place with its WAL while the editor
 * runs, else from a private copy). A database without `cursorDiskKV` holds no chats.
 */
export async function openCursorDb(file: string, options: OpenOptions = {}): Promise<CursorDb> {
  const opened = await openReadOnly(file, options);
  const { db } = opened;
  try {
    if (!hasTable(db, 'cursorDiskKV')) {
      await opened.close();
      return emptyDb(file, opened.mtimeMs);
    }
  } catch (error) {
    await opened.close();
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
    mtimeMs: opened.mtimeMs,
    composers: () => rows('composerData:'),
    bubbles: (composerId) => {
      const prefix = `bubbleId:${composerId}:`;
      return new Map(rows(prefix).map((r) => [r.key.slice(prefix.length), r.value]));
    },
    close: opened.close,
  };
}

function emptyDb(file: string, mtimeMs: number): CursorDb {
  return { file, mtimeMs, composers: () => [], bubbles: () => new Map(), close: async () => {} };
}
