import { promises as fs } from 'node:fs';
import type { Session } from '../../model/session.ts';
import { NotRegularFileError, readFailure } from '../../util/fs.ts';
import { readJsonl } from '../../util/jsonl.ts';
import type { SourceContext } from '../source.ts';
import { CopilotNormalizer } from './normalize.ts';
import type { SessionFiles } from './paths.ts';
import { readWorkspace } from './workspace.ts';

/** Reads one session's files into a session; undefined (with a warning) when there is nothing to read. */
export async function readSession(
  s: SessionFiles,
  ctx: Pick<SourceContext, 'warn' | 'unavailable'>,
): Promise<Session | undefined> {
  const file = s.events;
  let mtime: string;
  try {
    mtime = (await fs.stat(file)).mtime.toISOString();
  } catch (error) {
    ctx.warn({ file, message: `${readFailure(error)}; skipped` });
    return undefined;
  }
  const workspace = s.workspace ? await readWorkspace(s.workspace, ctx.warn) : undefined;
  const n = new CopilotNormalizer(file, ctx.warn);
  try {
    for await (const { value, line } of readJsonl(file, { onWarning: ctx.warn })) n.add(value, line);
  } catch (error) {
    if (
      error instanceof NotRegularFileError ||
      ['EACCES', 'EPERM'].includes((error as NodeJS.ErrnoException).code ?? '')
    ) {
      ctx.unavailable?.(file);
      ctx.warn({ file, message: `${readFailure(error)}; skipped` });
      return undefined;
    }
    // A read error part-way: keep what was read, like a truncated last line.
    ctx.warn({ file, message: `could not read the whole file (${(error as Error).message}); kept what was read` });
  }
  const files = s.workspace ? [file, s.workspace] : [file];
  // A session opened and left without a prompt has no conversation: nothing to archive, and nothing to warn.
  return n.finish(s.nameId, files, workspace, mtime);
}
