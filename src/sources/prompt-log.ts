import { promises as fs } from 'node:fs';
import { isObject } from '../model/json-value.ts';
import type { SourceId } from '../model/message.ts';
import type { HistoryPrompt } from '../model/session.ts';
import { readFailure } from '../util/fs.ts';
import { saneIsoFromText } from '../util/time.ts';
import type { WarningSink } from '../util/warnings.ts';

/** `logs.json` is one JSON array, rewritten whole; past this size it is not parsed. */
const MAX_LOG_BYTES = 64 * 1024 * 1024;

/**
 * A project's `logs.json`, written by Gemini CLI and by Qwen Code, its fork (`packages/core/src/core/logger.ts` in
 * both): every prompt typed, `[{sessionId, messageId, timestamp, type: "user", message}]`, including slash
 * commands and prompts of sessions since deleted.
 */
export async function readPromptLog(
  file: string,
  source: SourceId,
  project: string,
  warn: WarningSink,
): Promise<HistoryPrompt[]> {
  let text: string;
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) return [];
    if (stat.size > MAX_LOG_BYTES) {
      warn({ file, message: `prompt log of ${stat.size} bytes is too large to parse; skipped` });
      return [];
    }
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') warn({ file, message: `${readFailure(error)}; skipped` });
    return [];
  }
  let entries: unknown;
  try {
    entries = JSON.parse(text);
  } catch (error) {
    warn({ file, message: `not valid JSON (${(error as Error).message}); skipped` });
    return [];
  }
  if (!Array.isArray(entries)) {
    warn({ file, message: 'not a JSON array of log entries; skipped' });
    return [];
  }
  const prompts: HistoryPrompt[] = [];
  entries.forEach((entry, i) => {
    const timestamp = isObject(entry) ? saneIsoFromText(entry.timestamp) : undefined;
    if (!isObject(entry) || typeof entry.message !== 'string' || !timestamp) {
      warn({ file, line: i + 1, message: `log entry ${i} without message or timestamp; skipped` });
      return;
    }
    if (entry.type !== undefined && entry.type !== 'user') return;
    prompts.push({
      source,
      timestamp,
      text: entry.message,
      project,
      ...(typeof entry.sessionId === 'string' && entry.sessionId ? { sessionId: entry.sessionId } : {}),
    });
  });
  return prompts;
}
