import path from 'node:path';
import { byCodeUnits, expandHome, isDirectory, listEntries } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { SourceContext, SourceLocation } from '../source.ts';

/**
 * The Copilot CLI home: `--copilot-dir` wins; otherwise `$COPILOT_HOME`, `$XDG_CONFIG_HOME/.copilot` (older
 * builds kept their state there when it was set) and `<home>/.copilot` (Linux, macOS, and Windows'
 * `%USERPROFILE%\.copilot`, also a Windows home seen from WSL). An explicit `--home` ignores the environment.
 * Sessions are under `session-state/` of each.
 */
export function candidateHomes(ctx: SourceContext): string[] {
  const flag = ctx.options.copilotDir;
  if (flag !== undefined) {
    const list = Array.isArray(flag) ? flag : [flag];
    return unique(list.map((p) => path.resolve(expandHome(p, ctx.home))));
  }
  const homes: string[] = [];
  if (!ctx.options.explicitHome) {
    if (ctx.env.COPILOT_HOME) homes.push(path.resolve(expandHome(ctx.env.COPILOT_HOME, ctx.home)));
    if (ctx.env.XDG_CONFIG_HOME) homes.push(path.resolve(ctx.env.XDG_CONFIG_HOME, '.copilot'));
  }
  homes.push(path.join(ctx.home, '.copilot'));
  return unique(homes);
}

/** The `session-state` folders that exist (a flag may also name a `session-state` folder itself). */
export async function locateCopilot(ctx: SourceContext): Promise<SourceLocation> {
  const looked: string[] = [];
  const found: string[] = [];
  for (const home of candidateHomes(ctx)) {
    const dir = path.basename(home) === 'session-state' ? home : path.join(home, 'session-state');
    looked.push(dir);
    if (await isDirectory(dir)) found.push(dir);
  }
  return { looked: unique(looked), found: unique(found) };
}

/** One session's files: its event log and, in the folder layout, the workspace.yaml beside it. */
export interface SessionFiles {
  /** The folder name (folder layout) or file name without `.jsonl` (flat layout of older builds). */
  nameId: string;
  events: string;
  workspace?: string;
}

/** Lists `session-state/<id>/events.jsonl` (current) and `session-state/<id>.jsonl` (older builds). */
export async function listSessions(root: string, warn: WarningSink): Promise<SessionFiles[]> {
  const out: SessionFiles[] = [];
  for (const entry of await listEntries(root, warn)) {
    if (entry.kind === 'directory') {
      const inner = await listEntries(entry.path, warn);
      const events = inner.find((e) => e.name === 'events.jsonl');
      if (!events) continue; // a session that never got its first event, or another folder
      if (events.kind !== 'file') {
        warn({ file: events.path, message: `${events.what ?? 'not a regular file'}; skipped` });
        continue;
      }
      const workspace = inner.find((e) => e.name === 'workspace.yaml' && e.kind === 'file');
      out.push({ nameId: entry.name, events: events.path, ...(workspace ? { workspace: workspace.path } : {}) });
    } else if (entry.name.endsWith('.jsonl')) {
      if (entry.kind !== 'file') {
        warn({ file: entry.path, message: `${entry.what ?? 'not a regular file'}; skipped` });
        continue;
      }
      out.push({ nameId: entry.name.slice(0, -'.jsonl'.length), events: entry.path });
    }
  }
  return out.sort((a, b) => byCodeUnits(a.events, b.events));
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
