import { parentPort, workerData } from 'node:worker_threads';
import { bodyMessages } from '../collect/data-dir.ts';
import { renderMarkdown, type SanitizedStore } from './markdown.ts';
import { RenderCache, renderKey } from './render-cache.ts';
import { messageMarkdown } from './render-session.ts';
import { bodySubagents, type PageTextRow, SessionTextCollector } from '../search/page-texts.ts';

// Sanitizes the Markdown of one session body per task that needs it, for src/render/prerender.ts.

export interface RenderTask {
  body: string;
  stamp: string;
}

export type RenderWorkerMessage =
  | { type: 'rendered'; entries: [key: string, html: string][] }
  | { type: 'done'; body: string; stamp: string; segments: number; texts: PageTextRow[] };

/** Rendered HTML goes back in batches of about this many characters, so a huge session stays small here. */
const BATCH_CHARS = 4 << 20;

const { dataDir } = workerData as { dataDir: string };
const cache = new RenderCache(dataDir, { readonly: true });

// A failure rejects unhandled, which ends the worker with an 'error' event that fails the build.
parentPort!.on('message', (task: RenderTask) => void renderBody(task));

async function renderBody(task: RenderTask): Promise<void> {
  let batch: [string, string][] = [];
  let batchChars = 0;
  let segments = 0;
  const store: SanitizedStore = {
    get: (markdown) => cache.get(markdown),
    put: (markdown, html) => {
      batch.push([renderKey(markdown), html]);
      batchChars += html.length;
      if (batchChars < BATCH_CHARS) return;
      parentPort!.postMessage({ type: 'rendered', entries: batch } satisfies RenderWorkerMessage);
      batch = [];
      batchChars = 0;
    },
  };
  // The site search's texts are gathered on the same pass: reading a body is most of the cost of either.
  const texts = new SessionTextCollector();
  for await (const { thread, message } of bodyMessages(dataDir, task.body)) {
    texts.add(thread, message);
    for (const segment of messageMarkdown(message)) {
      segments += 1;
      renderMarkdown(segment.text, store);
    }
  }
  if (batch.length > 0) parentPort!.postMessage({ type: 'rendered', entries: batch } satisfies RenderWorkerMessage);
  const rows = texts.rows(await bodySubagents(dataDir, task.body));
  parentPort!.postMessage({
    type: 'done',
    body: task.body,
    stamp: task.stamp,
    segments,
    texts: rows,
  } satisfies RenderWorkerMessage);
}
