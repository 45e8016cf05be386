import path from 'node:path';
import { byCodeUnits, expandHome, isDirectory, listEntries } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { SourceContext } from '../source.ts';

/** One Kiro CLI session on disk: `<id>.jsonl` (the conversation log) and its `<id>.json` sidecar (metadata). */
export interface KiroPair {
  id: string;
  jsonl: string;
  /** Absent when Kiro has not written it (yet), or it is not a regular file. */
  json?: string;
}

/** The files of a pair, in the order the collector records them. */
export function pairFiles(pair: KiroPair): string[] {
  return pair.json ? [pair.jsonl, pair.json] : [pair.jsonl];
}

/**
 * Kiro CLI homes (docs/formats/kiro.md): `--kiro-dir` wins; else `$KIRO_HOME` (kiro-cli's own override, which
 * replaces the whole `~/.kiro`, not joined with `.kiro`) for the real home; else `<home>/.kiro` (also what a
 * Windows home seen from WSL holds, `%USERPROFILE%\.kiro`).
 */
export function candidateKiroHomes(ctx: SourceContext): string[] {
  const flag = ctx.options.kiroDir;
  if (flag !== undefined) {
    return [...new Set((Array.isArray(flag) ? flag : [flag]).map((p) => path.resolve(expandHome(p, ctx.home))))];
  }
  const env = ctx.env.KIRO_HOME?.trim();
  if (env && !ctx.options.explicitHome) return [path.resolve(expandHome(env, ctx.home))];
  return [path.join(ctx.home, '.kiro')];
}

export function kiroSessionsDir(kiroHome: string): string {
  return path.join(kiroHome, 'sessions', 'cli');
}

/** The session folders that exist, `<kiro home>/sessions/cli`. */
export async function existingSessionDirs(homes: string[]): Promise<string[]> {
  const found: string[] = [];
  for (const home of homes) {
    const dir = kiroSessionsDir(home);
    if (await isDirectory(dir)) found.push(dir);
  }
  return found;
}

/** Every `<id>.jsonl` of a sessions folder with its `<id>.json`, sorted by id. A FIFO or device named like a
 * session is warned about and skipped; a `.json` without its `.jsonl` holds no conversation and is left out. */
export async function listKiroPairs(dir: string, warn?: WarningSink): Promise<KiroPair[]> {
  const entries = await listEntries(dir, warn);
  const files = new Map(entries.filter((e) => e.kind === 'file').map((e) => [e.name, e.path]));
  const pairs: KiroPair[] = [];
  for (const entry of entries) {
    if (!entry.name.endsWith('.jsonl')) continue;
    if (entry.kind === 'special') {
      warn?.({ file: entry.path, message: `${entry.what}, not a regular file; skipped` });
      continue;
    }
    if (entry.kind !== 'file') continue;
    const id = entry.name.slice(0, -'.jsonl'.length);
    const json = files.get(`${id}.json`);
    pairs.push({ id, jsonl: entry.path, ...(json ? { json } : {}) });
  }
  return pairs.sort((a, b) => byCodeUnits(a.id, b.id));
}
