import { writeDemoDatabases as writeAmazonQ } from './amazonq-db.ts';
import { writeDemoCursorDb } from './cursor-db.ts';
import { writeDemoOpenCodeDb } from './opencode-db.ts';

/** Writes every SQLite database of the demo home (Amazon Q, Kiro, Cursor, OpenCode): generated from the
 * hand-written fixtures, never committed (their paths are gitignored). Returns the files written. */
export async function writeDemoDatabases(home: string): Promise<string[]> {
  return [...(await writeAmazonQ(home)), await writeDemoCursorDb(home), await writeDemoOpenCodeDb(home)];
}
