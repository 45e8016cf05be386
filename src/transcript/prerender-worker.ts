import { parentPort, workerData } from 'node:worker_threads';
import { RenderCache } from './render-cache.ts';
import { prerenderBody, type PrerenderTask, type PrerenderMessage } from './prerender-body.ts';

// Sanitizes the Markdown of one session body per task that needs it, for src/transcript/prerender.ts.

export type { PrerenderTask, PrerenderMessage };

const { dataDir } = workerData as { dataDir: string };
const cache = new RenderCache(dataDir, { readonly: true });

// A failure rejects unhandled, which ends the worker with an 'error' event that fails the build.
parentPort!.on(
  'message',
  (task: PrerenderTask) =>
    void prerenderBody(
      dataDir,
      (markdown) => cache.get(markdown),
      task,
      (message) => parentPort!.postMessage(message),
    ),
);
