import path from 'node:path';
import type { SourceContext, SourceLocation } from '../source.ts';
import { byCodeUnits, expandHome, isDirectory, isFile, listEntries, realDir } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';

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
 * Symbolic links to files and folders are followed, each real folder walked once (so a link loop ends);
 * a FIFO, socket or device named like a rollout, and a folder that cannot be read, are warned about.
 */
export async function listRolloutFiles(root: string, warn?: WarningSink): Promise<RolloutFile[]> {
  const files: RolloutFile[] = [];
  const walked = new Set<string>();
  const walk = async (dir: string, real: string | undefined, archived: boolean, depth: number): Promise<void> => {
    if (real) {
      if (walked.has(real)) return;
      walked.add(real);
    }
    const entries = (await listEntries(dir, warn)).sort((a, b) => byCodeUnits(a.name, b.name));
    const names = new Set(entries.map((e) => e.name));
    for (const entry of entries) {
      if (entry.kind === 'directory') {
        if (depth >= 4) continue;
        // Only a link needs resolving: a plain folder's real path is its parent's plus its name.
        const childReal = entry.link ? await realDir(entry.path) : real && path.join(real, entry.name);
        await walk(entry.path, childReal, archived, depth + 1);
        continue;
      }
      const match = ROLLOUT.exec(entry.name);
      if (!match) continue;
      if (entry.kind === 'special') {
        warn?.({ file: entry.path, message: `${entry.what}, not a regular file; skipped` });
        continue;
      }
      const kind: RolloutKind = match[1] === 'jsonl' ? 'jsonl' : match[1] === 'json' ? 'json' : 'zst';
      if (kind === 'zst' && names.has(entry.name.slice(0, -'.zst'.length))) continue;
      files.push({ file: entry.path, kind, nameId: uuidFromName(entry.name), archived });
    }
  };
  for (const [folder, archived] of [
    ['sessions', false],
    ['archived_sessions', true],
  ] as const) {
    const dir = path.join(root, folder);
    await walk(dir, await realDir(dir), archived, 0);
  }
  return files;
}
