import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { WarningSink } from '../../util/warnings.ts';
import { statOrUndefined } from '../../util/fs.ts';

/** A task's files are one JSON document each and cannot be streamed: past this size they are skipped with a
 * warning (the largest real tasks seen are a few MB; screenshots inline can make them tens). */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;

export const API_HISTORY = 'api_conversation_history.json';
export const UI_MESSAGES = 'ui_messages.json';
export const TASK_METADATA = 'task_metadata.json';
/** Roo Code 3.50 on: the task's `HistoryItem`, which names its parent task (Kilo Code's item has the same fields). */
export const HISTORY_ITEM = 'history_item.json';
/** Cline before v2 named the API history this. */
export const LEGACY_API_HISTORY = 'claude_messages.json';

/** One task folder's files that exist, in the order they are read. */
export async function taskFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of [API_HISTORY, LEGACY_API_HISTORY, UI_MESSAGES, TASK_METADATA, HISTORY_ITEM]) {
    const file = path.join(dir, name);
    if (statOrUndefined(file)?.isFile()) out.push(file);
  }
  // Only one API history: the current name wins over the legacy one.
  return out.some((f) => f.endsWith(API_HISTORY)) ? out.filter((f) => !f.endsWith(LEGACY_API_HISTORY)) : out;
}

/** The parsed document, or undefined after one warning naming the file (too big, unreadable, not JSON). */
export async function readDocument(file: string, warn: WarningSink): Promise<unknown> {
  try {
    const stat = await fs.stat(file);
    if (stat.size > MAX_JSON_BYTES) {
      warn({
        file,
        message: `over ${MAX_JSON_BYTES / 1024 / 1024} MiB, too big to read as one JSON document; skipped`,
      });
      return undefined;
    }
    const text = await fs.readFile(file, 'utf8');
    return JSON.parse(text) as unknown;
  } catch (error) {
    warn({ file, message: `not valid JSON (${(error as Error).message}); skipped` });
    return undefined;
  }
}

/** The document as an array, or undefined after a warning. */
export async function readArray(file: string | undefined, warn: WarningSink): Promise<unknown[] | undefined> {
  if (!file) return undefined;
  const value = await readDocument(file, warn);
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    warn({ file, message: 'not a JSON array; skipped' });
    return undefined;
  }
  return value;
}
