/**
 * The archive's data directory, as the rest of the program imports it: its layout (layout.ts), the summaries
 * index (summaries-index.ts), and the session bodies' writer and readers (body-writer.ts, body-reader.ts).
 */
export type { SessionBody } from './body-format.ts';
export {
  bodyMessages,
  bodyMessagesButToolResults,
  openSessionPages,
  type SessionPages,
  readBodyFile,
  readBodyFileSync,
} from './body-reader.ts';
export { BodyWriter } from './body-writer.ts';
export { toolResultStandIn } from './json-prefix.ts';
export { DATA_FORMAT, DATA_VERSION, DataDir } from './layout.ts';
export { type IndexEntry, indexEntry } from './summaries-index.ts';
