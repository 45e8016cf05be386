import type { CollectReport } from '../collect/collect.ts';

/** runCollect (./run-collect.ts), loading the collector only when a command runs: defining the commands, and
 * a command run with --no-collect, never load it. */
export async function runCollectLazily(
  ...args: Parameters<typeof import('./run-collect.ts').runCollect>
): Promise<CollectReport> {
  const { runCollect } = await import('./run-collect.ts');
  return runCollect(...args);
}
