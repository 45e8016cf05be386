import { type MessagePort, workerData } from 'node:worker_threads';
import { RenderCache } from './render-cache.ts';
import { prerenderBody, type PrerenderTask, type PrerenderMessage } from './prerender-body.ts';

// Sanitizes the Markdown of one session body per task that needs it, for src/transcript/prerender.ts.

export type { PrerenderTask, PrerenderMessage };

/** One body, and the port its messages go back on as they come: a huge session's HTML is sent in batches
 * (see prerenderBody), which the result of the task, sent once at the end, would hold all at once. */
export interface PrerenderWorkerTask extends PrerenderTask {
  port: MessagePort;
}

const { dataDir } = workerData as { dataDir: string };
const cache = new RenderCache(dataDir, { readonly: true });

export default function prerenderTask({ port, ...task }: PrerenderWorkerTask): void {
  prerenderBody(
    dataDir,
    (markdown) => cache.get(markdown),
    task,
    (message) => port.postMessage(message),
  );
}
