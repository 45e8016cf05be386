import path from 'node:path';
import { byCodeUnits, expandHome, isDirectory, isFile, listEntries } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { SourceContext, SourceLocation } from '../source.ts';

/** The database Goose keeps every session in (v1.10 on): `<data>/sessions/sessions.db`. */
export const DB_NAME = 'sessions.db';
export const SESSIONS_DIR = 'sessions';

function asList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/** Whether a found location is the database (else it is a `sessions/` folder of older `<name>.jsonl` files). */
export function isDatabase(location: string): boolean {
  return /\.db$/i.test(location);
}

/**
 * Goose's data folders (`Paths::data_dir()` in block/goose `crates/goose/src/config/paths.rs`): `$GOOSE_PATH_ROOT/data`
 * when that is an absolute path; else etcetera's `choose_app_strategy` for `Block`/`goose`, which is XDG on Linux and
 * macOS (`$XDG_DATA_HOME/goose`, else `<home>/.local/share/goose`) and `%APPDATA%\Block\goose\data` on Windows
 * (`<home>/AppData/Roaming/Block/goose/data`, also a Windows home seen from WSL). `<home>/Library/Application
 * Support/Block/goose` is where paths.rs says older macOS installs kept theirs. `--goose-dir` replaces them all (a
 * data folder, its `sessions/` folder, or a `sessions.db`); an explicit `--home` ignores the environment.
 */
export function candidateDataDirs(ctx: SourceContext): string[] {
  const flagged = asList(ctx.options.gooseDir);
  if (flagged) return unique(flagged.map((p) => path.resolve(expandHome(p, ctx.home))));
  const dirs: string[] = [];
  const env = ctx.options.explicitHome ? {} : ctx.env;
  const root = env.GOOSE_PATH_ROOT;
  if (root && path.isAbsolute(root)) dirs.push(path.join(root, 'data'));
  const xdg = env.XDG_DATA_HOME;
  if (xdg && path.isAbsolute(xdg)) dirs.push(path.join(xdg, 'goose'));
  dirs.push(path.join(ctx.home, '.local', 'share', 'goose'));
  dirs.push(path.join(ctx.home, 'Library', 'Application Support', 'Block', 'goose'));
  dirs.push(path.join(ctx.home, 'AppData', 'Roaming', 'Block', 'goose', 'data'));
  if (env.APPDATA) dirs.push(path.resolve(env.APPDATA, 'Block', 'goose', 'data'));
  return unique(dirs);
}

/** A data folder's `sessions/` folder; a flagged folder may also be the sessions folder itself. */
async function sessionsDirOf(dir: string, flagged: boolean): Promise<string> {
  const inner = path.join(dir, SESSIONS_DIR);
  if (!flagged || path.basename(dir) === SESSIONS_DIR) return path.basename(dir) === SESSIONS_DIR ? dir : inner;
  return (await isDirectory(inner)) ? inner : dir;
}

/**
 * `sessions/sessions.db` of each data folder, and the `sessions/` folder itself where it has no database but holds
 * `<name>.jsonl` files: Goose imports those into the database when it first makes one and leaves them behind, so
 * reading both would show every old session twice.
 */
export async function locateGoose(ctx: SourceContext): Promise<SourceLocation> {
  const looked: string[] = [];
  const found: string[] = [];
  const flagged = ctx.options.gooseDir !== undefined;
  for (const dir of candidateDataDirs(ctx)) {
    if (isDatabase(dir)) {
      looked.push(dir);
      if (await isFile(dir)) found.push(dir);
      continue;
    }
    const sessions = await sessionsDirOf(dir, flagged);
    const db = path.join(sessions, DB_NAME);
    looked.push(db);
    if (await isFile(db)) found.push(db);
    else if ((await isDirectory(sessions)) && (await jsonlFiles(sessions)).length > 0) found.push(sessions);
  }
  return { looked: unique(looked), found: unique(found) };
}

/** The `<name>.jsonl` session files of a sessions folder, in name order. */
export async function jsonlFiles(dir: string, warn?: WarningSink): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await listEntries(dir, warn)) {
    if (!entry.name.endsWith('.jsonl')) continue;
    if (entry.kind !== 'file') {
      warn?.({ file: entry.path, message: `${entry.what ?? 'not a regular file'}; skipped` });
      continue;
    }
    out.push(entry.path);
  }
  return out.sort(byCodeUnits);
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
