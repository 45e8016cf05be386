import { statSync } from 'node:fs';
import { workerData } from 'node:worker_threads';
import { outputFile } from './markdown-packs.ts';
import { listRoutes, loadBundle, PageRenderer, readDigest, type RouteToRender } from './render-page.ts';

/** Given once per worker. */
export interface RenderWorkerData {
  entry: string;
  styleHrefs: string[];
  outDir: string;
  /** Where sessions' Markdown members go (see markdown-packs.ts). */
  membersDir: string;
}

/**
 * One task: the outputs of one session (its pages, in order, so a long body is opened once), or a few others.
 * Named, not sent with their props: the worker lists the routes itself, from the same data, once a build.
 * Props cloned into every task would hold the summaries and day indexes many times over, and those of one
 * 2 GB session alone are tens of MB.
 */
export interface RenderTask {
  outputs: string[];
  /** The page module that makes each of them (`sessions/[source]/[id]/[...page].astro`, …): the worker lists
   * the routes of these only. A session's pages need none of the days' and weeks' reports, which take seconds
   * to list. */
  modules: string[];
  /** The build's key of the archive's index and the options: the routes are listed again when it changes. */
  siteKey: string;
  /** Write even when the bytes are the same (`build --full`). */
  force: boolean;
  /** The build's own id: its tasks share the stamps they take (see withIndexStampHeld). */
  build: string;
}

export type RenderTaskResult =
  | {
      ok: true;
      /** `error`: the file could not be rendered, and says so (see PageRenderer.renderOrExplain). */
      files: {
        output: string;
        written: boolean;
        size: number;
        mtimeMs: number;
        error?: string;
        /** What a later session page read from the body (see readDigest). */
        digest?: string;
      }[];
    }
  | { ok: false; error: string };

const { entry, styleHrefs, outDir, membersDir } = workerData as RenderWorkerData;
const bundle = loadBundle(entry);
const renderer = bundle.then((loaded) => PageRenderer.create(loaded, styleHrefs));
let routes: { siteKey: string; byModule: Map<string, Promise<Map<string, RouteToRender>>> } | undefined;

/** The routes of one page module by output, listed once a build. */
function routesOf(siteKey: string, module: string): Promise<Map<string, RouteToRender>> {
  if (routes?.siteKey !== siteKey) routes = { siteKey, byModule: new Map() };
  let byOutput = routes.byModule.get(module);
  if (!byOutput) {
    byOutput = bundle.then(async (loaded) => {
      const listed = await listRoutes(loaded.pageModules, new Set([module]));
      return new Map(listed.map((route) => [route.output, route]));
    });
    routes.byModule.set(module, byOutput);
  }
  return byOutput;
}

/** Renders pages with the compiled renderer and writes the ones whose bytes changed, off the main thread. */
export default async function renderTask({
  outputs,
  modules,
  siteKey,
  force,
  build,
}: RenderTask): Promise<RenderTaskResult> {
  try {
    const loaded = await bundle;
    const files = await loaded.withIndexStampHeld(async () => {
      const done = [];
      for (const [i, output] of outputs.entries()) {
        const route = (await routesOf(siteKey, modules[i]!)).get(output);
        if (!route)
          throw new Error(`the renderer has no route for ${output} (did the archive change during the build?)`);
        const file = outputFile({ outDir, membersDir }, route.output);
        const { written, error } = await (await renderer).renderOrExplain(file, route, force);
        const stat = statSync(file);
        const digest = error === undefined ? readDigest(loaded, route) : undefined;
        done.push({ output: route.output, written, size: stat.size, mtimeMs: stat.mtimeMs, error, digest });
      }
      return done;
    }, build);
    return { ok: true, files };
  } catch (error) {
    const where = outputs[0] ?? '';
    return { ok: false, error: `${where}: ${(error as Error).stack ?? String(error)}` };
  }
}
