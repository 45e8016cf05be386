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

/** The project folders under `<root>/tmp/` (named by the SHA-256 of the project's path), for `logs.json`, and the
 * sessions they hold in the older layout (`tmp/<hash>/chats/session-*.json`), sorted by path. */
export async function listTempProjects(root: string, warn: WarningSink): Promise<{ dirs: string[]; legacy: string[] }> {
  const dirs: string[] = [];
  const legacy: string[] = [];
  const entries = (await listEntries(path.join(root, 'tmp'), warn)).sort((a, b) => byCodeUnits(a.name, b.name));
  for (const entry of entries) {
    if (entry.kind !== 'directory' || entry.name === 'bin') continue;
    dirs.push(entry.path);
    const chats = (await listEntries(path.join(entry.path, 'chats'), warn)).sort((a, b) => byCodeUnits(a.name, b.name));
    for (const chat of chats) {
      if (!/^session-.*\.json$/.test(chat.name)) continue;
      if (chat.kind === 'special') warn({ file: chat.path, message: `${chat.what}, not a regular file; skipped` });
      else if (chat.kind === 'file') legacy.push(chat.path);
    }
  }
  return { dirs, legacy };
}
