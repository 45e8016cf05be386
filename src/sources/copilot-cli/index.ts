import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import { listSessions, locateCopilot, type SessionFiles } from './paths.ts';

export { locateCopilot, candidateHomes } from './paths.ts';
export { parseWorkspaceYaml } from './workspace.ts';

/**
 * GitHub Copilot CLI: `~/.copilot/session-state/<id>/events.jsonl` (one event per line) with `workspace.yaml`
 * beside it; older builds wrote `session-state/<id>.jsonl`. See docs/formats/copilot-cli.md.
 */
export const copilotCli: Source = {
  id: 'copilot-cli',
  label: 'Copilot CLI',
  locate: locateCopilot,
  read: readCopilot,
};

async function* readCopilot(location: SourceLocation, ctx: SourceContext): AsyncGenerator<SourceItem> {
  const seen = new Set<string>();
  for (const root of location.found) {
    // Every changed session is stamped before any is read, so the collector knows how much there is to read.
    const changed: SessionFiles[] = [];
    // One item for every unchanged session of the folder: a warm collect hands on hundreds.
    const unchanged: string[] = [];
    for (const s of await listSessions(root, ctx.warn)) {
      if (seen.has(s.events)) continue;
      seen.add(s.events);
      const files = s.workspace ? [s.events, s.workspace] : [s.events];
      const ids = ctx.unchanged?.(files);
      if (ids) {
        unchanged.push(...ids);
        continue;
      }
      for (const file of files) await ctx.stamp?.(file);
      changed.push(s);
    }
    if (unchanged.length > 0) yield { kind: 'unchanged', sessionIds: unchanged };
    // Loaded only when a session is to be read: a collect that finds nothing changed never compiles the reader.
    const reader = changed.length > 0 ? await import('./session.ts') : undefined;
    for (const s of changed) {
      const session = await reader!.readSession(s, ctx);
      if (session) yield { kind: 'session', session };
    }
  }
}
