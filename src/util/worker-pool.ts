import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';

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

/** A fixed set of worker threads running one task each at a time; a task is one message, its result one reply. */
export class WorkerPool<Task, Result> {
  private readonly idle: Worker[] = [];
  private readonly waiting: { task: Task; resolve: (r: Result) => void; reject: (e: unknown) => void }[] = [];
  private readonly all: Worker[] = [];

  /** `workerData` goes to every worker once, at start (large shared inputs belong there, not in each task). */
  constructor(file: string, size = defaultThreads(), workerData?: unknown) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(file, { workerData });
      worker.unref();
      this.all.push(worker);
      this.idle.push(worker);
    }
  }

  run(task: Task): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ task, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.idle.length > 0 && this.waiting.length > 0) {
      const worker = this.idle.pop()!;
      const { task, resolve, reject } = this.waiting.shift()!;
      const done = () => {
        worker.off('message', onMessage);
        worker.off('error', onError);
        this.idle.push(worker);
        this.next();
      };
      const onMessage = (result: Result) => {
        done();
        resolve(result);
      };
      const onError = (error: unknown) => {
        done();
        reject(error);
      };
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.postMessage(task);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.all.map((w) => w.terminate()));
  }
}
