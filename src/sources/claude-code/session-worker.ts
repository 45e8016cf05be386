import { parentPort, workerData } from 'node:worker_threads';
import { DataDir } from '../../collect/data-dir.ts';
import { summarize } from '../../collect/summarize.ts';
import type { SessionSummary } from '../../model/session.ts';
import type { CollectWarning } from '../../util/warnings.ts';
import type { SessionFiles } from './paths.ts';
import { readSession } from './index.ts';

/** Given once per worker: the session ids whose own files (or archive copies) exist. */
export interface SessionWorkerData {
  known: string[];
}

export interface SessionTask {
  files: SessionFiles;
  dataDir: string;
  bodyPath: string;
  collectedAt: string;
  archived: boolean;
}

export interface SessionTaskResult {
  summary?: SessionSummary;
  partial: boolean;
  written: boolean;
  warnings: CollectWarning[];
}

const known = new Set((workerData as SessionWorkerData).known);

// Reads one session, summarizes it and writes its body: the parsing and serializing of a cold collect,
// off the main thread.
parentPort!.on('message', async (task: SessionTask) => {
  const warnings: CollectWarning[] = [];
  const session = await readSession(task.files, { warn: (w) => warnings.push(w) }, (id) => known.has(id));
  if (!session) {
    parentPort!.postMessage({ partial: false, written: false, warnings } satisfies SessionTaskResult);
    return;
  }
  const summary = summarize(session, task.bodyPath, task.collectedAt);
  const partial = session.partial === true;
  const written = !(partial && task.archived);
  if (written) await new DataDir(task.dataDir).writeBody({ summary, session });
  parentPort!.postMessage({ summary, partial, written, warnings } satisfies SessionTaskResult);
});
