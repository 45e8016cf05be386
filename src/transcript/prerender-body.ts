import { bodyMessagesButToolResults } from '../archive/data-dir.ts';
import { mayNeedSanitizer, renderMarkdown, type SanitizedStore } from './markdown.ts';
import { renderKey } from './render-cache.ts';
import { messageMarkdown } from './render-session.ts';
import { SessionTextCollector, TEXT_PART_CHARS, type TextPart, textPart } from './page-texts.ts';
import type { Session, SubagentThread } from '../model/session.ts';

// One session body's pass for src/transcript/prerender.ts, in a worker (prerender-worker.ts) or, for a few small
// bodies, on the calling thread.

export interface PrerenderTask {
  body: string;
  stamp: string;
}

export type PrerenderMessage =
  | { type: 'rendered'; entries: [key: string, html: string][] }
  /** Part `part` of the session's main-thread search texts (see SessionTextCollector.takeMain). */
  | { type: 'texts'; body: string; part: number; texts: TextPart }
  /** The last: the rest of the main thread's texts (part `part`) and the subagents'. */
  | {
      type: 'done';
      body: string;
      stamp: string;
      segments: number;
      part: number;
      texts: TextPart;
      subagentTexts: TextPart;
    };

/** What a worker hands over instead of copying: the texts' bytes. */
export function transferList(message: PrerenderMessage): ArrayBuffer[] {
  if (message.type === 'texts') return [message.texts.json.buffer as ArrayBuffer];
  if (message.type === 'done') return [message.texts.json.buffer, message.subagentTexts.json.buffer] as ArrayBuffer[];
  return [];
}

/** Rendered HTML and search texts go back in batches of about this many characters, so a huge session stays
 * small on both sides. */
const BATCH_CHARS = 4 << 20;

/** Sanitizes the Markdown of one session body that needs it and is not cached, and gathers its search texts. */
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
  // The site search's texts are gathered on the same pass: reading a body is most of the cost of either.
  const texts = new SessionTextCollector();
  // Tool results are not read: they hold no Markdown and no prompt or answer.
  let part = 0;
  let subagents: SubagentThread[] = [];
  const listed = (session: Session) => (subagents = session.subagents);
  for (const { thread, message } of bodyMessagesButToolResults(dataDir, task.body, listed)) {
    texts.add(thread, message);
    const rows = texts.takeMain(TEXT_PART_CHARS);
    if (rows) send({ type: 'texts', body: task.body, part: part++, texts: textPart(rows) });
    if (!message) continue;
    for (const segment of messageMarkdown(message)) {
      segments += 1;
      // Only what the sanitizer must see goes to the cache: nearly every segment is plainly not such.
      if (mayNeedSanitizer(segment.text)) renderMarkdown(segment.text, store);
    }
  }
  if (batch.length > 0) send({ type: 'rendered', entries: batch });
  const subagentTexts = textPart(texts.subagentRows(subagents));
  const rest = textPart(texts.takeMain(0) ?? []);
  send({ type: 'done', body: task.body, stamp: task.stamp, segments, part, texts: rest, subagentTexts });
}
