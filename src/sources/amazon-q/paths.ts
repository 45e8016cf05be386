import path from 'node:path';
import { expandHome, isFile } from '../../util/fs.ts';
import type { SourceContext, SourceLocation } from '../source.ts';
import { candidateKiroHomes, existingSessionDirs, kiroSessionsDir } from './kiro-paths.ts';

/** Data folders of the two products. Kiro CLI is the late-2025 rebrand of the Q Developer CLI (FORMATS.md §3.1). */
export const PRODUCT_DIRS = ['amazon-q', 'kiro-cli'] as const;
export const DB_NAME = 'data.sqlite3';

function asList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/** Where Q and Kiro keep `data.sqlite3`: `--amazonq-db` wins; otherwise `dirs::data_local_dir()` for Linux,
 * macOS and Windows (`AppData/Local`, also under a Windows home seen from WSL) under the home, plus
 * `$XDG_DATA_HOME` for the real home (an explicit `--home` ignores the environment).
 * `--amazonq-json` adds `/save` exports; it does not replace the databases. */
export function candidateDatabases(ctx: SourceContext): string[] {
  const flagged = asList(ctx.options.amazonqDb);
  if (flagged) return unique(flagged.map((p) => path.resolve(expandHome(p, ctx.home))));
  const candidates: string[] = [];
  for (const product of PRODUCT_DIRS) {
    candidates.push(path.join(ctx.home, '.local', 'share', product, DB_NAME));
    candidates.push(path.join(ctx.home, 'Library', 'Application Support', product, DB_NAME));
  }
  const xdg = ctx.env.XDG_DATA_HOME;
  if (xdg && !ctx.options.explicitHome) {
    for (const product of PRODUCT_DIRS) candidates.push(path.resolve(xdg, product, DB_NAME));
  }
  return unique(candidates);
}

export function candidateExports(ctx: SourceContext): string[] {
  return unique((asList(ctx.options.amazonqJson) ?? []).map((p) => path.resolve(expandHome(p, ctx.home))));
}

/** Windows places (`dirs::data_local_dir()` = `AppData/Local`, also under a Windows home seen from WSL): listed
 * as looked at only when they exist, so a Linux or macOS report does not name them. */
function windowsDatabases(ctx: SourceContext): string[] {
  if (ctx.options.amazonqDb !== undefined) return [];
  return PRODUCT_DIRS.map((product) => path.join(ctx.home, 'AppData', 'Local', product, DB_NAME));
}

/** The databases and exports that exist, then the Kiro CLI session folders (`<kiro home>/sessions/cli`; the
 * default one named among the places looked at only when it exists, `--kiro-dir` ones always). */
export async function locateAmazonQ(ctx: SourceContext): Promise<SourceLocation> {
  const files = unique([...candidateDatabases(ctx), ...candidateExports(ctx)]);
  const found: string[] = [];
  for (const file of files) if (await isFile(file)) found.push(file);
  const windows: string[] = [];
  for (const file of windowsDatabases(ctx)) if (await isFile(file)) windows.push(file);
  const kiroDirs = await existingSessionDirs(candidateKiroHomes(ctx));
  const flaggedKiro = ctx.options.kiroDir !== undefined ? candidateKiroHomes(ctx).map(kiroSessionsDir) : [];
  return {
    looked: unique([...files, ...windows, ...flaggedKiro, ...kiroDirs]),
    found: unique([...found, ...windows, ...kiroDirs]),
  };
}

/** Which of the places found are Kiro CLI session folders (the rest are databases and exports). */
export function kiroDirsIn(found: string[], ctx: SourceContext): string[] {
  const dirs = new Set(candidateKiroHomes(ctx).map(kiroSessionsDir));
  return found.filter((f) => dirs.has(f));
}

/** Whether a path is a Kiro CLI data file (by its folder); the `conversations_v2` table also says so. */
export function isKiroPath(file: string): boolean {
  return file.split(/[\\/]+/).includes('kiro-cli');
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
