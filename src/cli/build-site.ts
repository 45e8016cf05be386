import { createHash } from 'node:crypto';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDir } from '../archive/data-dir.ts';
import { lockDataDir } from '../archive/lock.ts';
import { recoverArchive } from '../archive/recover.ts';
import { withBodyStampsHeld } from '../archive/stamps.ts';
import { siteAndBase } from '../model/site-url.ts';
import type { ShareSettings } from '../privacy/share-mode.ts';
import type { SiteBuildOptions, SiteBuildReport } from '../site/build/build.ts';
import type { SiteSearchOptions } from '../site/search/site-index.ts';
import { countLabel } from '../util/format.ts';
import { isProcessAlive } from '../util/temp-files.ts';
import { formatWarning } from '../util/warnings.ts';

export { siteAndBase } from '../model/site-url.ts';

/** The package root: where astro.config.mjs and src/site/pages live, from the sources or from the bundle. */
export const PACKAGE_ROOT = findPackageRoot(path.dirname(fileURLToPath(import.meta.url)));

function findPackageRoot(dir: string): string {
  for (let at = dir; ; at = path.dirname(at)) {
    if (existsSync(path.join(at, 'astro.config.mjs'))) return `${at}${path.sep}`;
    if (path.dirname(at) === at) throw new Error(`astro.config.mjs not found above ${dir}`);
  }
}

export interface BuildSiteOptions {
  dataDir: string;
  outDir: string;
  timeZone: string;
  weekStart?: 'monday' | 'sunday';
  since?: string;
  until?: string;
  /** Where the site will be published (`https://host/path/` or `/path/`): Astro's `site` and `base`. */
  siteUrl?: string;
  /** A share build: everything redacted and anonymized. */
  share?: ShareSettings;
  /** The render pass's timing on stderr. */
  verbose?: boolean;
  /** Where the verbose lines go (default: stderr). */
  say?: (line: string) => void;
  /** Render and write every page, whatever the last build left (`build --full`). */
  full?: boolean;
  onProgress?: SiteBuildOptions['onProgress'];
  /** Told of each page that could not be rendered (default: stderr). */
  onWarning?: SiteBuildOptions['onWarning'];
  /** Render workers kept between builds (serve --watch). */
  workers?: SiteBuildOptions['workers'];
  /** Waiting for the data directory's lock (a collect writing it): what to say, and for how long. */
  lock?: { onWait?: (message: string) => void; waitMs?: number };
  /** Told once the pages are written (or found as they are), before the build waits for the site search's index
   * (written alongside the pages, or after them): `serve --watch` reloads the open pages then. */
  onPagesWritten?: () => void;
}

/** Builds the site over a data directory, rendering only what changed since the last build into `outDir`
 * (see src/site/build/build.ts). The site reads its inputs from the environment, so the pages and the
 * content config stay free of CLI plumbing. */
export async function buildSite(options: BuildSiteOptions): Promise<SiteBuildResult> {
  // The build reads the archive from start to end: a collect (another command, the MCP server's) that wrote
  // it meanwhile would change a session between its page and its Markdown, or a file under a reader. Taken
  // after the build's own collect released it.
  const say = options.lock?.onWait ?? ((message: string) => process.stderr.write(`${message}\n`));
  const lock = await lockDataDir(options.dataDir, { onWait: say, waitMs: options.lock?.waitMs });
  try {
    // The holder before was killed mid-write: put the archive in order first, as a collect would.
    if (lock.tookOverStale) await recoverArchive(options.dataDir, true, (w) => say(`  warning: ${formatWarning(w)}`));
    return await withBodyStampsHeld(() => buildSiteLocked(options));
  } finally {
    await lock.release();
  }
}

