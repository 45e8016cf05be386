import { main } from '../../src/cli/main.ts';
import { REPO } from './paths.ts';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI in-process, capturing its output. */
export async function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    cwd: REPO,
    env: { ...env },
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
  });
  return { code, stdout, stderr };
}
