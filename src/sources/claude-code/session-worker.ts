import { workerData } from 'node:worker_threads';
import type { CollectWarning } from '../../util/warnings.ts';
import type { SessionFiles } from './paths.ts';
import { type CollectedSession, type CollectTarget, collectSession } from './session-reader.ts';

/** Given once per worker: the session ids whose own files (or archive copies) exist. */
export interface SessionWorkerData {
  known: string[];
}

export interface SessionTask extends CollectTarget {
  files: SessionFiles;
}

export interface SessionTaskResult extends CollectedSession {
  warnings: CollectWarning[];
}

const known = new Set((workerData as SessionWorkerData).known);

/** Reads one session into the archive (parsing, normalizing and writing), off the main thread. */
export default async function collectTask({ files, ...target }: SessionTask): Promise<SessionTaskResult> {
  const warnings: CollectWarning[] = [];
  const result = await collectSession(
    files,
    (w) => warnings.push(w),
    (id) => known.has(id),
    target,
  );
  return { ...result, warnings };
}
