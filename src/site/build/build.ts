import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { SessionSummary } from '../../model/session.ts';
import { siteAndBase } from '../../model/site-url.ts';
import { defaultThreads, workerFile, WorkerPool } from '../../util/worker-pool.ts';
import {
  laterSessionPage,
  listRoutes,
  loadBundle,
  PageRenderer,
  readDigest,
  type RouteToRender,
  writeIfChanged,
} from './render-page.ts';
import { sessionOf, summariesIn } from './route-sessions.ts';
import type { RenderTask, RenderTaskResult, RenderWorkerData } from './render-worker.ts';
import { bodyStamp } from '../../archive/stamps.ts';
import { intact, type OutputRecord, writeManifest } from './manifest.ts';
import {
  isMarkdownMember,
  outputFile,
  packMembers,
  removeUnpackedMarkdown,
  writeMarkdownPacks,
} from './markdown-packs.ts';
import { siteOptions } from '../site-options.ts';
import {
  hash,
  type SiteBuildReport,
  type SiteBuildStart,
  type SiteBuildStartOptions,
  siteFiles,
  siteKeyOf,
  startSiteBuild,
  weighed,
} from './start.ts';

export { type SiteBuildReport, type SiteBuildStart, startSiteBuild } from './start.ts';
import { commitsDuring, commitsOfSessions, type Commit, gitOutcomes } from '../../insights/git.ts';

const WORKER = workerFile(import.meta.url, 'site-render-worker', './render-worker.js');

/** Each render worker's V8 heap limit: a page of a long session is bounded (see PagedBody), so this is plenty,
 * and two workers plus this thread stay under 1 GiB. */
const WORKER_HEAP_MB = 256;
/** …and its young generation: a page is many short-lived strings, and with V8's default for so small a heap
 * they outlive too many scavenges and are collected by full collections instead. */
const WORKER_YOUNG_MB = 32;
/** Index pages (days, weeks, projects, …) go to workers this many at a time. */
const INDEX_BATCH = 16;
/** Up to this many pages to render are rendered on this thread, without starting workers. */
const IN_PROCESS_ROUTES = 80;

export interface SiteBuildOptions extends SiteBuildStartOptions {
  threads?: number;
  /** Told the site's files (paths under `outDir`) and how many of them are to be rendered, once that is
   * known and before they are rendered. */
  onOutputs?: (outputs: ReadonlySet<string>, toRender: number, siteKey: string) => void;
  /** Keeps the render workers between builds (`serve --watch`), instead of starting them for each. */
  workers?: RenderWorkers;
  /** Told of each page that could not be rendered (the build goes on; the page written says so). Default:
   * a line on stderr. */
  onWarning?: (message: string) => void;
}

/**
 * Render workers kept between builds of one process: starting a worker and loading the renderer in it costs
 * about a second, most of a rebuild after one change. Replaced when the renderer or the output changes.
 */
export class RenderWorkers {
  private current: { key: string; pool: WorkerPool<RenderTask, RenderTaskResult> } | undefined;

  pool(data: RenderWorkerData, threads: number): WorkerPool<RenderTask, RenderTaskResult> {
    const key = JSON.stringify([data, threads]);
    if (this.current?.key !== key) {
      void this.current?.pool.close();
      this.current = { key, pool: startPool(data, threads) };
    }
    return this.current.pool;
  }

  async close(): Promise<void> {
    await this.current?.pool.close();
    this.current = undefined;
  }
}

function startPool(data: RenderWorkerData, threads: number): WorkerPool<RenderTask, RenderTaskResult> {
  return new WorkerPool<RenderTask, RenderTaskResult>({
    file: WORKER,
    threads,
    workerData: data,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
  });
}

/**
 * Builds the site into `outDir` with the compiled renderer, rendering only what changed since the last
 * build into the same directory. Every output file has a key: a page with props (a day, a week, a project,
 * a session's page) is a hash of the renderer, the build options and its props, plus its body's stamps for a
 * session page; pages must therefore depend only on their props and the options. A session's page after the
 * first (whose props leave out what changes as the session grows) has a second key, with the digest of what it
 * read of the body in place of the stamps: checked when only the first changed, so a long session that grows
 * makes again its first and last pages, not all of them. A page without props (the
 * home page, stats, the Markdown reports) is a hash of the renderer, the options and the archive's index files. A file is rendered again when its key changed or the file is not as the last build left it, and
 * written only when its bytes differ (unchanged files keep their mtime). Files the last build wrote that
 * this one does not make are removed; nothing else in `outDir` is touched.
 */
