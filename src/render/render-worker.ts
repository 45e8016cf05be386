import { parentPort } from 'node:worker_threads';
import { renderMarkdown } from './markdown.ts';

// Renders batches of [key, markdown] for src/render/prerender.ts.
parentPort!.on('message', (batch: [string, string][]) => {
  parentPort!.postMessage(batch.map(([key, text]) => [key, renderMarkdown(text)]));
});
