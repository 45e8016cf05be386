import path from 'node:path';
import { SUBAGENT_FILE } from '../../model/session.ts';
import type { SourceContext, SourceLocation } from '../source.ts';
import { byCodeUnits, expandHome, isDirectory, isFile, listEntries, realDir } from '../../util/fs.ts';
import type { WarningSink } from '../../util/warnings.ts';

/** Where Claude Code keeps its data (FORMATS.md §1.1). An explicit `--claude-dir` wins; an explicit
 * `--home` means "that home", so the real home's `$CLAUDE_CONFIG_DIR` is ignored then. */
export async function locateClaude(ctx: SourceContext): Promise<SourceLocation> {
  const flag = ctx.options.claudeDir;
  let candidates: string[];
  if (flag !== undefined) {
    candidates = (Array.isArray(flag) ? flag : [flag]).map((p) => path.resolve(expandHome(p, ctx.home)));
  } else if (ctx.env.CLAUDE_CONFIG_DIR && !ctx.options.explicitHome) {
    candidates = ctx.env.CLAUDE_CONFIG_DIR.split(',').map((p) => path.resolve(expandHome(p.trim(), ctx.home)));
  } else {
    candidates = [path.join(ctx.home, '.claude'), path.join(ctx.home, '.config', 'claude')];
  }
  const found: string[] = [];
  for (const dir of candidates) {
    if ((await isDirectory(path.join(dir, 'projects'))) || (await isFile(path.join(dir, 'history.jsonl')))) {
      found.push(dir);
    }
  }
  return { looked: candidates, found };
}

export interface SubagentFile {
  file: string;
  agentId: string;
  metaFile?: string;
}

/** The files of one session: its main transcript (absent when Claude already deleted it) and its subagents. */
export interface SessionFiles {
  sessionId: string;
  projectDir: string;
  main?: string;
  subagents: SubagentFile[];
  /** Legacy `agent-*.jsonl` files directly in the project dir; their parent is named inside the file. */
  legacyAgents: SubagentFile[];
}

/** Lists one project directory. Legacy flat agent files are returned separately: only their
 * content says which session they belong to. Symbolic links to files and directories are followed; a FIFO,
 * socket or device named like a transcript is skipped with a warning. */
export async function listProjectDir(
  projectDir: string,
  warn?: WarningSink,
): Promise<{ sessions: SessionFiles[]; legacyAgents: SubagentFile[] }> {
  const entries = await listEntries(projectDir, warn);
  const sessions = new Map<string, SessionFiles>();
  const legacyAgents: SubagentFile[] = [];
  const get = (sessionId: string): SessionFiles => {
    let s = sessions.get(sessionId);
    if (!s) {
      s = { sessionId, projectDir, subagents: [], legacyAgents: [] };
      sessions.set(sessionId, s);
    }
    return s;
  };
  for (const entry of entries) {
    const full = entry.path;
    if (entry.name.endsWith('.jsonl') && entry.kind !== 'directory') {
      if (entry.kind === 'special') {
        warn?.({ file: full, message: `${entry.what}, not a regular file; skipped` });
        continue;
      }
      const agent = SUBAGENT_FILE.exec(entry.name);
      if (agent) legacyAgents.push({ file: full, agentId: agent[1]! });
      else get(entry.name.slice(0, -'.jsonl'.length)).main = full;
    } else if (entry.kind === 'directory') {
      const subDir = path.join(full, 'subagents');
      const subEntries = await listEntries(subDir, warn);
      const subagents: SubagentFile[] = [];
      for (const sub of subEntries) {
        const agent = SUBAGENT_FILE.exec(sub.name);
        if (!agent) continue;
        if (sub.kind === 'special') {
          warn?.({ file: sub.path, message: `${sub.what}, not a regular file; skipped` });
          continue;
        }
        if (sub.kind !== 'file') continue;
        const metaFile = path.join(subDir, `agent-${agent[1]}.meta.json`);
        subagents.push({ file: sub.path, agentId: agent[1]!, metaFile });
      }
      if (subagents.length > 0)
        get(entry.name).subagents.push(...subagents.sort((a, b) => byCodeUnits(a.file, b.file)));
    }
  }
  // By session id in code units, as byCodeUnits orders: the ids' native sort does that without calling back into
  // JavaScript for each pair (a warm collect sorts thousands).
  return {
    sessions: [...sessions.keys()].sort().map((id) => sessions.get(id)!),
    legacyAgents: legacyAgents.sort((a, b) => byCodeUnits(a.file, b.file)),
  };
}

/** The project directories under `<root>/projects`, symbolic links followed; two names for one directory
 * (a link to a sibling, or to itself) are listed once. */
export async function listProjectDirs(root: string, warn?: WarningSink): Promise<string[]> {
  const projects = path.join(root, 'projects');
  const entries = (await listEntries(projects, warn))
    .filter((e) => e.kind === 'directory')
    .sort((a, b) => byCodeUnits(a.path, b.path));
  const projectsReal = entries.length > 0 ? await realDir(projects) : undefined;
  const seen = new Set<string>();
  const dirs: string[] = [];
  // Plain directories first, so that a link to one of them is the one left out.
  for (const entry of [...entries.filter((e) => !e.link), ...entries.filter((e) => e.link)]) {
    const real = entry.link ? await realDir(entry.path) : projectsReal && path.join(projectsReal, entry.name);
    if (real && seen.has(real)) continue;
    if (real) seen.add(real);
    dirs.push(entry.path);
  }
  return dirs.sort();
}

/**
 * A best guess at the working directory a project folder stands for, for sessions whose records name none.
 * Claude names the folder after the cwd with every character that is not a letter or digit replaced by `-`, so
 * the guess cannot tell a `-` (or `.`, `_`, space) in a name from a separator: `-home-alice-work-app` →
 * `/home/alice/work/app`; a Windows cwd `C:\Users\alice\work\app` was written `C--Users-alice-work-app` →
 * `C:\Users\alice\work\app`. Undefined for a name of neither shape.
 */
export function cwdFromProjectDir(projectDir: string): string | undefined {
  const name = path.basename(projectDir);
  const windows = /^([A-Za-z])--(.*)$/.exec(name);
  if (windows) return `${windows[1]!.toUpperCase()}:\\${windows[2]!.split('-').filter(Boolean).join('\\')}`;
  if (name.startsWith('-') && name.length > 1) return `/${name.slice(1).split('-').filter(Boolean).join('/')}`;
  return undefined;
}
