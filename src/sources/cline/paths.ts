import path from 'node:path';
import { expandHome, isDirectory } from '../../util/fs.ts';
import type { SourceContext, SourceLocation } from '../source.ts';

/** The three extensions that share Cline's task folder layout, by their VS Code extension id. */
export const EXTENSIONS: Readonly<Record<string, string>> = {
  'saoudrizwan.claude-dev': 'Cline',
  'rooveterinaryinc.roo-cline': 'Roo Code',
  'kilocode.kilo-code': 'Kilo Code',
};

/** Editors (VS Code and its forks) whose `User/globalStorage` may hold the extensions' folders. */
export const EDITORS = ['Code', 'Code - Insiders', 'VSCodium', 'Cursor', 'Windsurf'] as const;

/** Remote and server installs (Remote-SSH, WSL, Codespaces) keep `data/User/globalStorage` in the home. */
const SERVER_DIRS = [
  '.vscode-server',
  '.vscode-server-insiders',
  '.vscode-remote',
  '.cursor-server',
  '.windsurf-server',
];

function asList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/** Every extension folder (one holding `tasks/`) we look at: the flag's folders, else each editor's per OS,
 * the remote servers', and the Cline CLI's `~/.cline/data` (`$CLINE_DIR/data` unless `--home` was given). */
export function candidateRoots(ctx: SourceContext): string[] {
  const flagged = asList(ctx.options.clineDir);
  if (flagged) return unique(flagged.map((p) => path.resolve(expandHome(p, ctx.home))));
  const storages: string[] = [];
  for (const editor of EDITORS) {
    storages.push(path.join(ctx.home, '.config', editor, 'User', 'globalStorage'));
    storages.push(path.join(ctx.home, 'Library', 'Application Support', editor, 'User', 'globalStorage'));
    storages.push(path.join(ctx.home, 'AppData', 'Roaming', editor, 'User', 'globalStorage'));
  }
  for (const server of SERVER_DIRS) storages.push(path.join(ctx.home, server, 'data', 'User', 'globalStorage'));
  const roots = storages.flatMap((s) => Object.keys(EXTENSIONS).map((id) => path.join(s, id)));
  const appData = ctx.env.APPDATA;
  if (appData && !ctx.options.explicitHome) {
    for (const editor of EDITORS) {
      for (const id of Object.keys(EXTENSIONS)) roots.push(path.join(appData, editor, 'User', 'globalStorage', id));
    }
  }
  roots.push(path.join(ctx.home, '.cline', 'data'));
  const clineDir = ctx.env.CLINE_DIR?.trim();
  if (clineDir && !ctx.options.explicitHome) roots.push(path.resolve(clineDir, 'data'));
  return unique(roots);
}

/** A flagged folder may be the extension's folder, its `tasks/`, a `globalStorage` holding the extensions, or
 * `~/.cline` itself: each becomes the folders that hold `tasks/`. */
async function expand(dir: string): Promise<string[]> {
  if (await isDirectory(path.join(dir, 'tasks'))) return [dir];
  if (path.basename(dir) === 'tasks' && (await isDirectory(dir))) return [path.dirname(dir)];
  const found: string[] = [];
  for (const sub of [...Object.keys(EXTENSIONS), 'data']) {
    if (await isDirectory(path.join(dir, sub, 'tasks'))) found.push(path.join(dir, sub));
  }
  return found;
}

export async function locateCline(ctx: SourceContext): Promise<SourceLocation> {
  const looked = candidateRoots(ctx);
  const found: string[] = [];
  for (const dir of looked) found.push(...(await expand(dir)));
  return { looked, found: unique(found) };
}

export interface Origin {
  /** Cline, Roo Code or Kilo Code. */
  product: string;
  /** The editor folder (`Code`, `Cursor`…), `server` for remote installs, `CLI` for `~/.cline`. */
  editor?: string;
}

/** Which extension and editor a task folder belongs to, from its path. */
export function originOf(root: string): Origin {
  const parts = root.split(/[\\/]+/);
  const id = parts.find((p) => EXTENSIONS[p.toLowerCase()] !== undefined)?.toLowerCase();
  const storage = parts.lastIndexOf('globalStorage');
  let editor: string | undefined;
  if (storage >= 2 && parts[storage - 1] === 'User') {
    const above = parts[storage - 2]!;
    editor = above === 'data' && storage >= 3 ? parts[storage - 3]!.replace(/^\./, '') : above;
  } else if (parts.includes('.cline')) editor = 'CLI';
  return { product: id ? EXTENSIONS[id]! : 'Cline', ...(editor ? { editor } : {}) };
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
