import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { DataDir } from '../../archive/data-dir.ts';
import type { SessionSummary } from '../../model/session.ts';
import { folderDigest, writeFileAtomic } from '../../util/fs.ts';
import { temporaryBeside } from '../../util/temp-files.ts';
import type { ShareSettings } from '../../privacy/share-mode.ts';
import { defaultThreads, workerFile, WorkerPool } from '../../util/worker-pool.ts';
import { PageTextCache, type PageTextRow } from '../../transcript/page-texts.ts';
import { runStamp, type SiteEntry, siteEntries, type SiteSession, siteSessions } from './site-records.ts';
import { SEARCH_SCRIPT, writeSearchScript } from './site-script.ts';
import { fileStamps } from '../../util/stamp.ts';
import { runSiteSearchTask, type SiteSearchTask, type SiteSearchTaskResult } from './site-shard.ts';
import { emptyShardState, planShards, RUN_FACTOR, shardChars, type ShardState } from './site-shards.ts';

const WORKER = workerFile(import.meta.url, 'site-search-worker', './site-shard-worker.js');

/** The directory of the site search bundle, under the site's output. */
export const SITE_SEARCH_DIR = 'pagefind';

export interface SiteSearchOptions {
  dataDir: string;
  outDir: string;
  /** Where the search box's script is bundled from (see site-script.ts). */
  packageRoot: string;
  /** What the site's pages were made from (the page build's siteKey): kept in the state, so that a later build of
   * the same site knows this index is its own without reading the archive (see siteSearchIsCurrent). */
  siteKey: string;
  timeZone: string;
  share?: ShareSettings;
  /** Index every shard again, whatever the last build left. */
  full?: boolean;
  /** The site's files (paths under `outDir`), when known before they are all written; else the pages are
   * looked for in `outDir`. */
  outputs?: ReadonlySet<string>;
  /** The archive's summaries, when the caller has read them (else they are read here). */
  summaries?: readonly SessionSummary[];
}

export interface SiteSearchResult {
  /** Pages indexed this time (in the shards written again). */
  records: number;
  /** Sessions whose texts were read from the archive here (not on the build's Markdown pass). */
  read: number;
  /** Shards the site index has, and how many of them were written this time. */
  shards: number;
  written: number;
  /** Whether its list of shards changed (a shard removed whose sessions all left the site, or one added). */
  listChanged: boolean;
  /** Bytes under `<outDir>/pagefind/`. */
  bytes: number;
}

/** Bump when what a record holds or how shards are laid out changes: every shard is written again (9: old shards
 * twice as big, and a huge session's runs flagged `alone`, which an earlier state's are not). */
const SITE_INDEX_VERSION = 9;
/** Sessions are read from the archive in tasks of about this much body. */
const READ_BATCH_BYTES = 8 * 1024 * 1024;
/** A shard of more than this many times the shard size is written in a worker even when it is the only one
 * (see `run`): a huge session's. */
const BIG_SHARD_FACTOR = 2;
/** The old generation of a worker that writes shards, in MB (as the render workers'). */
const SHARD_WORKER_HEAP_MB = 256;
/** Lists the shards for the search box, which loads the first and merges the others. */
export const SHARD_LIST = 'shards.json';

interface SavedState extends ShardState {
  version: number;
  optionsKey: string;
  /** The site this index was written for (its siteKey and the shard size) and the stamps of the files that say it
   * is whole (see stampedFiles), when written. */
  site?: string;
  files?: string;
}

/**
 * Writes the site's search index (Pagefind) for the sessions whose pages the site has: one record per bundle
 * of consecutive session pages (see page-record.ts), in shards (see site-shards.ts), re-indexing only the shards whose sessions
 * changed since the last build into this directory. The texts come from the archive, read again only for the
 * sessions that changed (page-texts.ts keeps them), not from the built HTML nor the command line's index
 * (which a first build would have to make whole). Tool input and output are left out: they are large and
 * noisy, and `agent-logbook search` covers them. A share build indexes the redacted, anonymized text only.
 */
