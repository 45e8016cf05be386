import { writeDemoDatabases as writeAmazonQ } from './amazonq-db.ts';
import { writeDemoCursorDb } from './cursor-db.ts';
import { writeDemoChatStore } from './cursor-store.ts';
import { writeDemoGooseDb } from './goose-db.ts';
import { writeDemoOpenCodeDb } from './opencode-db.ts';

/** Writes every SQLite database of the demo home (Amazon Q, Kiro, Cursor and its CLI, OpenCode, Goose): generated
 * from the hand-written fixtures, never committed (their paths are gitignored). Returns the files written. */
export async function writeDemoDatabases(home: string): Promise<string[]> {
  return [
    ...(await writeAmazonQ(home)),
    await writeDemoCursorDb(home),
    await writeDemoChatStore(home),
    await writeDemoOpenCodeDb(home),
    await writeDemoGooseDb(home),
  ];
}
