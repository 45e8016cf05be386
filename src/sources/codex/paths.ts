import path from 'node:path';
import type { SourceContext, SourceLocation } from '../source.ts';
import { expandHome, isDirectory, isFile, listDir } from '../../util/fs.ts';

/** Where Codex keeps its data (FORMATS.md §2.1). An explicit `--codex-dir` wins; an explicit
 * `--home` means "that home", so the real home's `$CODEX_HOME` is ignored then. */
export async function locateCodex(ctx: SourceContext): Promise<SourceLocation> {
  const flag = ctx.options.codexDir;
  let candidates: string[];
  if (flag !== undefined) {
    candidates = (Array.isArray(flag) ? flag : [flag]).map((p) => path.resolve(expandHome(p, ctx.home)));
  } else if (ctx.env.CODEX_HOME && !ctx.options.explicitHome) {
    candidates = [path.resolve(expandHome(ctx.env.CODEX_HOME.trim(), ctx.home))];
  } else {
    candidates = [path.join(ctx.home, '.codex')];
  }
  const found: string[] = [];
  for (const dir of candidates) {
    if (
      (await isDirectory(path.join(dir, 'sessions'))) ||
      (await isDirectory(path.join(dir, 'archived_sessions'))) ||
      (await isFile(path.join(dir, 'history.jsonl')))
    ) {
      found.push(dir);
    }
  }
  return { looked: candidates, found };
}

export type RolloutKind = 'jsonl' | 'zst' | 'json';

export interface RolloutFile {
  file: string;
  kind: RolloutKind;
  /** The uuid in the file name, when it has one. */
  nameId?: string;
  archived: boolean;
}

const ROLLOUT = /^rollout-.*\.(jsonl|jsonl\.zst|json)$/;
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi;

/** The last uuid in a rollout file name (`rollout-2026-03-04T19-00-00-<uuid>.jsonl`). */
export function uuidFromName(file: string): string | undefined {
  const matches = path.basename(file).match(UUID);
  return matches ? matches[matches.length - 1]!.toLowerCase() : undefined;
}

/**
 * Every rollout file under `sessions/` (dated folders at any depth, and the flat legacy layout) and
 * `archived_sessions/`, sorted by path. When both `x.jsonl` and `x.jsonl.zst` exist, the plain file wins.
 */
export async function listRolloutFiles(root: string): Promise<RolloutFile[]> {
  const files: RolloutFile[] = [];
  const walk = async (dir: string, archived: boolean, depth: number): Promise<void> => {
    const entries = (await listDir(dir)).sort((a, b) => a.name.localeCompare(b.name));
    const names = new Set(entries.map((e) => e.name));
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth < 4) await walk(full, archived, depth + 1);
        continue;
      }
      const match = ROLLOUT.exec(entry.name);
      if (!match || !entry.isFile()) continue;
      const kind: RolloutKind = match[1] === 'jsonl' ? 'jsonl' : match[1] === 'json' ? 'json' : 'zst';
      if (kind === 'zst' && names.has(entry.name.slice(0, -'.zst'.length))) continue;
      files.push({ file: full, kind, nameId: uuidFromName(entry.name), archived });
    }
  };
  await walk(path.join(root, 'sessions'), false, 0);
  await walk(path.join(root, 'archived_sessions'), true, 0);
  return files;
}
