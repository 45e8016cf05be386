import { createHash } from 'node:crypto';
import path from 'node:path';
import { indexStamp } from '../../archive/stamps.ts';
import { repositoryStamp } from '../../insights/git.ts';
import { canonicalFolder } from '../../util/fs.ts';
import { compileRenderer, type CompiledRenderer } from './compile.ts';
import { allIntact, type Manifest, membersDirOf, type OutputRecord, readManifest } from './manifest.ts';
import { isMarkdownMember, outputFile, packPartBytes } from './markdown-packs.ts';

export interface SiteBuildStartOptions {
  packageRoot: string;
  dataDir: string;
  outDir: string;
  /** Render and write every page, whatever the last build left. */
  full?: boolean;
  onProgress?: (progress: { phase: 'compile' | 'pages'; done: number; total: number }) => void;
}

export interface SiteBuildReport {
  /** What the site was made from (see siteKeyOf): the site search's state keeps it, to know it indexed this site. */
  siteKey: string;
  /** Files the site has (pages, endpoints, stylesheets), their bytes, and the largest. */
  files: number;
  bytes: number;
  largest: { file: string; bytes: number };
  pages: number;
  /** Files rendered this time (the others were known unchanged without rendering). */
  rendered: number;
  /** Files whose bytes changed and were written. */
  written: number;
  /** Files of the last build this one no longer has (a session gone from the archive, a day out of range). */
  removed: number;
  /** The renderer was compiled this time (the templates changed, or it is the first build). */
  compiled: boolean;
  /** Files that could not be rendered (each told to `onWarning`), written as a page saying so. */
  failed: string[];
  /** Later session pages whose body's stamps alone changed, read to compare what they show with the last
   * build's, and how many of them were the same (not rendered). */
  compared: { read: number; same: number };
}

/** What a build into a folder starts from: the compiled renderer, the keys every page's key is made of, and the last
 * build's record. */
export interface SiteBuildStart {
  renderer: CompiledRenderer;
  compiled: boolean;
  optionsKey: string;
  /** The options' key and the archive's index stamp: the key of the pages without props. */
  indexKey: string;
  /** The site's folder by its real path, and the record named after it. */
  siteFolder: string;
  manifestFile: string;
  dirs: { outDir: string; membersDir: string };
  recorded: Manifest | undefined;
  /** The record the build starts from (none with `full`). */
  previous: Manifest | undefined;
  /** The site is as the last build into its folder left it, for the archive, the options and the repositories as
   * they are now: this build writes nothing, and this is its report. */
  unchanged: SiteBuildReport | undefined;
}

/**
 * Compiles the renderer (when its templates changed) and asks the last build's record whether anything changed
 * since: without reading the archive (its index's stamp is in the key), so a build that has nothing to do knows it
 * in a fraction of a second.
 */
export async function startSiteBuild(options: SiteBuildStartOptions): Promise<SiteBuildStart> {
  const { dataDir } = options;
  // Written as the user named it (a file system error then names the folder they know); recorded by its real path,
  // so that the same folder reached through a symbolic link is one site, whose record a later build that finds the
  // folder gone forgets (see unfinished.ts).
  const outDir = path.resolve(options.outDir);
  const siteFolder = canonicalFolder(outDir);
  const cacheDir = path.join(dataDir, 'cache');
  options.onProgress?.({ phase: 'compile', done: 0, total: 1 });
  const renderer = await compileRenderer(options.packageRoot, path.join(cacheDir, 'renderer'));
  const compiled = renderer.compiled === true;
  options.onProgress?.({ phase: 'compile', done: 1, total: 1 });

  const optionsKey = JSON.stringify([
    renderer.hash,
    ...['TZ', 'WEEK_START', 'SINCE', 'UNTIL', 'SHARE', 'SITE_URL'].map(
      (name) => process.env[`AGENT_LOGBOOK_${name}`] ?? '',
    ),
  ]);
  // Pages without props (home, stats) read the archive's index only.
  const indexKey = hash(optionsKey, indexStamp(dataDir));
  // Not folderDigest: the record's name kept its own digest (with a separator), so records made before are found.
  const manifestFile = path.join(cacheDir, 'site-build', `${hash(siteFolder).slice(0, 16)}.json`);
  const dirs = { outDir, membersDir: membersDirOf(manifestFile) };
  const recorded = await readManifest(manifestFile, siteFolder);
  const previous = options.full ? undefined : recorded;
  const start = { renderer, compiled, optionsKey, indexKey, siteFolder, manifestFile, dirs, recorded, previous };

  // Nothing in the archive or in the sessions' repositories changed since the last build into this directory,
  // nothing failed in it, and its files are as it left them.
  const siteKey = previous && siteKeyOf(indexKey, previous.cwds ?? []);
  if (
    previous !== undefined &&
    previous.siteKey === siteKey &&
    !previous.failed?.length &&
    allIntact((output) => outputFile(dirs, output), previous.outputs)
  ) {
    const outputs = siteFiles(previous.outputs);
    const unchanged: SiteBuildReport = {
      siteKey,
      files: outputs.length,
      ...weighed(outputs, previous.outputs),
      pages: outputs.filter((o) => o.endsWith('.html')).length,
      rendered: 0,
      written: 0,
      removed: 0,
      compiled,
      failed: [],
      compared: { read: 0, same: 0 },
    };
    return { ...start, unchanged };
  }
  return { ...start, unchanged: undefined };
}

/** The outputs that are files of the site (not sessions' Markdown members, which are in the data directory). */
export function siteFiles(records: Record<string, OutputRecord>): string[] {
  return Object.keys(records).filter((output) => !isMarkdownMember(output));
}

/** The bytes of `names` and the largest of them, as their records say. */
export function weighed(
  names: string[],
  records: Record<string, OutputRecord>,
): Pick<SiteBuildReport, 'bytes' | 'largest'> {
  let bytes = 0;
  let largest = { file: '', bytes: 0 };
  for (const name of names) {
    const size = records[name]!.size;
    bytes += size;
    if (size > largest.bytes) largest = { file: name, bytes: size };
  }
  return { bytes, largest };
}

/** What the whole site is made from: the options and the archive's index, the sessions' repositories, and the size
 * of the Markdown packs' parts. A build that finds it unchanged (and its files intact) writes nothing. */
export function siteKeyOf(indexKey: string, cwds: readonly string[]): string {
  return hash(indexKey, repositoriesKey(cwds), String(packPartBytes()));
}

/** The state of the repositories the sessions ran in: what the commits the pages show are read from. */
function repositoriesKey(cwds: readonly string[]): string {
  return hash(...cwds.map((cwd) => `${cwd}\0${repositoryStamp(cwd)}`));
}

export function hash(...parts: string[]): string {
  const h = createHash('sha256');
  for (const part of parts) h.update(part).update('\0');
  return h.digest('hex');
}
