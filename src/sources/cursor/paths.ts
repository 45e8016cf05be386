import path from 'node:path';
import { expandHome, statOrUndefined } from '../../util/fs.ts';
import type { SourceContext, SourceLocation } from '../source.ts';

const DB_TAIL = ['User', 'globalStorage', 'state.vscdb'];

function asList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/**
 * Where Cursor keeps its history. `--cursor-dir` (a `.cursor` folder or a `state.vscdb`) replaces the defaults:
 * the agent's folder `<home>/.cursor` (or `$CURSOR_CONFIG_DIR`, which the agent honours) and the editor's global
 * database under the Electron user-data folder per OS — Linux `~/.config/Cursor` (or `$XDG_CONFIG_HOME/Cursor`),
 * macOS `~/Library/Application Support/Cursor`, Windows `%APPDATA%\Cursor` (`<home>/AppData/Roaming/Cursor`, also
 * seen from WSL through `--home`). An explicit `--home` ignores the environment.
 */
export function candidates(ctx: SourceContext): string[] {
  const flagged = asList(ctx.options.cursorDir);
  if (flagged) return unique(flagged.map((p) => path.resolve(expandHome(p, ctx.home))));
  const env = ctx.options.explicitHome ? {} : ctx.env;
  const dirs = [path.join(ctx.home, '.cursor')];
  if (env.CURSOR_CONFIG_DIR) dirs.push(path.resolve(env.CURSOR_CONFIG_DIR));
  const appDirs = [
    path.join(ctx.home, '.config', 'Cursor'),
    path.join(ctx.home, 'Library', 'Application Support', 'Cursor'),
    path.join(ctx.home, 'AppData', 'Roaming', 'Cursor'),
  ];
  if (env.XDG_CONFIG_HOME) appDirs.push(path.resolve(env.XDG_CONFIG_HOME, 'Cursor'));
  if (env.APPDATA) appDirs.push(path.resolve(env.APPDATA, 'Cursor'));
  return unique([...dirs, ...appDirs.map((d) => path.join(d, ...DB_TAIL))]);
}

export async function locateCursor(ctx: SourceContext): Promise<SourceLocation> {
  const looked = candidates(ctx);
  const found: string[] = [];
  for (const p of looked) {
    const kind = await kindOfPath(p);
    if (kind === 'db') found.push(p);
    else if (kind === 'dir') {
      // A folder given by the flag may be the editor's globalStorage (or hold a state.vscdb) instead.
      const db = path.join(p, 'state.vscdb');
      if ((await kindOfPath(db)) === 'db') found.push(db);
      else found.push(p);
    }
  }
  return { looked, found: unique(found) };
}

export async function kindOfPath(p: string): Promise<'db' | 'dir' | undefined> {
  const stat = statOrUndefined(p);
  if (stat?.isDirectory()) return 'dir';
  if (stat?.isFile()) return 'db';
  return undefined;
}

/** The editor's `workspaceStorage` beside a global `state.vscdb`, where `<id>/workspace.json` names a folder. */
export function workspaceStorageOf(db: string): string {
  return path.join(path.dirname(path.dirname(db)), 'workspaceStorage');
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
