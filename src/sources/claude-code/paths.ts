import path from 'node:path';
import type { SourceContext, SourceLocation } from '../source.ts';
import { expandHome, isDirectory, isFile, listDir } from '../../util/fs.ts';

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

const AGENT_FILE = /^agent-(.+)\.jsonl$/;

/** Lists one project directory. Legacy flat agent files are returned separately: only their
 * content says which session they belong to. */
export async function listProjectDir(
  projectDir: string,
): Promise<{ sessions: SessionFiles[]; legacyAgents: SubagentFile[] }> {
  const entries = await listDir(projectDir);
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
    const full = path.join(projectDir, entry.name);
    if (entry.isFile() && entry.name.endsWith('.jsonl')) {
      const agent = AGENT_FILE.exec(entry.name);
      if (agent) legacyAgents.push({ file: full, agentId: agent[1]! });
      else get(entry.name.slice(0, -'.jsonl'.length)).main = full;
    } else if (entry.isDirectory()) {
      const subDir = path.join(full, 'subagents');
      const subEntries = await listDir(subDir);
      const subagents: SubagentFile[] = [];
      for (const sub of subEntries) {
        const agent = sub.isFile() ? AGENT_FILE.exec(sub.name) : null;
        if (!agent) continue;
        const metaFile = path.join(subDir, `agent-${agent[1]}.meta.json`);
        subagents.push({ file: path.join(subDir, sub.name), agentId: agent[1]!, metaFile });
      }
      if (subagents.length > 0)
        get(entry.name).subagents.push(...subagents.sort((a, b) => a.file.localeCompare(b.file)));
    }
  }
  return {
    sessions: [...sessions.values()].sort((a, b) => a.sessionId.localeCompare(b.sessionId)),
    legacyAgents: legacyAgents.sort((a, b) => a.file.localeCompare(b.file)),
  };
}

export async function listProjectDirs(root: string): Promise<string[]> {
  const projects = path.join(root, 'projects');
  return (await listDir(projects))
    .filter((e) => e.isDirectory())
    .map((e) => path.join(projects, e.name))
    .sort();
}
