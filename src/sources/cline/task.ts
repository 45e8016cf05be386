import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { NormalizedMessage } from '../../model/message.ts';
import type { Session } from '../../model/session.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { normalizeApiHistory } from './api-history.ts';
import { MessageBuilder } from './builder.ts';
import { API_HISTORY, LEGACY_API_HISTORY, readArray, readDocument, TASK_METADATA, UI_MESSAGES } from './documents.ts';
import { taskMetadataOf } from './metadata.ts';
import type { Origin } from './paths.ts';
import { indexUi } from './ui-index.ts';
import { normalizeUiMessages } from './ui-messages.ts';

/** `# Current Working Directory (<path>) Files` (Cline), `# Current Workspace Directory (<path>) Files` (Roo,
 * Kilo) in the environment details of the task's first request. */
const CWD = /# Current (?:Working|Workspace) Directory \((.+?)\) Files/;

function cwdOf(messages: NormalizedMessage[]): string | undefined {
  for (const m of messages) {
    for (const s of m.segments) {
      const found = s.text ? CWD.exec(s.text) : null;
      if (found) return found[1];
    }
  }
  return undefined;
}

function titleOf(messages: NormalizedMessage[]): string | undefined {
  const first = messages.find((m) => m.metadata?.kind === 'prompt')?.segments.find((s) => s.text)?.text ?? '';
  const line = first
    .split('\n')
    .find((l) => l.trim())
    ?.trim();
  if (!line) return undefined;
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}

export function versionLabel(origin: Origin, version: string | undefined, host: string | undefined): string {
  const where = origin.editor ?? host;
  return `${origin.product}${version ? ` ${version}` : ''}${where ? ` (${where})` : ''}`;
}

/** One task folder (`tasks/<id>/`) as a session; `files` are the task's files that exist (see `taskFiles`).
 * `prefix` marks the ids of a subtask read as a thread of its parent's session. */
export async function readTask(
  root: string,
  dir: string,
  files: string[],
  origin: Origin,
  warn: WarningSink,
  prefix = '',
): Promise<Session | undefined> {
  const find = (name: string) => files.find((f) => path.basename(f) === name);
  const apiFile = find(API_HISTORY) ?? find(LEGACY_API_HISTORY);
  const uiFile = find(UI_MESSAGES);
  const metaFile = find(TASK_METADATA);
  const metadata = taskMetadataOf(metaFile ? await readDocument(metaFile, warn) : undefined);
  const uiList = await readArray(uiFile, warn);
  const ui = uiList && uiFile ? indexUi(uiList, uiFile, warn) : undefined;
  const api = await readArray(apiFile, warn);
  const builder = new MessageBuilder(prefix);
  if (api && apiFile) {
    normalizeApiHistory(api, { file: apiFile, uiFile, ui, modelAt: metadata.modelAt, warn }, builder);
  } else if (ui && uiFile) {
    if (apiFile)
      warn({ file: uiFile, message: 'read from the UI messages alone, as the API history could not be read' });
    normalizeUiMessages(ui, uiFile, metadata.modelAt, builder);
  }
  const stat = await fs.stat(dir);
  const messages = builder.finish(stat.mtime.toISOString());
  if (!messages.length) {
    warn({ file: dir, message: 'no messages in this task; skipped' });
    return undefined;
  }
  const times = messages.map((m) => m.timestamp).sort();
  const models = [...new Set(messages.map((m) => m.metadata?.model).filter((m): m is string => !!m))].sort();
  const taskId = path.basename(dir);
  return {
    source: 'cline',
    sessionId: taskId,
    title: titleOf(messages) ?? taskId,
    cwd: cwdOf(messages) ?? root,
    startedAt: times[0]!,
    endedAt: times.at(-1)!,
    models,
    cliVersion: versionLabel(origin, metadata.version, metadata.host),
    files,
    messages,
    subagents: [],
    warnings: [],
  };
}