export async function writeSiteSearch(options: SiteSearchOptions): Promise<SiteSearchResult> {
  const target = path.join(options.outDir, SITE_SEARCH_DIR);
  const stateFile = stateFileOf(options);
  const optionsKey = optionsKeyOf(options);
  const saved = options.full ? undefined : await readState(stateFile);
  const previous: ShardState = saved?.optionsKey === optionsKey ? saved : emptyShardState();

  const summaries = options.summaries ?? (await new DataDir(options.dataDir).readSummaries());
  const sessions = siteSessions(
    options.dataDir,
    summaries,
    options.outDir,
    options.share?.single === true,
    options.outputs,
  );
  const byKey = new Map(sessions.map((s) => [s.key, s]));
  const cache = new PageTextCache(options.dataDir);
  let pool: WorkerPool<SiteSearchTask, SiteSearchTaskResult> | undefined;
  let bounded = false;
  /** Runs one of `tasks` tasks: on this thread when it is the only one and small (a rebuild after one change,
   * where starting a worker would take longer than the task), else in workers, as many as there are tasks or
   * cores. A shard worker's heap is bounded: a big shard (a huge session's) makes garbage faster than this
   * thread would collect it, on top of what the render workers left. A reading worker's is not: it holds a
   * session's texts whole. */
  const retired: Promise<void>[] = [];
  const run = (task: SiteSearchTask, tasks: number, big: boolean): Promise<SiteSearchTaskResult> => {
    if (tasks === 1 && !big && !pool) return runSiteSearchTask(task);
    const size = Math.min(defaultThreads(), tasks);
    const bound = task.type === 'shard';
    // Synchronously: the tasks of a phase are started together and must share one pool. A pool left from the
    // phase before is idle by now.
    if (!pool || pool.threads < size || bounded !== bound) {
      if (pool) retired.push(pool.close());
      pool = new WorkerPool({
        file: WORKER,
        threads: size,
        resourceLimits: bound ? { maxOldGenerationSizeMb: SHARD_WORKER_HEAP_MB } : undefined,
      });
      bounded = bound;
    }
    return pool.run(task);
  };
  let records = 0;
  try {
    // The texts of the sessions that changed since they were last read, from the archive, on every core.
    const known = cache.stamps();
    const stale = sessions.filter((s) => known.get(s.key)?.stamp !== s.bodyStamp);
    const batches = readBatches(stale);
    await Promise.all(
      batches.map(async (batch) => {
        const result = await run(
          {
            type: 'read',
            dataDir: options.dataDir,
            sessions: batch.map((s) => ({ key: s.key, body: s.body, pageStarts: s.pageStarts })),
          },
          batches.length,
          false,
        );
        if (!result.ok) throw new Error(`the site search could not read the archive: ${result.error}`);
        if (result.type !== 'read') return;
        for (const { key, texts } of result.texts) cache.put(key, byKey.get(key)!.bodyStamp, texts);
      }),
    );
    cache.keepOnly(new Set(summaries.map((s) => s.id)));
    const chars = cache.stamps();

    // A huge session's subagent rows, read once for all its runs.
    let agents: { key: string; rows: PageTextRow[] } | undefined;
    const stampOfRun = (run: SiteSession) => {
      if (agents?.key !== run.key) agents = { key: run.key, rows: cache.subagentRows(run.key) };
      return runStamp(run, (from, to, hash) => cache.hashMainRows(run.key, from, to, hash), agents.rows);
    };
    const entries = siteEntries(sessions, (key) => chars.get(key)?.chars ?? 0, shardChars() * RUN_FACTOR, stampOfRun);
    const byEntry = new Map<string, SiteEntry>(entries.map((e) => [e.entry, e]));
    const plan = planShards(
      previous,
      entries.map((e) => ({ key: e.entry, stamp: e.stamp, endedAt: e.endedAt, alone: e.run })),
      (key) => byEntry.get(key)?.chars ?? 0,
      (shard) => existsSync(path.join(target, shard, 'pagefind-entry.json')),
      shardChars(),
    );
    await fs.mkdir(target, { recursive: true });
    const staging = temporaryBeside(path.join(options.outDir, `.${SITE_SEARCH_DIR}`), 'staging');
    await fs.rm(staging, { recursive: true, force: true });
    try {
      // The biggest shards first, so no worker is left with one at the end.
      const order = [...plan.dirty].sort((a, b) => plan.state.shards[b[0]]!.chars - plan.state.shards[a[0]]!.chars);
      await Promise.all(
        order.map(async ([shard, keys]) => {
          const outputPath = path.join(staging, shard);
          const result = await run(
            {
              type: 'shard',
              dataDir: options.dataDir,
              timeZone: options.timeZone,
              share: options.share,
              shard,
              sessions: keys.map((key) => byEntry.get(key)!),
              outputPath,
            },
            order.length,
            plan.state.shards[shard]!.chars > BIG_SHARD_FACTOR * shardChars(),
          );
          if (!result.ok) throw new Error(`the site search index could not be written: ${result.error}`);
          if (result.type !== 'shard') return;
          records += result.pages;
          plan.state.shards[shard]!.chars = result.chars;
          plan.state.shards[shard]!.bytes = await directoryBytes(outputPath);
          await syncDirectory(outputPath, path.join(target, shard));
        }),
      );
    } finally {
      await fs.rm(staging, { recursive: true, force: true });
    }
    // The site's index is the shards of the plan and their list; nothing else stays (an older layout either).
    const shards = Object.keys(plan.state.shards).sort();
    const keep = new Set([...shards, SHARD_LIST]);
    for (const name of await fs.readdir(target)) {
      if (!keep.has(name)) await fs.rm(path.join(target, name), { recursive: true, force: true });
    }
    const listChanged = await writeIfChanged(path.join(target, SHARD_LIST), `${JSON.stringify(shards)}\n`);
    await writeSearchScript(options.outDir, options.packageRoot);
    const saving: SavedState = {
      ...plan.state,
      version: SITE_INDEX_VERSION,
      optionsKey,
      site: siteOf(options.siteKey),
      files: fileStamps(stampedFiles(options.outDir, shards)),
    };
    await writeFileAtomic(stateFile, JSON.stringify(saving));
    const bytes = shards.reduce((n, name) => n + (plan.state.shards[name]!.bytes ?? 0), 0);
    return { records, read: stale.length, shards: shards.length, written: plan.dirty.size, listChanged, bytes };
  } finally {
    cache.close();
    await Promise.all([...retired, pool?.close()]);
  }
}

