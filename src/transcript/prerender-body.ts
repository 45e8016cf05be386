import { bodyMessagesButToolResults } from '../archive/data-dir.ts';
import { mayNeedSanitizer, renderMarkdown, type SanitizedStore } from './markdown.ts';
import { renderKey } from './render-cache.ts';
import { messageMarkdown } from './render-session.ts';

// One session body's pass for src/transcript/prerender.ts, in a worker (prerender-worker.ts) or, for a few small
// bodies, on the calling thread.

export interface PrerenderTask {
  body: string;
  stamp: string;
}

export type PrerenderMessage =
  | { type: 'rendered'; entries: [key: string, html: string][] }
  /** The last: the body's Markdown is all in the cache. */
  | { type: 'done'; body: string; stamp: string; segments: number };

/** Rendered HTML goes back in batches of about this many characters, so a huge session stays small on both
 * sides. */
const BATCH_CHARS = 4 << 20;

const MARKDOWN_KINDS = ['"kind":"response"', '"kind":"compact_summary"'].map((kind) => Buffer.from(kind));
/**
 * What the JSON line of a message whose Markdown may need the sanitizer holds (see mayNeedSanitizer), besides a
 * fence whose language is not a plain word (unsafeFence): raw HTML and `<…>` autolinks a `<`; a link, an image or
 * a definition `](`, `][`, `]:` or `![` (a shortcut link has its definition beside it); a bare `ftp:` or `xmpp:`
 * link `p:` or `P:`. None of them is ever JSON's own syntax, and the archive writes a message's kind as
 * `"kind":"…"`.
 */
const MAY_NEED_SANITIZER = ['<', '](', '][', ']:', '![', 'p:', 'P:'].map((bytes) => Buffer.from(bytes));
const FENCES = ['```', '~~~'].map((bytes) => Buffer.from(bytes));

/** Whether a message line may hold Markdown that needs the sanitizer: else it is not parsed at all. */
export function lineMayNeedSanitizer(line: Buffer): boolean {
  if (!MARKDOWN_KINDS.some((kind) => line.includes(kind))) return false;
  return MAY_NEED_SANITIZER.some((bytes) => line.includes(bytes)) || FENCES.some((fence) => unsafeFence(line, fence));
}

const BACKSLASH = 0x5c;
const QUOTE = 0x22;
/** The letters after a backslash in JSON that stand for whitespace, which ends a fence's language. */
const ESCAPED_SPACE = new Set([0x6e, 0x72, 0x74, 0x66]); // n r t f

/**
 * Whether a fence in the line's JSON may have a language that is not a plain word (`[\w+-]*`, as marked takes it:
 * up to the first whitespace): read from the bytes, where a newline or a tab is escaped and the text's end is an
 * unescaped quote. Any other escape, or any byte outside the plain word's, counts as not plain.
 */
function unsafeFence(line: Buffer, fence: Buffer): boolean {
  const mark = fence[0]!;
  for (let at = line.indexOf(fence); at !== -1; at = line.indexOf(fence, at)) {
    while (line[at] === mark) at++;
    while (line[at] === 0x20 || (line[at] === BACKSLASH && (line[at + 1] === 0x74 || line[at + 1] === 0x66))) {
      at += line[at] === 0x20 ? 1 : 2;
    }
    for (; at < line.length; at++) {
      const byte = line[at]!;
      if (byte === 0x20 || byte === QUOTE) break;
      if (byte === BACKSLASH) {
        if (ESCAPED_SPACE.has(line[at + 1]!)) break;
        return true;
      }
      const word =
        (byte >= 0x30 && byte <= 0x39) ||
        (byte >= 0x41 && byte <= 0x5a) ||
        (byte >= 0x61 && byte <= 0x7a) ||
        byte === 0x5f ||
        byte === 0x2b ||
        byte === 0x2d;
      if (!word) return true;
    }
  }
  return false;
}

/** Sanitizes the Markdown of one session body that needs it and is not cached. */
export function prerenderBody(
  dataDir: string,
  cached: (markdown: string) => string | undefined,
  task: PrerenderTask,
  send: (message: PrerenderMessage) => void,
): void {
  let batch: [string, string][] = [];
  let batchChars = 0;
  let segments = 0;
  const store: SanitizedStore = {
    get: cached,
    put: (markdown, html) => {
      batch.push([renderKey(markdown), html]);
      batchChars += html.length;
      if (batchChars < BATCH_CHARS) return;
      send({ type: 'rendered', entries: batch });
      batch = [];
      batchChars = 0;
    },
  };
  // Only the lines that may hold such Markdown are parsed: tool results (most of a body's bytes) are known from
  // their first bytes, the rest by the bytes any such Markdown has.
  for (const { message } of bodyMessagesButToolResults(dataDir, task.body, lineMayNeedSanitizer)) {
    if (!message) continue;
    for (const segment of messageMarkdown(message)) {
      segments += 1;
      // Only what the sanitizer must see goes to the cache: nearly every segment is plainly not such.
      if (mayNeedSanitizer(segment.text)) renderMarkdown(segment.text, store);
    }
  }
  if (batch.length > 0) send({ type: 'rendered', entries: batch });
  send({ type: 'done', body: task.body, stamp: task.stamp, segments });
}
