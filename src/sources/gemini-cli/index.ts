import path from 'node:path';
import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import { readCheckpoints } from './checkpoints.ts';
import { readPromptLog } from '../prompt-log.ts';
import { listProjects, locateGemini, type SessionFiles } from './paths.ts';
import { ProjectDirs } from './project.ts';

export { locateGemini } from './paths.ts';

/** Gemini CLI: `~/.gemini/tmp/<project>/chats/session-*.json(l)`, subagents in `chats/<session id>/`, prompts in
 * `tmp/<project>/logs.json`, `/chat save` checkpoints `tmp/<project>/checkpoint-<tag>.json` that no recorded session
 * holds. See docs/formats/gemini-cli.md. */
export const geminiCli: Source = {
  id: 'gemini-cli',
  label: 'Gemini CLI',
  locate: locateGemini,
  read: readGemini,
};

async function* readGemini(location: SourceLocation, ctx: SourceContext): AsyncGenerator<SourceItem> {
  for (const root of location.found) {
    const projects = await listProjects(root, ctx.warn);
    const dirs = await ProjectDirs.load(root, ctx.warn);
    // Every changed session is stamped before any is read, so the collector knows how much there is to read.
    const changed: SessionFiles[] = [];
    // One item for every unchanged session of the folder: a warm collect hands on hundreds.
    const unchanged: string[] = [];
    for (const sessions of projects.values()) {
      for (const s of sessions) {
        const files = filesOf(s);
        const ids = ctx.unchanged?.(files);
        if (ids) {
          unchanged.push(...ids);
          continue;
        }
        for (const file of files) await ctx.stamp?.(file);
        changed.push(s);
      }
    }
    if (unchanged.length > 0) yield { kind: 'unchanged', sessionIds: unchanged };
    const seen = new Set<string>();
    // Loaded only when a session is to be read: a collect that finds nothing changed never compiles the reader.
    const reader = changed.length > 0 ? await import('./session.ts') : undefined;
    for (const s of changed) {
      for (const session of await reader!.readSession(s, dirs, ctx)) {
        if (seen.has(session.sessionId)) {
          ctx.warn({
            file: session.files[0]!,
            message: `session ${session.sessionId} was already read from another file; skipped`,
          });
          continue;
        }
        seen.add(session.sessionId);
        yield { kind: 'session', session };
      }
    }
    yield* readCheckpoints(root, projects, dirs, ctx);
    for (const projectDir of projects.keys()) {
      const project = await dirs.cwdOf(projectDir, {}, { models: [], toolPaths: [], contextDirs: [] });
      if (ctx.historyUnchanged?.(path.join(projectDir, 'logs.json'), project)) continue;
      for (const prompt of await readPromptLog(path.join(projectDir, 'logs.json'), 'gemini-cli', project, ctx.warn))
        yield { kind: 'prompt', prompt };
    }
  }
}

function filesOf(s: SessionFiles): string[] {
  return [...(s.main ? [s.main] : []), ...s.subagents];
}