/**
 * Whether the site search in `outDir` is the one the last build wrote for the site `siteKey` (the page build's
 * key, which holds the archive index's stamp and the options) and its files are as it left them: then there is
 * nothing to index, and the archive need not be read to know it. Else `writeSiteSearch` works out what to write.
 */
export async function siteSearchIsCurrent(
  options: Pick<SiteSearchOptions, 'dataDir' | 'outDir' | 'timeZone' | 'share' | 'siteKey'>,
): Promise<boolean> {
  const saved = await readState(stateFileOf(options));
  if (saved?.optionsKey !== optionsKeyOf(options) || saved.site !== siteOf(options.siteKey)) return false;
  return saved.files === fileStamps(stampedFiles(options.outDir, Object.keys(saved.shards).sort()));
}

/** The search's state, one for a site however it is reached, like the build's record. */
function stateFileOf(options: Pick<SiteSearchOptions, 'dataDir' | 'outDir'>): string {
  return path.join(options.dataDir, 'cache', 'site-search', `${folderDigest(options.outDir)}.json`);
}

function optionsKeyOf(options: Pick<SiteSearchOptions, 'timeZone' | 'share'>): string {
  return JSON.stringify([SITE_INDEX_VERSION, options.timeZone, options.share ?? null]);
}

/** The site an index is for: its pages' key, and the shard size it was cut by. */
function siteOf(siteKey: string): string {
  return JSON.stringify([siteKey, shardChars()]);
}

/** The files that tell a search index as the last build left it: the script, the shard list and each shard's
 * entry (which a re-index also looks for, see planShards; a shard's other files are Pagefind's to name). */
function stampedFiles(outDir: string, shards: readonly string[]): string[] {
  const target = path.join(outDir, SITE_SEARCH_DIR);
  return [
    path.join(outDir, SEARCH_SCRIPT),
    path.join(target, SHARD_LIST),
    ...shards.map((shard) => path.join(target, shard, 'pagefind-entry.json')),
  ];
}

/** Sessions to read, in tasks of about READ_BATCH_BYTES of body, biggest sessions first. */
function readBatches(sessions: SiteSession[]): SiteSession[][] {
  const size = (s: SiteSession) => s.bodyBytes;
  const batches: SiteSession[][] = [];
  let batch: SiteSession[] = [];
  let bytes = 0;
  for (const session of [...sessions].sort((a, b) => size(b) - size(a))) {
    batch.push(session);
    bytes += size(session);
    if (bytes >= READ_BATCH_BYTES) {
      batches.push(batch);
      batch = [];
      bytes = 0;
    }
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

async function readState(file: string): Promise<SavedState | undefined> {
  try {
    const state = JSON.parse(await fs.readFile(file, 'utf8')) as SavedState;
    return state.version === SITE_INDEX_VERSION && typeof state.shards === 'object' ? state : undefined;
  } catch {
    return undefined;
  }
}

/** Whether it wrote. */
async function writeIfChanged(file: string, text: string): Promise<boolean> {
  const current = await fs.readFile(file, 'utf8').catch(() => undefined);
  if (current === text) return false;
  const temp = temporaryBeside(file);
  await fs.writeFile(temp, text);
  await fs.rename(temp, file);
  return true;
}

async function directoryBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

/** Makes `target` hold exactly the files of `fresh`, rewriting only files whose bytes differ. */
async function syncDirectory(fresh: string, target: string): Promise<void> {
  await fs.mkdir(target, { recursive: true });
  const wanted = new Set<string>();
  for (const entry of await fs.readdir(fresh, { withFileTypes: true })) {
    const from = path.join(fresh, entry.name);
    const to = path.join(target, entry.name);
    wanted.add(entry.name);
    if (entry.isDirectory()) {
      const existing = await fs.lstat(to).catch(() => undefined);
      if (existing && !existing.isDirectory()) await fs.rm(to, { force: true });
      await syncDirectory(from, to);
      continue;
    }
    const [next, current] = await Promise.all([fs.readFile(from), fs.readFile(to).catch(() => undefined)]);
    if (!current || !current.equals(next)) await fs.rename(from, to);
  }
  for (const name of await fs.readdir(target)) {
    if (!wanted.has(name)) await fs.rm(path.join(target, name), { recursive: true, force: true });
  }
}
