import { lockWaitFromEnv } from '../archive/lock.ts';
import type { CollectReport } from '../collect/collect.ts';
import { countLabel } from '../util/format.ts';
import { buildSite, type BuildSiteOptions, type SiteBuildResult } from './build-site.ts';
import type { CliIo } from './io.ts';
import type { ResolvedSources } from './options.ts';
import { siteBuildProgress, type ProgressWriter } from './progress.ts';
import { runCollect, type RunCollectOptions } from './run-collect.ts';

export interface CollectAndBuildOptions {
  /** How the collect reports what it read. */
  collect: Omit<RunCollectOptions, 'progress'>;
  /** Where the collect and the site build draw their progress (`build`; `serve --watch` rebuilds draw none). */
  progress?: ProgressWriter;
  /** The site build's options, asked for once the collect is done: a share build picks its sessions from
   * the archive just collected. */
  site: () => BuildSiteOptions | Promise<BuildSiteOptions>;
}

export interface CollectAndBuildResult {
  collected: CollectReport;
  built: SiteBuildResult;
  /** When the site build started (Date.now()), after the collect. */
  buildStarted: number;
}

/** Collects, then builds the site over the data directory: `build`, and each rebuild of `serve --watch`. */
export async function collectAndBuild(
  resolved: ResolvedSources,
  io: CliIo,
  { collect, progress, site }: CollectAndBuildOptions,
): Promise<CollectAndBuildResult> {
  const collected = await runCollect(resolved, io, { ...collect, progress });
  const options = await site();
  const buildStarted = Date.now();
  // The build takes the data directory's lock again (the collect released it): see buildSite.
  const lock = { onWait: (message: string) => io.stderr(`${message}\n`), waitMs: lockWaitFromEnv(io.env) };
  const built = await buildSite({
    ...options,
    lock,
    onWarning: (message: string) => io.stderr(`  warning: ${message}\n`),
    say: (line: string) => io.stderr(line),
    ...(progress ? { onProgress: siteBuildProgress(progress) } : {}),
  }).finally(() => progress?.clear());
  return { collected, built, buildStarted };
}

/** What a collect and build changed, counted in files (as the progress counts them) and sessions:
 * `3 files written, 0 removed, 102 unchanged; 1 session read (2.1s)`. */
export function buildSummary(collected: CollectReport, built: SiteBuildResult, ms: number): string {
  const read = collected.sources.reduce((n, s) => n + s.sessions, 0);
  const resumed = collected.sources.reduce((n, s) => n + (s.resumed ?? 0), 0);
  const sessions =
    read === 0 ? 'no session changed' : `${countLabel(read, 'session')} read${resumed ? ` (${resumed} grown)` : ''}`;
  return (
    `${countLabel(built.written, 'file')} written, ${built.removed} removed, ${built.files - built.written} unchanged; ` +
    `${sessions} (${(ms / 1000).toFixed(1)}s)`
  );
}
