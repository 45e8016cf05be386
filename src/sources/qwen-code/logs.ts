import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { HistoryPrompt } from '../../model/session.ts';
import { readFailure } from '../../util/fs.ts';
import { saneIsoFromText } from '../../util/time.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { isObject } from './schema.ts';

/** `logs.json` is one JSON array, rewritten whole; past this size it is not parsed. */
const MAX_LOG_BYTES = 64 * 1024 * 1024;

/** The SHA-256 of a project's path: the name of its folder under `tmp/` (`Storage.getProjectTempDir`). */
export function projectHash(cwd: string): string {
  return createHash('sha256').update(cwd).digest('hex');
}

/**
 * A project's `tmp/<hash>/logs.json` (`packages/core/src/core/logger.ts`, inherited from Gemini CLI): every prompt
 * typed, `[{sessionId, messageId, timestamp, type: "user", message}]`, slash commands included.
 */
export async function readPromptLog(file: string, project: string, warn: WarningSink): Promise<HistoryPrompt[]> {
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
      source: 'qwen-code',
      timestamp,
      text: entry.message,
      project,
      ...(typeof entry.sessionId === 'string' && entry.sessionId ? { sessionId: entry.sessionId } : {}),
    });
  });
  return prompts;
}

/** The project a `tmp/<hash>` folder stands for: the session folder whose SHA-256 is its name, else the name. */
export function projectOfTempDir(dir: string, cwds: Iterable<string>): string {
  const name = path.basename(dir);
  for (const cwd of cwds) if (projectHash(cwd) === name) return cwd;
  return name;
}

/** The folder each project's sessions ran in, from the first record of one of its files (only the head is read). */
export async function projectCwds(files: readonly string[]): Promise<string[]> {
  const { readJsonl } = await import('../../util/jsonl.ts');
  const byProject = new Map<string, string>();
  for (const file of files) {
    const project = path.dirname(path.dirname(file));
    if (byProject.has(project)) continue;
    try {
      for await (const { value } of readJsonl(file, { chunkSize: 64 * 1024 })) {
        if (isObject(value) && typeof value.cwd === 'string' && value.cwd) {
          byProject.set(project, value.cwd);
          break;
        }
      }
    } catch {
      // Unreadable here: the session's own read says so.
    }
  }
  return [...new Set(byProject.values())];
}
