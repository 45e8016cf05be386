import path from 'node:path';
import { listDir, openRegular, readFailure } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import {
  isObject,
  num,
  str,
  type OcMessageRow,
  type OcPartRow,
  type OcSessionRecords,
  type OcSessionRow,
} from './schema.ts';

/** One record file is one JSON document, read whole: past this size it is skipped with a warning. */
export const MAX_RECORD_BYTES = 16 * 1024 * 1024;

/** The files of one session in OpenCode's JSON tree (`storage/`): its own, its messages', its parts'. */
export interface StorageSession {
  row: OcSessionRow;
  messageFiles: string[];
  partFiles: Map<string, string[]>;
}

const jsonFiles = async (dir: string) =>
  (await listDir(dir))
    .filter((e) => e.isFile() && e.name.endsWith('.json'))
    .map((e) => path.join(dir, e.name))
    .sort();

const idOf = (file: string) => path.basename(file, '.json');

/** Reads a record file, or warns (naming the file) and gives undefined. */
export async function readRecordFile(file: string, warn: WarningSink): Promise<string | undefined> {
  try {
    const handle = await openRegular(file);
    try {
      const { size } = await handle.stat();
      if (size > MAX_RECORD_BYTES) {
        warn({ file, message: `over ${MAX_RECORD_BYTES / 1024 / 1024} MiB, too big for one record; skipped` });
        return undefined;
      }
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    warn({ file, message: `${readFailure(error)}; skipped` });
    return undefined;
  }
}

/** `storage/session/<projectID>/<sessionID>.json`: every session of every project (ids from the file names, as
 * OpenCode's own JSON-to-SQLite migration takes them). */
export async function listStorageSessions(storage: string, warn: WarningSink): Promise<OcSessionRow[]> {
  const rows: OcSessionRow[] = [];
  for (const project of await listDir(path.join(storage, 'session'))) {
    if (!project.isDirectory()) continue;
    for (const file of await jsonFiles(path.join(storage, 'session', project.name))) {
      const text = await readRecordFile(file, warn);
      if (text === undefined) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        warn({ file, line: 1, message: `not valid JSON (${(error as Error).message}); session skipped` });
        continue;
      }
      if (!isObject(value)) {
        warn({ file, line: 1, message: 'not a session object; skipped' });
        continue;
      }
      const time = isObject(value.time) ? value.time : {};
      rows.push({
        id: idOf(file),
        parentId: str(value.parentID),
        projectId: project.name,
        directory: str(value.directory),
        title: str(value.title),
        version: str(value.version),
        timeCreated: num(time.created),
        timeUpdated: num(time.updated),
        file,
      });
    }
  }
  return rows.sort((a, b) => (a.timeCreated ?? 0) - (b.timeCreated ?? 0) || a.id.localeCompare(b.id));
}

/** The message and part files of a session (listed, not read). */
export async function storageSessionFiles(storage: string, row: OcSessionRow): Promise<StorageSession> {
  const messageFiles = await jsonFiles(path.join(storage, 'message', row.id));
  const partFiles = new Map<string, string[]>();
  for (const file of messageFiles) partFiles.set(idOf(file), await jsonFiles(path.join(storage, 'part', idOf(file))));
  return { row, messageFiles, partFiles };
}

export function filesOf(s: StorageSession): string[] {
  return [s.row.file, ...s.messageFiles, ...[...s.partFiles.values()].flat()];
}

/** Reads a session's message and part files into the same rows the database gives. */
export async function readStorageRecords(s: StorageSession, warn: WarningSink): Promise<OcSessionRecords> {
  const messages: OcMessageRow[] = [];
  const parts = new Map<string, OcPartRow[]>();
  for (const file of s.messageFiles) {
    const data = await readRecordFile(file, warn);
    if (data === undefined) continue;
    const id = idOf(file);
    messages.push({ id, sessionId: s.row.id, timeCreated: createdOf(data), data, file });
    const list: OcPartRow[] = [];
    for (const partFile of s.partFiles.get(id) ?? []) {
      const partData = await readRecordFile(partFile, warn);
      if (partData !== undefined) list.push({ id: idOf(partFile), messageId: id, data: partData, file: partFile });
    }
    parts.set(id, list);
  }
  messages.sort((a, b) => (a.timeCreated ?? 0) - (b.timeCreated ?? 0) || a.id.localeCompare(b.id));
  return { messages, parts };
}

/** `time.created` of a message file, for ordering (a file that is not JSON sorts first and is warned about later). */
function createdOf(text: string): number | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return isObject(value) && isObject(value.time) ? num(value.time.created) : undefined;
  } catch {
    return undefined;
  }
}
