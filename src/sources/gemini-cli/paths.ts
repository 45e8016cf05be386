import path from 'node:path';
import { byCodeUnits, expandHome, isDirectory, listEntries } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';
import type { SourceContext, SourceLocation } from '../source.ts';

/**
 * Where Gemini CLI keeps its data: `<home>/.gemini` on Linux, macOS and Windows alike (`Storage.getGlobalGeminiDir`),
 * where the home is `$GEMINI_CLI_HOME` when set (`packages/core/src/utils/paths.ts` `homedir()`). `--gemini-dir`
 * names the `.gemini` folder itself (a folder holding `.gemini` is taken too); an explicit `--home` ignores
 * `$GEMINI_CLI_HOME`.
 */
export async function locateGemini(ctx: SourceContext): Promise<SourceLocation> {
  const flag = ctx.options.geminiDir;
  let candidates: string[];
  if (flag !== undefined) {
    candidates = (Array.isArray(flag) ? flag : [flag]).map((p) => path.resolve(expandHome(p, ctx.home)));
  } else if (ctx.env.GEMINI_CLI_HOME?.trim() && !ctx.options.explicitHome) {
    candidates = [path.join(path.resolve(expandHome(ctx.env.GEMINI_CLI_HOME.trim(), ctx.home)), '.gemini')];
  } else {
    candidates = [path.join(ctx.home, '.gemini')];
  }
  const looked: string[] = [];
  const found: string[] = [];
  for (const dir of [...new Set(candidates)]) {
    looked.push(dir);
    if (await isDirectory(path.join(dir, 'tmp'))) found.push(dir);
    else if (flag !== undefined && (await isDirectory(path.join(dir, '.gemini', 'tmp')))) {
      found.push(path.join(dir, '.gemini'));
    }
  }
  return { looked, found: [...new Set(found)] };
}

/** One session's files: its main file, and the subagents' files in `chats/<parent session id>/`. */
export interface SessionFiles {
  /** The project folder under `tmp/` (a short name, or the SHA-256 of the project path in older versions). */
  projectDir: string;
  main?: string;
  /** The folder name subagent files sit in: the parent's full session id. */
  parentId?: string;
  subagents: string[];
}

const SESSION_FILE = /^session-.*\.jsonl?$/;
/** `/chat save <tag>`'s file in the project folder; the tag URI-encoded (`encodeTagName` in `core/logger.ts`). */
export const CHECKPOINT_FILE = /^checkpoint-(.+)\.json$/;

/** Every project folder under `<root>/tmp/` with its chat files (`chats/`), sorted by path. A `session-x.json` that was
 * resumed is carried on in `session-x.jsonl` (the CLI copies it over and leaves the old one): the `.jsonl` wins. */
export async function listProjects(root: string, warn: WarningSink): Promise<Map<string, SessionFiles[]>> {
  const projects = new Map<string, SessionFiles[]>();
  const tmp = path.join(root, 'tmp');
  for (const project of (await listEntries(tmp, warn)).sort((a, b) => byCodeUnits(a.name, b.name))) {
    if (project.kind !== 'directory' || project.name === 'bin') continue;
    const chats = path.join(project.path, 'chats');
    const entries = (await listEntries(chats, warn)).sort((a, b) => byCodeUnits(a.name, b.name));
    const names = new Set(entries.map((e) => e.name));
    const sessions: SessionFiles[] = [];
    const byParent = new Map<string, string[]>();
    for (const entry of entries) {
      if (entry.kind === 'directory') {
        const files = (await listEntries(entry.path, warn))
          .filter((e) => e.kind === 'file' && /\.jsonl?$/.test(e.name))
          .map((e) => e.path)
          .sort(byCodeUnits);
        if (files.length) byParent.set(entry.name, files);
        continue;
      }
      if (!SESSION_FILE.test(entry.name)) continue;
      if (entry.kind === 'special') {
        warn({ file: entry.path, message: `${entry.what}, not a regular file; skipped` });
        continue;
      }
      if (entry.name.endsWith('.json') && names.has(`${entry.name}l`)) continue;
      sessions.push({ projectDir: project.path, main: entry.path, subagents: [] });
    }
    // A main file is named `session-<time>-<first 8 characters of its id>`; its subagents sit in `<full id>/`.
    for (const [parentId, files] of byParent) {
      const short = parentId.slice(0, 8);
      const owner = sessions.find(
        (s) =>
          s.main &&
          path
            .basename(s.main)
            .replace(/\.jsonl?$/, '')
            .endsWith(`-${short}`),
      );
      if (owner && !owner.parentId) Object.assign(owner, { parentId, subagents: files });
      else sessions.push({ projectDir: project.path, parentId, subagents: files });
    }
    projects.set(project.path, sessions);
  }
  return projects;
}