async function buildSiteLocked(options: BuildSiteOptions): Promise<SiteBuildResult> {
  const started = Date.now();
  const say = options.say ?? ((line: string) => process.stderr.write(line));
  const { markBuildStarted } = await import('../site/build/unfinished.ts');
  const mark = await markBuildStarted(options.dataDir, options.outDir);
  if (mark.swept > 0) {
    say(`Removed ${countLabel(mark.swept, 'temporary file')} that an unfinished build left in ${options.outDir}\n`);
  }
  setSiteEnvironment(options);
  const withSearch = !options.share?.single;
  const { buildSitePages, startSiteBuild } = await import('../site/build/build.ts');
  const { siteSearchIsCurrent } = await import('../site/search/site-index.ts');
  const pages = { packageRoot: PACKAGE_ROOT, dataDir: options.dataDir, outDir: options.outDir, full: options.full };
  const start = await startSiteBuild({ ...pages, onProgress: options.onProgress });
  // Asked before the archive is read (its index alone is tens of MB of JSON in a heavy history): when the pages
  // and the search are as the last build left them for the archive as it is, there is nothing to do.
  const unchanged = start.unchanged;
  if (
    unchanged &&
    !mark.left &&
    (!withSearch || (await siteSearchIsCurrent({ ...options, siteKey: unchanged.siteKey })))
  ) {
    if (options.verbose) {
      say(
        `Nothing changed since the last build into ${options.outDir}: the archive's index, the options and the ` +
          `sessions' repositories are as it left them (${((Date.now() - started) / 1000).toFixed(1)}s)\n`,
      );
    }
    await mark.finish();
    options.onPagesWritten?.();
    return await withSearchFiles(options, withSearch, { ...unchanged, sanitized: 0, searchWritten: false });
  }

  const { prerender } = await import('../transcript/prerender.ts');
  const { readStaleTexts } = await import('../transcript/stale-texts.ts');
  const { pagesInSite } = await import('../site/search/site-records.ts');
  // Read once for the Markdown pass, the site search and the renderer loaded on this thread (the lock keeps the
  // index as it is meanwhile): a heavy history's is tens of MB of JSON. The renderer copies the summaries it
  // groups and, sharing, cleans (see shared-parse.ts); the render workers read their own.
  const summaries = await new DataDir(options.dataDir).readSharedSummaries();
  const { sanitized, segments, sessions } = await prerender(options.dataDir, undefined, summaries);
  const texts = withSearch ? readStaleTexts(options.dataDir, summaries) : { read: 0, left: [] };
  if (options.verbose) {
    say(
      `Markdown: ${sessions} new or changed sessions read, ${segments} segments, ${sanitized} newly sanitized; ` +
        `search texts of ${countLabel(texts.read, 'session')} read, ${texts.left.length} left to the pages ` +
        `(${((Date.now() - started) / 1000).toFixed(1)}s)\n`,
    );
  }
  // The site search reads the archive's texts, not the pages: it is indexed while the pages are rendered,
  // as soon as the build knows which pages the site has. It runs after every build that reads the archive and
  // re-indexes only the shards whose sessions changed (none, most of the time).
  let search: Promise<SiteSearchRun> | undefined;
  const startSearch = (siteKey: string, outputs?: ReadonlySet<string>) => {
    search = runSiteSearch({ ...options, packageRoot: PACKAGE_ROOT, siteKey, outputs, summaries });
    search.catch(() => undefined); // awaited below; not unhandled while the pages are still rendering
  };
  let report: SiteBuildReport;
  try {
    report = await buildSitePages(
      {
        ...pages,
        onProgress: options.onProgress,
        workers: options.workers,
        onWarning: options.onWarning,
        // Alongside a few pages only: with many, the render workers have the cores (and the memory).
        onOutputs: (outputs, toRender, siteKey) => {
          // Not while the pages still gather texts it reads (of a session in the site): it would read them itself.
          const gathering = texts.left.some((s) => pagesInSite(s, false, (file) => outputs.has(file)).length > 0);
          if (withSearch && toRender <= SEARCH_ALONGSIDE_PAGES && !gathering) startSearch(siteKey, outputs);
        },
      },
      start,
    );
  } catch (error) {
    await search?.catch(() => undefined);
    throw error;
  }
  if (options.verbose && report.compared.read > 0) {
    say(
      `Later pages of grown sessions: ${report.compared.read} read to compare, ${report.compared.same} the same ` +
        `(not rendered)\n`,
    );
  }
  // The pages are written: steps over the finished site go here.
  options.onPagesWritten?.();
  let searchWritten = false;
  if (withSearch) {
    if (!search) startSearch(report.siteKey);
    const { result, seconds } = await search!;
    searchWritten = result.written > 0 || result.listChanged;
    if (options.verbose) {
      say(
        `Site search: ${result.written} of ${countLabel(result.shards, 'shard')} written (${countLabel(result.records, 'page')}, ` +
          `${countLabel(result.read, 'session')} read), ${(result.bytes / 1e6).toFixed(1)} MB in ${seconds.toFixed(1)}s\n`,
      );
    }
  }
  await mark.finish();
  return await withSearchFiles(options, withSearch, { ...report, sanitized, searchWritten });
}

/** The build's report with every file of the site, the search's too: its index and its script, which are not the
 * page build's. */
async function withSearchFiles(
  options: BuildSiteOptions,
  withSearch: boolean,
  report: Omit<SiteBuildResult, 'site'>,
): Promise<SiteBuildResult> {
  const index = withSearch
    ? await filesAndBytes(options.outDir, ['pagefind', 'search.js'])
    : { files: 0, bytes: 0, largest: { file: '', bytes: 0 } };
  const largest = index.largest.bytes > report.largest.bytes ? index.largest : report.largest;
  return { ...report, site: { files: report.files + index.files, bytes: report.bytes + index.bytes, largest } };
}

/** The files of `names` under `dir` (a folder's, all under it) and their bytes. */
async function filesAndBytes(
  dir: string,
  names: string[],
): Promise<{ files: number; bytes: number; largest: { file: string; bytes: number } }> {
  let files = 0;
  let bytes = 0;
  let largest = { file: '', bytes: 0 };
  for (const name of names) {
    const top = path.join(dir, name);
    const stat = await fs.stat(top).catch(() => undefined);
    const found = stat?.isDirectory()
      ? (await fs.readdir(top, { recursive: true, withFileTypes: true }))
          .filter((entry) => entry.isFile())
          .map((entry) => path.join(entry.parentPath, entry.name))
      : stat?.isFile()
        ? [top]
        : [];
    for (const file of found) {
      const size = (await fs.stat(file)).size;
      files += 1;
      bytes += size;
      if (size > largest.bytes) largest = { file: path.relative(dir, file).split(path.sep).join('/'), bytes: size };
    }
  }
  return { files, bytes, largest };
}

