import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Session } from '../../model/session.ts';
import { plainTitle } from '../../model/title.ts';
import { NotRegularFileError, readFailure } from '../../util/fs.ts';
import { readJsonl } from '../../util/jsonl.ts';
import type { SourceContext } from '../source.ts';
import { QwenNormalizer } from './normalize.ts';
import { isObject, type QwenRecord } from './schema.ts';

/**
 * One `chats/<session id>.jsonl` as a session, streamed a line at a time. Every record is kept in file order,
 * whatever branch of the `parentUuid` tree it is on (a rewound or resumed turn stays: its tokens were spent).
 */
export async function readSession(file: string, ctx: SourceContext): Promise<Session | undefined> {
  const n = new QwenNormalizer(file);
  let records = 0;
  try {
    for await (const { line, value } of readJsonl(file, { onWarning: ctx.warn })) {
      if (!isObject(value)) {
        ctx.warn({ file, line, message: 'not a JSON object; skipped' });
        continue;
      }
      records += 1;
      n.add(value as QwenRecord, line);
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code ?? '';
    if (error instanceof NotRegularFileError || ['EACCES', 'EPERM', 'ENOENT'].includes(code)) {
      ctx.warn({ file, message: `${readFailure(error)}; skipped` });
      ctx.unavailable?.(file);
      return undefined;
    }
    // A read error part-way: keep what was read, like a truncated last line.
    ctx.warn({ file, message: `could not read the whole file (${(error as Error).message}); kept what was read` });
  }
  if (records === 0) return undefined; // created at start-up and never written to: an empty session
  let mtime: string;
  try {
    mtime = (await fs.stat(file)).mtime.toISOString();
  } catch {
    mtime = new Date(0).toISOString();
  }
  const messages = n.finish(mtime);
  const f = n.findings;
  const sessionId = f.sessionId ?? path.basename(file, '.jsonl');
  const times = messages
    .map((m) => m.timestamp)
    .filter(Boolean)
    .sort();
  const title = f.customTitle?.trim() || plainTitle(f.firstPrompt ?? '') || `Session ${sessionId.slice(0, 8)}`;
  return {
    source: 'qwen-code',
    sessionId,
    title,
    // The records carry the folder; the project folder's name (the path with every other character a dash) is
    // only a last resort.
    cwd: f.cwd ?? path.basename(path.dirname(path.dirname(file))),
    ...(f.gitBranch ? { gitBranch: f.gitBranch } : {}),
    startedAt: times[0] ?? mtime,
    endedAt: times.at(-1) ?? mtime,
    models: [...f.models].sort(),
    ...(f.version ? { cliVersion: f.version } : {}),
    files: [file],
    messages,
    subagents: [],
    warnings: [],
  };
}
