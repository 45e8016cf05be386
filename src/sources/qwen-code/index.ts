import path from 'node:path';
import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import { textHash } from '../../util/text-hash.ts';
import { readPromptLog } from '../prompt-log.ts';
import { projectCwds, projectOfTempDir } from './logs.ts';
import { listSessionFiles, listTempProjects, locateQwen } from './paths.ts';

export { locateQwen } from './paths.ts';

/** Qwen Code: `~/.qwen/projects/<sanitized cwd>/chats/<session id>.jsonl`, prompts in `tmp/<sha256 of cwd>/logs.json`,
 * older sessions in `tmp/<sha256 of cwd>/chats/session-*.json`. See docs/formats/qwen-code.md. */
export const qwenCode: Source = {
  id: 'qwen-code',
  label: 'Qwen Code',
  locate: locateQwen,
  read: readQwen,
};

async function* readQwen(location: SourceLocation, ctx: SourceContext): AsyncGenerator<SourceItem> {
  const seen = new Set<string>();
  for (const root of location.found) {
    const files = await listSessionFiles(root, ctx.warn);
    // tmp/<hash>/: logs.json, and sessions in the older layout (Gemini CLI's, before Qwen Code's own recorder).
    const temp = await listTempProjects(root, ctx.warn);
    // Every changed session is stamped before any is read, so the collector knows how much there is to read.
    const changed: string[] = [];
    const unchanged: string[] = [];
    for (const file of [...files, ...temp.legacy]) {
      const ids = ctx.unchanged?.([file]);
      if (ids) {
        unchanged.push(...ids);
        continue;
      }
      await ctx.stamp?.(file);
      changed.push(file);
    }
    if (unchanged.length > 0) yield { kind: 'unchanged', sessionIds: unchanged };
    // Which project a tmp/<hash> folder stands for is found by hashing each project's folder; that answer can
    // change only with the set of project folders, so it is what an unchanged logs.json is checked against.
    let known: { cwds: string[]; complete: boolean } | undefined;
    const projects = async () => (known ??= await projectCwds(files));
    const projectsKey = textHash(
      [...new Set(files.map((f) => path.basename(path.dirname(path.dirname(f)))))].join('\n'),
    );
    // Loaded only when a session is to be read: a collect that finds nothing changed never compiles the readers.
    const jsonl = changed.some((f) => f.endsWith('.jsonl')) ? await import('./session.ts') : undefined;
    const older = changed.some((f) => f.endsWith('.json')) ? await import('./legacy.ts') : undefined;
    for (const file of changed) {
      const session = file.endsWith('.jsonl')
        ? await jsonl!.readSession(file, ctx)
        : await older!.readLegacySession(file, (await projects()).cwds, ctx);
      if (!session) continue;
      if (seen.has(session.sessionId)) {
        ctx.warn({ file, message: `session ${session.sessionId} was already read from another file; skipped` });
        continue;
      }
      seen.add(session.sessionId);
      yield { kind: 'session', session };
    }
    for (const dir of temp.dirs) {
      const file = path.join(dir, 'logs.json');
      const context = `${path.basename(dir)} ${projectsKey}`;
      if (ctx.historyUnchanged?.(file, context)) continue;
      const { cwds, complete } = await projects();
      const project = projectOfTempDir(dir, cwds);
      // Matched to no project while some project's files named no folder yet (a first record still being written):
      // noted under another context, so that the next collect reads these prompts again.
      if (project === path.basename(dir) && !complete) ctx.historyUnchanged?.(file, `${context} incomplete`);
      for (const prompt of await readPromptLog(file, 'qwen-code', project, ctx.warn)) yield { kind: 'prompt', prompt };
    }
  }
}
