import { promises as fs } from 'node:fs';
import { NotRegularFileError, openRegular, readFailure } from '../../util/fs.ts';
import { readJsonl } from '../../util/jsonl.ts';
import type { WarningSink } from '../../util/warnings.ts';
import { Conversation } from './replay.ts';
import { isObject } from './schema.ts';

/** A `.json` session is one JSON document the CLI rewrote whole on every message; past this size it is skipped. */
export const MAX_JSON_BYTES = 64 * 1024 * 1024;

/** Reads one session file into its replayed conversation; undefined (after one warning) when it cannot be read. */
export async function readConversation(file: string, warn: WarningSink): Promise<Conversation | undefined> {
  const conversation = new Conversation(file, warn);
  try {
    if (file.endsWith('.jsonl')) {
      // Streamed: a line at a time, replayed as it comes.
      for await (const { line, value } of readJsonl(file, { onWarning: warn })) conversation.add(value, line);
    } else {
      const size = (await fs.stat(file)).size;
      if (size > MAX_JSON_BYTES) {
        warn({ file, message: `a .json session of ${size} bytes is too large to parse at once; skipped` });
        return undefined;
      }
      const handle = await openRegular(file);
      let text: string;
      try {
        text = await handle.readFile('utf8');
      } finally {
        await handle.close();
      }
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch (error) {
        warn({
          file,
          message: `not valid JSON (${(error as Error).message}); the CLI rewrites this file whole, it may be half-written; skipped`,
        });
        return undefined;
      }
      if (!isObject(doc)) {
        warn({ file, message: 'not a session object (`{sessionId, messages}`); skipped' });
        return undefined;
      }
      conversation.addDocument(doc);
    }
  } catch (error) {
    if (error instanceof NotRegularFileError || ['EACCES', 'EPERM', 'ENOENT'].includes(codeOf(error))) {
      warn({ file, message: `${readFailure(error)}; skipped` });
      return undefined;
    }
    // A read error part-way: keep what was read, like a truncated last line.
    warn({ file, message: `could not read the whole file (${(error as Error).message}); kept what was read` });
  }
  if (conversation.records === 0) {
    warn({ file, message: 'no readable records; skipped' });
    return undefined;
  }
  return conversation;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException)?.code ?? '';
}
