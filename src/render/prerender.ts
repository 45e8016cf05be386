import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { DataDir } from '../collect/data-dir.ts';
import { markdownSegments } from './render-session.ts';
import { RenderCache, renderKey } from './render-cache.ts';
import { workerFile } from '../util/worker-pool.ts';

const BATCH = 200;

const WORKER = workerFile(import.meta.url, 'prerender-worker', './prerender-worker.js');

export interface PrerenderReport {
  segments: number;
  rendered: number;
  threads: number;
}

/**
 * Renders every Markdown segment of the archive that the render cache does not hold yet, on every core
 * (marked + DOMPurify on jsdom costs about 2 ms per segment, so this is the expensive part of a first build).
 */
export async function prerender(dataDir: string, threads = os.availableParallelism()): Promise<PrerenderReport> {
  const data = new DataDir(dataDir);
  const cache = new RenderCache(dataDir);
  const missing = new Map<string, string>();
  let segments = 0;
  try {
    for (const summary of await data.readSummaries()) {
      const body = await data.readBody(summary.body);
      if (!body) continue;
      for (const segment of markdownSegments(body.session)) {
        segments += 1;
        const key = renderKey(segment.text);
        if (!missing.has(key) && cache.get(key) === undefined) missing.set(key, segment.text);
      }
    }
    const work = [...missing.entries()];
    const batches: [string, string][][] = [];
    for (let i = 0; i < work.length; i += BATCH) batches.push(work.slice(i, i + BATCH));
    const poolSize = Math.max(1, Math.min(threads, batches.length));
    if (batches.length > 0) {
      await Promise.all(
        Array.from({ length: poolSize }, () => runWorker(batches, (rendered) => cache.putMany(rendered))),
      );
    }
    return { segments, rendered: work.length, threads: poolSize };
  } finally {
    cache.close();
  }
}

function runWorker(queue: [string, string][][], done: (rendered: [string, string][]) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER);
    const next = () => {
      const batch = queue.shift();
      if (!batch) {
        void worker.terminate().then(() => resolve());
        return;
      }
      worker.postMessage(batch);
    };
    worker.on('message', (rendered: [string, string][]) => {
      done(rendered);
      next();
    });
    worker.on('error', reject);
    worker.on('online', next);
  });
}
