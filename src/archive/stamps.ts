import path from 'node:path';
import { SOURCE_IDS } from '../model/message.ts';
import { fileStamp, fileStamps } from '../util/stamp.ts';
import { messagesFile } from './body-format.ts';

/**
 * A session body's stamp: its header's and its messages file's (collect writes the header anew whenever the
 * session changes, and appends to the messages). Undefined when the header is missing. What every cache over a
 * body (prerendered HTML, page texts, rendered pages) is keyed by.
 */
export function bodyStamp(dataDir: string, body: string): string | undefined {
  const header = path.join(dataDir, body);
  if (heldBodies?.has(header)) return heldBodies.get(header);
  const stamp = fileStamp(header) === undefined ? undefined : fileStamps([header, messagesFile(header)]);
  heldBodies?.set(header, stamp);
  return stamp;
}

let heldBodies: Map<string, string | undefined> | undefined;

/**
 * Runs `work` with each body stamped once. For a site build, which holds the archive's lock (no body changes
 * meanwhile) and asks for every body's stamp in four passes (the Markdown pass, the search texts, the page keys,
 * the search's records). Bodies only: the build writes, then stamps, files of its own.
 */
export async function withBodyStampsHeld<T>(work: () => Promise<T>): Promise<T> {
  if (heldBodies) return work();
  heldBodies = new Map();
  try {
    return await work();
  } finally {
    heldBodies = undefined;
  }
}

/** The stamp of the archive's index files (the summaries and each source's prompt history), which every page
 * but a session's is made from. */
export function indexStamp(dataDir: string): string {
  return fileStamps([
    path.join(dataDir, 'index', 'sessions.json'),
    ...SOURCE_IDS.map((source) => path.join(dataDir, 'prompts', `${source}.json`)),
  ]);
}

/** The stamp of the summaries index alone: collect rewrites it whenever it writes a session. */
export function summariesStamp(dataDir: string): string | undefined {
  return fileStamp(path.join(dataDir, 'index', 'sessions.json'));
}
