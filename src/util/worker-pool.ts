import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ResourceLimits, Transferable } from 'node:worker_threads';
import type { Piscina } from 'piscina';

// Loaded with the first pool: piscina's ~20 modules take ~30 ms, which the commands that start no
// worker (most collects and rebuilds) would pay for nothing.
const requireHere = createRequire(import.meta.url);

/**
 * The file a worker thread runs: `dist-cli/<bundleName>.js` when this code runs from the bundled CLI,
 * else the JS shim next to the calling module (workers do not inherit the parent's TypeScript hooks).
 */
export function workerFile(callerUrl: string, bundleName: string, shim: string): string {
  const here = fileURLToPath(callerUrl);
  const marker = `${path.sep}dist-cli${path.sep}`;
  if (here.includes(marker)) return path.join(here.slice(0, here.lastIndexOf(marker)), 'dist-cli', `${bundleName}.js`);
  return fileURLToPath(new URL(shim, callerUrl));
}

/** Worker threads to use: one per core (at most 4), or `AGENT_LOGBOOK_THREADS`. */
export function defaultThreads(): number {
  const asked = Number(process.env.AGENT_LOGBOOK_THREADS);
  if (Number.isInteger(asked) && asked > 0) return asked;
  return Math.max(1, Math.min(os.availableParallelism(), 4));
}

export interface WorkerPoolOptions {
  /** The worker module (see workerFile): its default export handles one task and resolves to its result. */
  file: string;
  /** Worker threads, all started at once and kept until close (one that dies is replaced). */
  threads?: number;
  /** Each worker's `workerData`. */
  workerData?: unknown;
  /** Tasks a worker is given at a time: with two, while one waits for the disk another computes. */
  tasksPerWorker?: number;
  resourceLimits?: ResourceLimits;
}

/**
 * A fixed set of worker threads (piscina). A task that throws in the worker rejects with its error, and one
 * whose worker dies (process.exit, out of memory) rejects too; the next tasks go to a new worker.
 */
export class WorkerPool<Task, Result> {
  readonly threads: number;
  readonly tasksPerWorker: number;
  private readonly pool: Piscina<Task, Result>;
  /** Tasks not settled yet, to reject when the workers cannot start (piscina would keep them queued). */
  private readonly pending = new Map<Promise<Result>, (error: unknown) => void>();
  private lastError: unknown;
  private closed = false;

  constructor(options: WorkerPoolOptions) {
    this.threads = options.threads ?? defaultThreads();
    this.tasksPerWorker = options.tasksPerWorker ?? 1;
    const { Piscina } = requireHere('piscina') as typeof import('piscina');
    this.pool = new Piscina<Task, Result>({
      filename: options.file,
      minThreads: this.threads,
      maxThreads: this.threads,
      concurrentTasksPerWorker: this.tasksPerWorker,
      workerData: options.workerData,
      resourceLimits: options.resourceLimits,
      // Idle workers wait on their event loop, not blocked in Atomics.wait: what a worker starts on its own
      // (the render worker loads its renderer before the first task comes) goes on meanwhile.
      atomics: 'disabled',
      recordTiming: false,
    });
    // A worker that failed outside any task (its module threw on import, or it crashed while idle).
    this.pool.on('error', (error: unknown) => {
      this.lastError = error;
      this.whenStopped();
    });
    this.pool.on('workerDestroy', () => this.whenStopped());
  }

  run(task: Task, transferList?: readonly Transferable[]): Promise<Result> {
    if (this.closed) return Promise.reject(new Error('the worker pool is closed'));
    // Settled by piscina, or by close() and whenStopped() (Promise.withResolvers is Node 22).
    let reject!: (error: unknown) => void;
    const result = new Promise<Result>((resolve, rejectResult) => {
      reject = rejectResult;
      this.pool
        .run(task, transferList ? { transferList: [...transferList] } : undefined)
        .then(resolve, rejectResult)
        .finally(() => this.pending.delete(result));
    });
    this.pending.set(result, reject);
    return result;
  }

  /** Ends the workers now. Tasks still running reject, and are not reported as unhandled: whoever
   * closes the pool has stopped waiting for them. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const [result, reject] of this.pending) {
      result.catch(() => undefined);
      reject(new Error('the worker pool was closed'));
    }
    this.pending.clear();
    await this.pool.destroy();
  }

  /** When every worker is gone and none replaced them (workers that die while starting are not), the
   * queued tasks would wait forever: they fail with the workers' error. Checked once piscina is done
   * replacing the worker, which it does after telling of its end. */
  private whenStopped(): void {
    setImmediate(() => {
      if (this.closed || this.pending.size === 0 || this.pool.threads.length > 0) return;
      const error = this.lastError ?? new Error('the worker threads stopped while starting');
      for (const reject of this.pending.values()) reject(error);
      this.pending.clear();
    });
  }
}