/** The site search is indexed while the pages render when at most this many are to be rendered. */
const SEARCH_ALONGSIDE_PAGES = 200;

interface SiteSearchRun {
  result: Awaited<ReturnType<typeof import('../site/search/site-index.ts').writeSiteSearch>>;
  seconds: number;
}

async function runSiteSearch(
  options: BuildSiteOptions & Pick<SiteSearchOptions, 'packageRoot' | 'siteKey' | 'outputs' | 'summaries'>,
): Promise<SiteSearchRun> {
  const { writeSiteSearch } = await import('../site/search/site-index.ts');
  const started = Date.now();
  const result = await writeSiteSearch(options);
  return { result, seconds: (Date.now() - started) / 1000 };
}

export interface SiteBuildResult extends SiteBuildReport {
  sanitized: number;
  /** Whether the site search's index changed (a shard of it written, or its list of shards). */
  searchWritten: boolean;
  /** Every file of the site, the search index's too, and the largest (see hostLimitNote). */
  site: { files: number; bytes: number; largest: { file: string; bytes: number } };
}

function setSiteEnvironment(options: BuildSiteOptions): void {
  process.env.AGENT_LOGBOOK_DATA = options.dataDir;
  process.env.AGENT_LOGBOOK_TZ = options.timeZone;
  process.env.AGENT_LOGBOOK_WEEK_START = options.weekStart ?? 'monday';
  process.env.AGENT_LOGBOOK_SINCE = options.since ?? '';
  process.env.AGENT_LOGBOOK_UNTIL = options.until ?? '';
  process.env.AGENT_LOGBOOK_SHARE = options.share ? JSON.stringify(options.share) : '';
  process.env.AGENT_LOGBOOK_SITE_URL = options.siteUrl ?? '';
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  process.env.NODE_ENV = 'production';
}

/** The same site through Astro's own `build()`, every page rendered: what the incremental build must match
 * byte for byte (test/site-build/ compares the two). Not used by the CLI. */
export async function buildSiteWithAstro(options: BuildSiteOptions): Promise<void> {
  const { prerender } = await import('../transcript/prerender.ts');
  await prerender(options.dataDir);
  setSiteEnvironment(options);
  const { build } = await import('astro');
  // Vite resolves the site's dependencies from the working directory: build from the package, wherever the
  // command was run (all paths are absolute by now).
  const cwd = process.cwd();
  await withBuildLock(async () => {
    process.chdir(PACKAGE_ROOT);
    // Astro's content store lives with the data it was made from, so two builds over different data (two
    // users, parallel tests) never read each other's.
    await build({
      root: PACKAGE_ROOT,
      outDir: options.outDir,
      // A share build keeps its own store: the personal build's store holds unredacted summaries.
      cacheDir: path.join(options.dataDir, 'cache', options.share ? 'astro-share' : 'astro'),
      logLevel: options.verbose ? 'info' : 'error',
      ...siteAndBase(options.siteUrl),
    }).finally(() => process.chdir(cwd));
  });
  await removeAstroLeftovers(options.outDir);
  // Astro writes each session's Markdown beside its page; the CLI's build packs them by day.
  const { packMembersInSite } = await import('../site/build/markdown-packs.ts');
  packMembersInSite(options.outDir, await new DataDir(options.dataDir).readSummaries(), options.timeZone);
}

/**
 * Runs one Astro build at a time per installation. With an outDir outside the project, Astro builds its
 * page modules in the project's own `.astro/` and deletes them when done, so a second build running at the
 * same time (a watch loop and a manual build, parallel tests) would lose its modules half way. The lock is a
 * file in the temp directory, named after the installation, holding the builder's pid; one whose process is
 * gone is taken over.
 */
async function withBuildLock(run: () => Promise<void>): Promise<void> {
  // Not in .astro/, which Astro deletes at the end of a build.
  const lock = path.join(
    os.tmpdir(),
    `agent-logbook-build-${createHash('sha1').update(PACKAGE_ROOT).digest('hex').slice(0, 12)}.lock`,
  );
  for (;;) {
    try {
      await fs.writeFile(lock, String(process.pid), { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const holder = Number(await fs.readFile(lock, 'utf8').catch(() => ''));
      if (!isProcessAlive(holder)) await fs.rm(lock, { force: true });
      else await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  try {
    await run();
  } finally {
    await fs.rm(lock, { force: true });
  }
}

/** Astro 5 leaves content-layer scratch files in an outDir outside the project (withastro/astro#14903).
 * None of these names is a page of ours, so they are removed. */
async function removeAstroLeftovers(outDir: string): Promise<void> {
  for (const name of ['collections', 'content-assets.mjs', 'content-modules.mjs', 'data-store.json', 'settings.json']) {
    await fs.rm(path.join(outDir, name), { recursive: true, force: true });
  }
}