export async function buildSitePages(options: SiteBuildOptions, start?: SiteBuildStart): Promise<SiteBuildReport> {
  const { renderer, compiled, optionsKey, indexKey, siteFolder, manifestFile, dirs, recorded, previous, unchanged } =
    start ?? (await startSiteBuild(options));
  if (unchanged) return unchanged;
  const { dataDir } = options;
  const { outDir } = dirs;
  const fileOf = (output: string) => outputFile(dirs, output);

  const bundle = await loadBundle(renderer.entry);
  const routes = await listRoutes(bundle.pageModules);
  // Commits are an input of the pages that show them (a session's, a day's, a week's, a project's): the
  // sessions' repositories are read once, and each such page's key holds the commits it may show.
  const sessionsOf = new Map<RouteToRender, SessionSummary[]>();
  const walked = new Map<object, SessionSummary[]>();
  for (const route of routes) sessionsOf.set(route, summariesIn(route.props, walked));
  const everySession = [...new Set([...sessionsOf.values()].flat())];
  const cwds = [...new Set(everySession.map((s) => s.cwd))].sort();
  const siteKey = siteKeyOf(indexKey, cwds);
  const build = randomUUID();
  const outcomes = gitOutcomes(everySession);
  const outputs: Record<string, OutputRecord> = {};
  // The base is read at render time (like href() does): the bundle is compiled at the root.
  const siteUrl = process.env.AGENT_LOGBOOK_SITE_URL;
  const base = siteUrl ? siteAndBase(siteUrl).base : '/';
  const styleHrefs = renderer.styles.map((style) => `${base.replace(/\/$/, '')}/${style}`);

  const stale: RouteToRender[][] = [];
  const indexRoutes: RouteToRender[] = [];
  const sessionTasks = new Map<string, RouteToRender[]>();
  const bodyStamps = new Map<string, string>();
  // The objects routes' props hold (a session's summary, a day's index) are the same objects in many routes
  // (a session's pages and its days; a day's page, its Markdown and two weeks) and most of the props: each is
  // written and hashed once, and stands in the keys as its digest, in the objects that hold it too.
  const digests = new Map<object, string>();
  for (const route of routes) {
    for (const value of Object.values(route.props)) {
      for (const item of Array.isArray(value) ? value : [value]) {
        if (typeof item === 'object' && item !== null) digests.set(item, '');
      }
    }
  }
  const json = (root: unknown): string =>
    JSON.stringify(root, (_key, value: unknown) =>
      typeof value === 'object' && value !== null && value !== root && digests.has(value) ? digestOf(value) : value,
    );
  const digestOf = (value: object): string => {
    let digest = digests.get(value);
    if (!digest) digests.set(value, (digest = hash(json(value))));
    return digest;
  };
  // A later session page's key without its body's stamps, to which what it read of the body is added.
  const inputsBase = new Map<string, string>();
  const compared = { read: 0, same: 0 };
  for (const route of routes) {
    const summary = sessionOf(route);
    const later = laterSessionPage(route);
    let key = indexKey;
    if (summary || later) {
      const body = (summary ?? later!.head).body;
      let stamp = bodyStamps.get(body);
      if (stamp === undefined) bodyStamps.set(body, (stamp = bodyStamp(dataDir, body) ?? '-'));
      // Only the first page (and the Markdown) shows the commits made while the session ran.
      const commits = summary ? commitsKey(outcomes.repoOf.get(summary.cwd), commitsDuring(outcomes, summary)) : '';
      const base = hash(optionsKey, route.output, json(route.props), commits);
      key = hash(base, stamp);
      if (later) inputsBase.set(route.output, base);
    } else if (Object.keys(route.props).length > 0) {
      // A page made from its props (a day, a week, a project) changes only when they, or its commits, do.
      const sessions = sessionsOf.get(route) ?? [];
      const repos = [...new Set(sessions.map((s) => outcomes.repoOf.get(s.cwd) ?? ''))].sort().join('\0');
      key = hash(optionsKey, route.output, json(route.props), commitsKey(repos, commitsOfSessions(outcomes, sessions)));
    }
    const known = previous?.outputs[route.output];
    outputs[route.output] = { key, size: known?.size ?? 0, mtimeMs: known?.mtimeMs ?? 0 };
    if (known?.key === key && intact(fileOf(route.output), known)) {
      if (known.inputs) Object.assign(outputs[route.output]!, { inputs: known.inputs, base: known.base });
      continue;
    }
    // Only the body's stamps changed: the page is the same if what it reads of the body is. (After anything else
    // changed, an upgrade or another --tz, reading every later page to compare would only cost time and memory.)
    if (later && known?.inputs && known.base === inputsBase.get(route.output) && intact(fileOf(route.output), known)) {
      // A body that cannot be read now is not the same: the page is rendered, and says so.
      const digest = readDigest(bundle, route);
      const inputs = digest && hash(inputsBase.get(route.output)!, digest);
      compared.read += 1;
      if (inputs === known.inputs) {
        compared.same += 1;
        Object.assign(outputs[route.output]!, { inputs, base: known.base });
        continue;
      }
    }
    const id = summary?.id ?? later?.head.id;
    if (id) {
      const list = sessionTasks.get(id) ?? [];
      list.push(route);
      sessionTasks.set(id, list);
    } else {
      indexRoutes.push(route);
    }
  }
  // The pages read to compare their digests are not needed any more (a page rendered here opens its session again).
  bundle.closeSessionPages();
  stale.push(...indexBatches(indexRoutes));
  // The index pages first, then the longest sessions first, so no worker is left with one at the end. (The
  // longest session before the index pages, on a worker of its own, took 10-20 % longer in a first build.) A
  // session's pages before its Markdown, which then finds them read (see loadSessionPage).
  const pagesFirst = (route: RouteToRender) => (typeof route.props.page === 'number' ? route.props.page : Infinity);
  for (const task of sessionTasks.values()) task.sort((a, b) => pagesFirst(a) - pagesFirst(b));
  stale.push(...[...sessionTasks.values()].sort((a, b) => b.length - a.length));

  let written = 0;
  let rendered = 0;
  const failed: string[] = [];
  const warn = options.onWarning ?? ((message: string) => process.stderr.write(`agent-logbook: warning: ${message}\n`));
  const fail = (output: string, error: string) => {
    failed.push(output);
    // Rendered again by the next build, which tells it again.
    outputs[output] = { ...outputs[output]!, key: '' };
    const route = routes.find((r) => r.output === output);
    const id = route && (sessionOf(route)?.id ?? laterSessionPage(route)?.head.id);
    const what = id ? `the page of session ${id}` : `the page`;
    warn(`${output}: ${what} could not be rendered (${error}); it says so instead`);
  };
  const recordInputs = (output: string, digest: string | undefined) => {
    const base = inputsBase.get(output);
    const record = outputs[output]!;
    if (base && digest) Object.assign(record, { inputs: hash(base, digest), base });
    else {
      delete record.inputs;
      delete record.base;
    }
  };
  const total = stale.reduce((n, task) => n + task.length, 0);
  options.onOutputs?.(new Set(siteFiles(outputs)), total, siteKey);
  options.onProgress?.({ phase: 'pages', done: 0, total });
  if (stale.length > 0 && total <= IN_PROCESS_ROUTES) {
    // A few pages (one session changed): starting workers, or handing the pages to the ones `serve --watch`
    // keeps, would cost more than rendering them here, where the renderer is loaded already.
    const here = await PageRenderer.create(bundle, styleHrefs);
    for (const task of stale) {
      for (const route of task) {
        const file = fileOf(route.output);
        const result = await here.renderOrExplain(file, route, options.full);
        if (result.written && !isMarkdownMember(route.output)) written += 1;
        const stat = await fs.stat(file);
        outputs[route.output] = { ...outputs[route.output]!, size: stat.size, mtimeMs: stat.mtimeMs };
        recordInputs(route.output, result.error === undefined ? readDigest(bundle, route) : undefined);
        if (result.error !== undefined) fail(route.output, result.error);
        rendered += 1;
      }
      options.onProgress?.({ phase: 'pages', done: rendered, total });
    }
  } else if (stale.length > 0) {
    const workerData: RenderWorkerData = { entry: renderer.entry, styleHrefs, ...dirs };
    const threads = options.threads ?? defaultThreads();
    const pool = options.workers
      ? options.workers.pool(workerData, threads)
      : startPool(workerData, Math.max(1, Math.min(threads, stale.length)));
    try {
      await Promise.all(
        stale.map(async (task) => {
          const result = await pool.run({
            outputs: task.map((r) => r.output),
            modules: task.map((r) => r.route.file),
            siteKey,
            force: options.full === true,
            build,
          });
          if (!result.ok) throw new Error(`rendering ${result.error}`);
          for (const file of result.files) {
            outputs[file.output] = { ...outputs[file.output]!, size: file.size, mtimeMs: file.mtimeMs };
            recordInputs(file.output, file.digest);
            if (file.written && !isMarkdownMember(file.output)) written += 1;
            if (file.error !== undefined) fail(file.output, file.error);
          }
          rendered += task.length;
          options.onProgress?.({ phase: 'pages', done: rendered, total });
        }),
      );
    } finally {
      if (!options.workers) await pool.close();
    }
  }

  const packs = writeMarkdownPacks({
    members: packMembers(
      routes.filter((route) => isMarkdownMember(route.output)).flatMap((route) => sessionOf(route) ?? []),
      siteOptions().timeZone,
    ),
    memberRecords: outputs,
    memberFile: fileOf,
    outDir,
    previous: previous?.outputs,
    full: options.full,
  });
  Object.assign(outputs, packs.records);
  written += packs.written;

  for (const style of renderer.styles) {
    const file = path.join(outDir, style);
    if (writeIfChanged(file, await fs.readFile(path.join(renderer.dir, style)), options.full)) written += 1;
    const stat = await fs.stat(file);
    outputs[style] = { key: renderer.hash, size: stat.size, mtimeMs: stat.mtimeMs };
  }

  // Files in public/ (favicon, the pages' own scripts) are copied as they are, as Astro does.
  const publicDir = path.join(options.packageRoot, 'public');
  for (const entry of await fs.readdir(publicDir, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (!entry.isFile()) continue;
    const source = path.join(entry.parentPath, entry.name);
    const output = path.relative(publicDir, source).split(path.sep).join('/');
    if (output in outputs) throw new Error(`public/${output} has the same name as a page`);
    const file = path.join(outDir, output);
    if (writeIfChanged(file, await fs.readFile(source), options.full)) written += 1;
    const stat = await fs.stat(file);
    outputs[output] = { key: renderer.hash, size: stat.size, mtimeMs: stat.mtimeMs };
  }

  // A site built before packs has each session's Markdown beside its page, which no output names any more: removed
  // once the pages that link the packs are written.
  let removed = recorded && !recorded.packed ? removeUnpackedMarkdown(outDir, recorded.outputs) : 0;
  for (const output of Object.keys(recorded?.outputs ?? {})) {
    if (output in outputs) continue;
    await fs.rm(fileOf(output), { force: true });
    const root = isMarkdownMember(output) ? dirs.membersDir : outDir;
    await removeEmptyParents(root, path.dirname(fileOf(output)));
    if (root === outDir) removed += 1;
  }

  await writeManifest(manifestFile, {
    version: 1,
    outDir: siteFolder,
    siteKey,
    cwds,
    failed,
    packed: true,
    outputs,
  });
  const names = siteFiles(outputs);
  return {
    siteKey,
    files: names.length,
    ...weighed(names, outputs),
    pages: names.filter((o) => o.endsWith('.html')).length,
    rendered,
    written,
    removed,
    compiled,
    failed,
    compared,
  };
}

function commitsKey(repos: string | undefined, commits: readonly Commit[]): string {
  return JSON.stringify([repos ?? '', commits.map((c) => [c.repo, c.hash, c.at, c.subject])]);
}

async function removeEmptyParents(root: string, dir: string): Promise<void> {
  for (let at = dir; at.startsWith(`${root}${path.sep}`); at = path.dirname(at)) {
    try {
      await fs.rmdir(at);
    } catch {
      return; // not empty (or gone)
    }
  }
}

/** A day's or a week's page and its Markdown are made from one report: in one batch, one after the other, the
 * worker makes it once (see siteDayReport). */
function indexBatches(routes: RouteToRender[]): RouteToRender[][] {
  const reportOf = (route: RouteToRender) => route.output.replace(/(?:\/index\.html|\.md)$/, '');
  const sorted = routes
    .map((route, order) => ({ route, order, report: reportOf(route) }))
    .sort((a, b) => (a.report < b.report ? -1 : a.report > b.report ? 1 : a.order - b.order));
  const batches: RouteToRender[][] = [];
  let batch: RouteToRender[] = [];
  sorted.forEach(({ route, report }, i) => {
    batch.push(route);
    if (batch.length >= INDEX_BATCH && sorted[i + 1]?.report !== report) (batches.push(batch), (batch = []));
  });
  if (batch.length > 0) batches.push(batch);
  return batches;
}
