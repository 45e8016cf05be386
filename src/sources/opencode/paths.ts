import path from 'node:path';
import { expandHome, isDirectory, isFile, listDir } from '../../util/fs.ts';
import type { SourceContext, SourceLocation } from '../source.ts';

/** The database of the release channels (`latest`, `beta`, `prod`); other channels write `opencode-<channel>.db`. */
export const DB_NAME = 'opencode.db';
const CHANNEL_DB = /^opencode-[A-Za-z0-9._-]+\.db$/;
/** The JSON tree OpenCode kept before the SQLite database (v1.1 and earlier); still read where no database is. */
export const STORAGE_DIR = 'storage';

function asList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/** Whether a found location is a database (else it is a `storage/` tree). */
export function isDatabase(location: string): boolean {
  return /\.db$/i.test(location);
}

/**
 * OpenCode's data folders: `xdgData/opencode` from the `xdg-basedir` package, which is `$XDG_DATA_HOME` or
 * `<home>/.local/share` on every OS (macOS and Windows too: it has no per-OS defaults). `--opencode-dir` replaces
 * them (a data folder, or a database file); an explicit `--home` ignores the environment.
 */
export function candidateDataDirs(ctx: SourceContext): string[] {
  const flagged = asList(ctx.options.opencodeDir);
  if (flagged) return unique(flagged.map((p) => path.resolve(expandHome(p, ctx.home))));
  const dirs: string[] = [];
  const xdg = ctx.env.XDG_DATA_HOME;
  if (xdg && !ctx.options.explicitHome) dirs.push(path.resolve(xdg, 'opencode'));
  dirs.push(path.join(ctx.home, '.local', 'share', 'opencode'));
  return unique(dirs);
}

/** `$OPENCODE_DB` (OpenCode's `Flag.OPENCODE_DB`): an absolute path, or a name under the data folder. */
function envDatabases(ctx: SourceContext, dataDirs: string[]): string[] {
  const value = ctx.env.OPENCODE_DB;
  if (!value || value === ':memory:' || ctx.options.explicitHome || ctx.options.opencodeDir !== undefined) return [];
  if (path.isAbsolute(value)) return [value];
  return dataDirs.map((dir) => path.join(dir, value));
}

/**
 * Every database (`opencode.db`, `opencode-<channel>.db`) in each data folder, and the folder's `storage/` tree
 * when it has no database: OpenCode copies that tree into the database on its first start with one and leaves
 * it behind, so reading both would show every old session twice.
 */
export async function locateOpenCode(ctx: SourceContext): Promise<SourceLocation> {
  const dataDirs = candidateDataDirs(ctx);
  const looked: string[] = [];
  const found: string[] = [];
  for (const file of envDatabases(ctx, dataDirs)) {
    looked.push(file);
    if (await isFile(file)) found.push(file);
  }
  for (const dir of dataDirs) {
    if (isDatabase(dir)) {
      looked.push(dir);
      if (await isFile(dir)) found.push(dir);
      continue;
    }
    looked.push(dir);
    const names = (await listDir(dir))
      .filter((e) => e.isFile() && (e.name === DB_NAME || CHANNEL_DB.test(e.name)))
      .map((e) => e.name)
      .sort((a, b) => (a === DB_NAME ? -1 : b === DB_NAME ? 1 : a.localeCompare(b)));
    for (const name of names) found.push(path.join(dir, name));
    const storage = path.join(dir, STORAGE_DIR);
    if (names.length === 0 && (await isDirectory(path.join(storage, 'session')))) found.push(storage);
  }
  return { looked: unique(looked), found: unique(found) };
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
