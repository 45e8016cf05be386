import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Source, SourceContext, SourceItem, SourceLocation } from '../source.ts';
import { readJsonl } from '../../util/jsonl.ts';
import { isDirectory } from '../../util/fs.ts';

/** A `.json` file is one JSON value and cannot be streamed: past this size, write JSONL instead. */
const MAX_JSON_BYTES = 64 * 1024 * 1024;

/**
 * Custom agents' message histories (seed 002): every `*.jsonl` (one message per line) and `*.json` (an array of
 * messages, or an object with a `messages` array) under the `--messages-dir` directories is one session. See
 * README "Your own agent's logs" for the format.
 */
export const messages: Source = {
  id: 'messages',
  label: 'Custom agent messages',
  locate: async (ctx) => {
    const flag = ctx.options.messagesDir;
    const looked = flag === undefined ? [] : Array.isArray(flag) ? flag : [flag];
    const found: string[] = [];
    for (const dir of looked) if (await isDirectory(dir)) found.push(dir);
    return { looked, found };
  },
  read: readMessageDirs,
};

async function listFiles(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && /\.jsonl?$/i.test(e.name))
    .map((e) => path.join(e.parentPath, e.name))
    .sort();
}

/** The session id of a file: its path under the directory, without the extension (ids go through
 * `idToPathSegment` wherever they become paths). */
function sessionIdOf(dir: string, file: string): string {
  return path
    .relative(dir, file)
    .replace(/\.jsonl?$/i, '')
    .split(path.sep)
    .join('/');
}

async function* readMessageDirs(location: SourceLocation, ctx: SourceContext): AsyncGenerator<SourceItem> {
  for (const dir of location.found) {
    let files: string[];
    try {
      files = await listFiles(dir);
    } catch (error) {
      ctx.warn({ file: dir, message: `could not list (${(error as Error).message}); skipped` });
      continue;
    }
    // Every changed file is stamped before any is read, so the collector knows how much there is to read.
    const changed: string[] = [];
    for (const file of files) {
      const unchanged = ctx.unchanged?.([file]);
      if (unchanged) {
        yield { kind: 'unchanged', sessionIds: unchanged };
        continue;
      }
      await ctx.stamp?.(file);
      changed.push(file);
    }
    for (const file of changed) {
      try {
        const session = await readFile(dir, file, ctx);
        if (session) yield { kind: 'session', session };
      } catch (error) {
        ctx.unavailable?.(file);
        ctx.warn({ file, message: `could not read (${(error as Error).message}); skipped` });
      }
    }
  }
}

async function readFile(dir: string, file: string, ctx: SourceContext) {
  // Loaded only when a file is to be read: a collect that finds nothing changed never compiles the normalizer.
  const { MessageListNormalizer, sessionMetaOf } = await import('./normalize.ts');
  const stat = await fs.stat(file);
  const n = new MessageListNormalizer(file, ctx.warn);
  if (/\.jsonl$/i.test(file)) {
    for await (const { line, value } of readJsonl(file, { onWarning: ctx.warn })) n.add(value, line);
  } else {
    if (stat.size > MAX_JSON_BYTES) {
      ctx.warn({ file, message: `a .json file over 64 MiB cannot be read in parts; write it as JSONL; skipped` });
      return undefined;
    }
    let value: unknown;
    try {
      value = JSON.parse(await fs.readFile(file, 'utf8'));
    } catch (error) {
      ctx.warn({ file, message: `not valid JSON (${(error as Error).message}); skipped` });
      return undefined;
    }
    let list: unknown = value;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      n.meta = sessionMetaOf(value as Record<string, unknown>);
      list = (value as { messages?: unknown }).messages;
    }
    if (!Array.isArray(list)) {
      ctx.warn({ file, message: 'neither a JSON array of messages nor an object with a "messages" array; skipped' });
      return undefined;
    }
    list.forEach((m, i) => n.add(m, i + 1));
  }
  const session = n.finish(sessionIdOf(dir, file), dir, stat.mtime.toISOString());
  if (!session) ctx.warn({ file, message: 'no messages; skipped' });
  // A relative cwd is relative to the messages directory, so logs can move with the project they belong to.
  else if (!path.isAbsolute(session.cwd)) session.cwd = path.resolve(dir, session.cwd);
  return session;
}
