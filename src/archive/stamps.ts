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
  if (fileStamp(header) === undefined) return undefined;
  return fileStamps([header, messagesFile(header)]);
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
