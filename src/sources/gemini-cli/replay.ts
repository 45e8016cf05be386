import type { WarningSink } from '../../util/warnings.ts';
import { isObject, type GeminiMessage, type GeminiSessionMeta } from './schema.ts';

/** A message as the file last wrote it, where it first appeared. */
export interface MessageItem {
  kind: 'message';
  record: GeminiMessage;
  /** The line (JSONL) or 1-based position in `messages` (JSON) its last version came from. */
  line: number;
  /** Removed by a `$rewindTo` (kept: the turn happened and its tokens were spent). */
  rewound?: boolean;
  /** First seen in a `$set.messages` checkpoint, not written as a line of its own. */
  fromCheckpoint?: boolean;
}

export interface UnknownItem {
  kind: 'unknown';
  record: unknown;
  line: number;
}

export type Item = MessageItem | UnknownItem;

const META_KEYS = ['sessionId', 'projectHash', 'startTime', 'lastUpdated', 'summary', 'directories', 'kind'] as const;

/**
 * Replays a session file into its final state, record by record (the CLI's own `loadConversationRecord`):
 * a header (`{sessionId, projectHash, startTime, …}`), messages (a message written again under the same `id`
 * replaces the earlier version: tokens and tool results arrive that way), `{"$set": {…}}` metadata updates
 * (`$set.messages` is a checkpoint of the whole history) and `{"$rewindTo": id}`. Unlike the CLI, nothing is
 * dropped: a rewind marks the messages it removed, a checkpoint adds only the messages not seen before.
 */
export class Conversation {
  meta: GeminiSessionMeta = {};
  readonly items: Item[] = [];
  private readonly byId = new Map<string, MessageItem>();
  /** Lines that said something (header, message, update): a file of only bad lines is no session. */
  records = 0;

  constructor(
    private readonly file: string,
    private readonly warn: WarningSink,
  ) {}

  /** One line of a `.jsonl` file. */
  add(value: unknown, line: number): void {
    if (!isObject(value)) {
      this.warn({ file: this.file, line, message: 'not a JSON object; skipped' });
      return;
    }
    this.records += 1;
    if (typeof value.$rewindTo === 'string') this.rewind(value.$rewindTo);
    else if (isObject(value.$set)) {
      this.setMeta(value.$set);
      if (Array.isArray(value.$set.messages)) this.checkpoint(value.$set.messages, line);
    } else if (typeof value.id === 'string') this.message(value as unknown as GeminiMessage, line);
    else if (typeof value.sessionId === 'string' || typeof value.projectHash === 'string') {
      this.setMeta(value);
      // An older whole record written as one line.
      if (Array.isArray(value.messages)) this.checkpoint(value.messages, line, false);
    } else this.items.push({ kind: 'unknown', record: value, line });
  }

  /** A whole `.json` session (`ConversationRecord`): message `i` counts as line `i + 1`. */
  addDocument(doc: Record<string, unknown>): void {
    this.setMeta(doc);
    this.records += 1;
    const messages = Array.isArray(doc.messages) ? (doc.messages as unknown[]) : [];
    messages.forEach((m, i) => {
      if (isObject(m) && typeof m.id === 'string') this.message(m as unknown as GeminiMessage, i + 1);
      else if (isObject(m)) this.items.push({ kind: 'unknown', record: m, line: i + 1 });
      else this.warn({ file: this.file, line: i + 1, message: `messages[${i}] is not an object; skipped` });
    });
  }

  private message(record: GeminiMessage, line: number): void {
    const known = this.byId.get(record.id);
    if (known) {
      known.record = record;
      known.line = line;
      return;
    }
    const item: MessageItem = { kind: 'message', record, line };
    this.byId.set(record.id, item);
    this.items.push(item);
  }

  private checkpoint(messages: unknown[], line: number, fromCheckpoint = true): void {
    for (const m of messages) {
      if (!isObject(m) || typeof m.id !== 'string' || this.byId.has(m.id)) continue;
      const item: MessageItem = { kind: 'message', record: m as unknown as GeminiMessage, line };
      if (fromCheckpoint) item.fromCheckpoint = true;
      this.byId.set(m.id, item);
      this.items.push(item);
    }
  }

  private rewind(id: string): void {
    const live = this.items.filter((i): i is MessageItem => i.kind === 'message' && !i.rewound);
    const at = live.findIndex((i) => i.record.id === id);
    // The CLI clears everything when the id is unknown.
    for (const item of at === -1 ? live : live.slice(at)) item.rewound = true;
  }

  private setMeta(value: Record<string, unknown>): void {
    for (const key of META_KEYS) {
      const v = value[key];
      if (key === 'directories') {
        if (Array.isArray(v)) this.meta.directories = v.filter((d): d is string => typeof d === 'string');
      } else if (typeof v === 'string') this.meta[key] = v;
    }
  }
}
