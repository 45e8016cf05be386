import { workerFile, WorkerPool } from '../../util/worker-pool.ts';
import type { RenderTask, RenderTaskResult, RenderWorkerData } from './render-worker.ts';

const WORKER = workerFile(import.meta.url, 'site-render-worker', './render-worker.js');

/** Each render worker's V8 heap limit: a page of a long session is bounded (see PagedBody), so this is plenty,
 * and two workers plus this thread stay under 1 GiB. */
const WORKER_HEAP_MB = 256;
/** …and its young generation: a page is many short-lived strings, and with V8's default for so small a heap
 * they outlive too many scavenges and are collected by full collections instead. */
const WORKER_YOUNG_MB = 32;

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

export function startPool(data: RenderWorkerData, threads: number): WorkerPool<RenderTask, RenderTaskResult> {
  return new WorkerPool<RenderTask, RenderTaskResult>({
    file: WORKER,
    threads,
    workerData: data,
    resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
  });
}
