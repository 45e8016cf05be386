// `--against REV`: the CLI as it was at another commit, built beside this one, so that one bench run measures
// both on the same corpus and machine and prints their ratios.
import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { bundleIsFresh } from '../../bin/bundle-fresh.js';

const run = promisify(execFile);

export interface OtherCli {
  rev: string;
  /** Its `bin/agent-logbook.js`. */
  cli: string;
  remove: () => Promise<void>;
}

/** Checks out `rev` in a temporary worktree that shares this checkout's node_modules, and bundles its CLI. */
export async function cliAt(root: string, rev: string): Promise<OtherCli> {
  const { stdout } = await run('git', ['rev-parse', '--short', `${rev}^{commit}`], { cwd: root });
  const commit = stdout.trim();
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `agent-logbook-bench-${commit}-`));
  await run('git', ['worktree', 'add', '--detach', dir, commit], { cwd: root });
  const remove = async () => {
    await run('git', ['worktree', 'remove', '--force', dir], { cwd: root }).catch(() => undefined);
    await fs.rm(dir, { recursive: true, force: true });
  };
  try {
    await fs.symlink(path.join(root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await run(process.execPath, ['scripts/bundle-cli.mjs'], { cwd: dir });
    return { rev: commit, cli: path.join(dir, 'bin', 'agent-logbook.js'), remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** Which build of the CLI `<root>/bin/agent-logbook.js` will run (the launcher's own test). */
export function cliBuild(root: string): string {
  if (process.env.AGENT_LOGBOOK_FROM_SOURCE === '1') return 'src/ through tsx (AGENT_LOGBOOK_FROM_SOURCE=1)';
  return bundleIsFresh(root) ? 'dist-cli bundle' : 'src/ through tsx (dist-cli is missing or older than src/)';
}
