import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type MessagePort, type ResourceLimits, Worker } from 'node:worker_threads';

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

interface Pending<Result> {
  resolve: (result: Result) => void;
  reject: (error: unknown) => void;
}

/**
 * A fixed set of worker threads, each given up to `slots` tasks at a time: while one of a worker's tasks
 * waits for the disk, another computes (two slots made a cold collect ~7% faster on two cores). A task is
 * one message `{ id, task }` and its result one reply `{ id, result }`; `serveTasks` is the worker side.
 */
export class WorkerPool<Task, Result> {
  private readonly waiting: ({ task: Task } & Pending<Result>)[] = [];
  private readonly workers: { worker: Worker; running: Map<number, Pending<Result>> }[] = [];
  private nextId = 0;

  constructor(
    file: string,
    size = defaultThreads(),
    workerData?: unknown,
    readonly slots = 2,
    resourceLimits?: ResourceLimits,
  ) {
    for (let i = 0; i < size; i++) {
      const worker = new Worker(file, { workerData, resourceLimits });
      worker.unref();
      const entry = { worker, running: new Map<number, Pending<Result>>() };
      worker.on('message', ({ id, result }: { id: number; result: Result }) => {
        const task = entry.running.get(id);
        entry.running.delete(id);
        task?.resolve(result);
        this.next();
      });
      worker.on('error', (error) => {
        for (const task of entry.running.values()) task.reject(error);
        entry.running.clear();
      });
      this.workers.push(entry);
    }
  }

  run(task: Task): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ task, resolve, reject });
      this.next();
    });
  }

  private next(): void {
    while (this.waiting.length > 0) {
      let free: (typeof this.workers)[number] | undefined;
      for (const w of this.workers)
        if (w.running.size < this.slots && (!free || w.running.size < free.running.size)) free = w;
      if (!free) return;
      const { task, resolve, reject } = this.waiting.shift()!;
      const id = this.nextId++;
      free.running.set(id, { resolve, reject });
      free.worker.postMessage({ id, task });
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
  }
}

/** The worker side of a WorkerPool: runs `handle` on each task as it comes (several may be running at once). */
export function serveTasks<Task, Result>(port: MessagePort, handle: (task: Task) => Promise<Result>): void {
  port.on('message', ({ id, task }: { id: number; task: Task }) => {
    void handle(task).then((result) => port.postMessage({ id, result }));
  });
}
