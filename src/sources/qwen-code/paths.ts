import path from 'node:path';
import { byCodeUnits, expandHome, isDirectory, listEntries } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { SourceContext, SourceLocation } from '../source.ts';

/**
 * Where Qwen Code keeps its data (`packages/core/src/config/storage.ts`): `<home>/.qwen` on Linux, macOS and
 * Windows alike, or `$QWEN_HOME`; the sessions go to the runtime folder, `$QWEN_RUNTIME_DIR` when set, else that
 * same folder (a `runtimeOutputDir` setting can move it too; it is not read). `--qwen-dir` names the folder
 * itself (a folder holding `.qwen` is taken too); an explicit `--home` ignores the variables.
 */
export async function locateQwen(ctx: SourceContext): Promise<SourceLocation> {
  const flag = ctx.options.qwenDir;
  const resolve = (p: string) => path.resolve(expandHome(p.trim(), ctx.home));
  let candidates: string[];
  if (flag !== undefined) {
    candidates = (Array.isArray(flag) ? flag : [flag]).map(resolve);
  } else if (!ctx.options.explicitHome && (ctx.env.QWEN_RUNTIME_DIR?.trim() || ctx.env.QWEN_HOME?.trim())) {
    candidates = [ctx.env.QWEN_RUNTIME_DIR, ctx.env.QWEN_HOME].filter((v): v is string => !!v?.trim()).map(resolve);
    if (!ctx.env.QWEN_HOME?.trim()) candidates.push(path.join(ctx.home, '.qwen'));
  } else {
    candidates = [path.join(ctx.home, '.qwen')];
  }
  const looked: string[] = [];
  const found: string[] = [];
  for (const dir of [...new Set(candidates)]) {
    looked.push(dir);
    if (await isQwenRoot(dir)) found.push(dir);
    else if (flag !== undefined && (await isQwenRoot(path.join(dir, '.qwen')))) found.push(path.join(dir, '.qwen'));
  }
  return { looked, found: [...new Set(found)] };
}

async function isQwenRoot(dir: string): Promise<boolean> {
  return (await isDirectory(path.join(dir, 'projects'))) || (await isDirectory(path.join(dir, 'tmp')));
}

/** Every session file: `<root>/projects/<sanitized cwd>/chats/<session id>.jsonl`, sorted by path. */
export async function listSessionFiles(root: string, warn: WarningSink): Promise<string[]> {
  const files: string[] = [];
  const projects = (await listEntries(path.join(root, 'projects'), warn)).sort((a, b) => byCodeUnits(a.name, b.name));
  for (const project of projects) {
    if (project.kind !== 'directory') continue;
    const chats = (await listEntries(path.join(project.path, 'chats'), warn)).sort((a, b) =>
      byCodeUnits(a.name, b.name),
    );
    for (const entry of chats) {
      if (!entry.name.endsWith('.jsonl')) continue;
      if (entry.kind === 'special') {
        warn({ file: entry.path, message: `${entry.what}, not a regular file; skipped` });
        continue;
      }
      if (entry.kind === 'file') files.push(entry.path);
    }
  }
  return files;
}

/** The project folders under `<root>/tmp/` (named by the SHA-256 of the project's path), for `logs.json`; and one
 * warning if any holds chats in the older Gemini CLI layout (`tmp/<hash>/chats/session-*.json`), not read here. */
export async function listTempProjects(root: string, warn: WarningSink): Promise<string[]> {
  const dirs: string[] = [];
  let legacy: { first: string; count: number } | undefined;
  const entries = (await listEntries(path.join(root, 'tmp'), warn)).sort((a, b) => byCodeUnits(a.name, b.name));
  for (const entry of entries) {
    if (entry.kind !== 'directory' || entry.name === 'bin') continue;
    dirs.push(entry.path);
    for (const chat of await listEntries(path.join(entry.path, 'chats'))) {
      if (!/^session-.*\.json$/.test(chat.name)) continue;
      legacy ??= { first: chat.path, count: 0 };
      legacy.count += 1;
    }
  }
  if (legacy) {
    warn({
      file: legacy.first,
      message: `${legacy.count} session file(s) in the older layout (tmp/<hash>/chats/session-*.json, before Qwen Code recorded to projects/) are not read`,
    });
  }
  return dirs;
}
