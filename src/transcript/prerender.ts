import os from 'node:os';
import { MessageChannel } from 'node:worker_threads';
import { DataDir } from '../archive/data-dir.ts';
import type { SessionSummary } from '../model/session.ts';
import { mapLimit } from '../util/map-limit.ts';
import { WorkerPool, workerFile } from '../util/worker-pool.ts';
import { RenderCache } from './render-cache.ts';
import type { PrerenderTask, PrerenderMessage } from './prerender-body.ts';
import type { PrerenderWorkerTask } from './prerender-worker.ts';
import { bodyStamp } from '../archive/stamps.ts';
import { stampedBytes } from '../util/stamp.ts';

const WORKER = workerFile(import.meta.url, 'prerender-worker', './prerender-worker.js');
/** Up to this many bodies, of up to this many bytes in all, are done on this thread. */
const IN_PROCESS_BODIES = 4;
const IN_PROCESS_BYTES = 8 << 20;

export interface PrerenderReport {
  /** Sessions read (the others were rendered before and have not changed since). */
  sessions: number;
  /** Markdown segments in the lines parsed (those that may need the sanitizer). */
  segments: number;
  /** Segments that needed the sanitizer and were not in the cache: sanitized now. */
  sanitized: number;
  threads: number;
}

/**
 * Fills the render cache before the site is built, on every core: the sanitized HTML of every Markdown
 * segment that needs DOMPurify (see renderMarkdown), which at ~0.5 ms a segment would otherwise be the
 * slowest part of building session pages, and would load jsdom (~110 MB of heap) into every render worker.
 * Workers stream each session's messages from the archive (a session of any size costs one message of memory),
 * parse only the lines whose bytes may hold such Markdown (lineMayNeedSanitizer), skip what the cache holds,
 * sanitize the rest and send it back in batches; this thread only writes to the cache. A session whose body
 * has not changed since it was last done is not read at all.
 */
export async function prerender(
  dataDir: string,
  threads = os.availableParallelism(),
  summaries?: readonly SessionSummary[],
): Promise<PrerenderReport> {
  const data = new DataDir(dataDir);
  const cache = new RenderCache(dataDir);
  try {
    const done = cache.renderedBodies();
    const tasks: (PrerenderTask & { bytes: number })[] = [];
    for (const summary of summaries ?? (await data.readSummaries())) {
      const stamp = bodyStamp(dataDir, summary.body);
      if (stamp === undefined || done.get(summary.body) === stamp) continue;
      tasks.push({ body: summary.body, stamp, bytes: stampedBytes(stamp) });
    }
    // Biggest first, so that one long session does not leave a core working alone at the end.
    tasks.sort((a, b) => b.bytes - a.bytes);
    const report: PrerenderReport = { sessions: tasks.length, segments: 0, sanitized: 0, threads: 0 };
    report.threads = Math.max(1, Math.min(threads, tasks.length));
    if (tasks.length === 0) return report;
    const queue = tasks.map(({ body, stamp }) => ({ body, stamp }));
    const onMessage = (message: PrerenderMessage) => {
      if (message.type === 'rendered') {
        cache.putMany(message.entries);
        report.sanitized += message.entries.length;
      } else {
        cache.markRendered(message.body, message.stamp);
        report.segments += message.segments;
      }
    };
    // A session or two that grew (the daily case): starting a worker would cost more than the work.
    if (tasks.length <= IN_PROCESS_BODIES && tasks.reduce((n, t) => n + t.bytes, 0) <= IN_PROCESS_BYTES) {
      report.threads = 1;
      const { prerenderBody } = await import('./prerender-body.ts');
      for (const task of queue) prerenderBody(dataDir, (markdown) => cache.get(markdown), task, onMessage);
      return report;
    }
    const pool = new WorkerPool<PrerenderWorkerTask, void>({
      file: WORKER,
      threads: report.threads,
      workerData: { dataDir },
      tasksPerWorker: IN_FLIGHT,
    });
    try {
      await mapLimit(queue, report.threads * IN_FLIGHT, (task) => inWorker(pool, task, onMessage));
    } finally {
      await pool.close();
    }
    return report;
  } finally {
    cache.close();
  }
}

/** Bodies each worker is given at a time: it reads the next while this thread takes in the last one's results. */
const IN_FLIGHT = 2;

/** One body in a worker, its messages taken in as they come, on a port of its own: the last is `done`. */
async function inWorker(
  pool: WorkerPool<PrerenderWorkerTask, void>,
  task: PrerenderTask,
  onMessage: (m: PrerenderMessage) => void,
): Promise<void> {
  const { port1, port2 } = new MessageChannel();
  try {
    const done = new Promise<void>((resolve, reject) => {
      port1.on('message', (message: PrerenderMessage) => {
        try {
          onMessage(message);
        } catch (error) {
          reject(error);
        }
        if (message.type === 'done') resolve();
      });
    });
    await Promise.all([pool.run({ ...task, port: port2 }, [port2]), done]);
  } finally {
    port1.close();
  }
}
