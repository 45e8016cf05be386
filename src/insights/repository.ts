import { readFileSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { normalizeRemote, type RepositoryInfo } from '../model/project.ts';

/**
 * The git repository a folder is in, read from the disk without running git: the nearest `.git` above it
 * (a folder, or a worktree's `.git` file pointing into `<common>/worktrees/<name>`), the common directory's
 * main working tree, and `origin`'s URL from its `config`. Read-only; undefined when there is no such folder
 * (a project deleted since, another machine's path) or anything about it cannot be read.
 */
export function probeRepository(cwd: string, home = os.homedir()): RepositoryInfo | undefined {
  if (!cwd || !path.isAbsolute(cwd) || !statOrUndefined(cwd)?.isDirectory()) return undefined;
  try {
    // Not above the home folder, nor the home folder itself (a dotfiles repository is not every project's).
    for (let dir = cwd; dir !== home; dir = path.dirname(dir)) {
      const dotGit = path.join(dir, '.git');
      const stat = statOrUndefined(dotGit);
      if (stat?.isDirectory()) return describe(dir, dotGit);
      if (stat?.isFile()) {
        const gitdir = readFileSync(dotGit, 'utf8').match(/^gitdir:\s*(.+?)\s*$/m)?.[1];
        if (!gitdir) return undefined;
        const linked = path.resolve(dir, gitdir);
        const common = readCommonDir(linked);
        // The main working tree holds the common `.git`; a bare repository's worktrees group under it.
        const root = path.basename(common) === '.git' ? path.dirname(common) : common;
        return describe(root, common);
      }
      if (path.dirname(dir) === dir) return undefined;
    }
    return undefined;
  } catch {
    return undefined;
  }
}

function statOrUndefined(p: string) {
  try {
    return statSync(p);
  } catch {
    return undefined;
  }
}

function readCommonDir(linked: string): string {
  try {
    return path.resolve(linked, readFileSync(path.join(linked, 'commondir'), 'utf8').trim());
  } catch {
    const at = linked.lastIndexOf(`${path.sep}worktrees${path.sep}`);
    return at > 0 ? linked.slice(0, at) : linked;
  }
}

function describe(root: string, common: string): RepositoryInfo {
  let remote: string | undefined;
  try {
    const config = readFileSync(path.join(common, 'config'), 'utf8');
    const origin = config.split(/^\[/m).find((section) => /^remote\s+"origin"\]/.test(section));
    const url = origin?.match(/^\s*url\s*=\s*(.+?)\s*$/m)?.[1];
    if (url) remote = normalizeRemote(url);
  } catch {
    remote = undefined;
  }
  return { root, ...(remote ? { remote } : {}) };
}

/** A probe that asks the disk once per folder. */
export function cachedProbe(): (cwd: string) => RepositoryInfo | undefined {
  const seen = new Map<string, RepositoryInfo | undefined>();
  return (cwd) => {
    if (!seen.has(cwd)) seen.set(cwd, probeRepository(cwd));
    return seen.get(cwd);
  };
}
