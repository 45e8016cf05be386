import { statSync } from 'node:fs';
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { serveTasks } from '../util/worker-pool.ts';
import { loadBundle, PageRenderer, type RouteToRender } from './render-page.ts';

/** Given once per worker. */
export interface RenderWorkerData {
  entry: string;
  styleHrefs: string[];
  outDir: string;
}

/** One task: the routes of one session (its pages, in order, so a long body is opened once), or a few others. */
export interface RenderTask {
  routes: RouteToRender[];
  /** Write even when the bytes are the same (`build --full`). */
  force: boolean;
}

export type RenderTaskResult =
  | { ok: true; files: { output: string; written: boolean; size: number; mtimeMs: number }[] }
  | { ok: false; error: string };

const { entry, styleHrefs, outDir } = workerData as RenderWorkerData;
const renderer = loadBundle(entry).then((bundle) => PageRenderer.create(bundle, styleHrefs));

// Renders pages with the compiled renderer and writes the ones whose bytes changed, off the main thread.
serveTasks<RenderTask, RenderTaskResult>(parentPort!, async ({ routes, force }) => {
  try {
    const files = [];
    for (const route of routes) {
      const file = path.join(outDir, route.output);
      const written = await (await renderer).renderTo(file, route, force);
      const stat = statSync(file);
      files.push({ output: route.output, written, size: stat.size, mtimeMs: stat.mtimeMs });
    }
    return { ok: true, files };
  } catch (error) {
    const where = routes[0]?.output ?? '';
    return { ok: false, error: `${where}: ${(error as Error).stack ?? String(error)}` };
  }
});
