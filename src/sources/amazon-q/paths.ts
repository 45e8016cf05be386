import path from 'node:path';
import { expandHome, isFile } from '../../util/fs.ts';
import type { SourceContext, SourceLocation } from '../source.ts';

/** Data folders of the two products. Kiro CLI is the late-2025 rebrand of the Q Developer CLI (FORMATS.md §3.1). */
export const PRODUCT_DIRS = ['amazon-q', 'kiro-cli'] as const;
export const DB_NAME = 'data.sqlite3';

function asList(value: string | string[] | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value : [value];
}

/** Where Q and Kiro keep `data.sqlite3`: `--amazonq-db` wins; otherwise `dirs::data_local_dir()` for Linux and
 * macOS under the home, plus `$XDG_DATA_HOME` for the real home (an explicit `--home` ignores the environment).
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

export async function locateAmazonQ(ctx: SourceContext): Promise<SourceLocation> {
  const looked = unique([...candidateDatabases(ctx), ...candidateExports(ctx)]);
  const found: string[] = [];
  for (const file of looked) if (await isFile(file)) found.push(file);
  return { looked, found };
}

/** Whether a path is a Kiro CLI data file (by its folder); the `conversations_v2` table also says so. */
export function isKiroPath(file: string): boolean {
  return file.split(/[\\/]+/).includes('kiro-cli');
}

function unique(paths: string[]): string[] {
  return [...new Set(paths)];
}
