import type { Hash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openSessionPages } from '../archive/data-dir.ts';
import { projectName } from '../model/project.ts';
import type { NormalizedMessage } from '../model/message.ts';
import { type SessionSummary, type SessionThreads, type SubagentThread, subagentAnchor } from '../model/session.ts';
import { searchableTexts } from '../model/search-text.ts';
import type { SectionKind } from './page-record.ts';
import { sessionPage } from './session-view.ts';

/** One text of a session as the site index holds it: its time (empty when the message had none), kind, the
 * main-thread message it anchors to (a subagent's texts anchor to the call that started it; none for the
 * session's own), and the text. */
export interface PageTextRow {
  ts: string;
  kind: SectionKind;
  index: number | null;
  text: string;
}

/**
 * What the search rows of a session say about the session itself: its own title (unless that is just its
 * first prompt, which has a row of its own), project name and directory.
 */
export function sessionAbout(summary: SessionSummary): string {
  const prompt: unknown = summary.prompts?.[0]?.text;
  const first = typeof prompt === 'string' ? prompt.replace(/…$/, '') : '';
  const title = typeof summary.title === 'string' ? summary.title : '';
  const ownTitle = first && title.startsWith(first.slice(0, 40)) ? '' : title;
  return [ownTitle, projectName(summary.cwd), summary.cwd].filter(Boolean).join('\n');
}

/** One page's rows: its main thread's, and each subagent's that the page shows (by its id). */
export interface PageRows {
  main: PageTextRow[];
  subagents: [agentId: string, rows: PageTextRow[]][];
}

/**
 * The prompts and answers of one session page, as the site search finds them on it: its main-thread messages
 * (the first at index `start`), and the messages of the subagents the page shows, each anchored to the call on
 * the page that started it or the chain of subagents it belongs to (see subagentAnchor), or to none. Made from the page as read for it (patches applied, before any share
 * lens), by whoever reads it anyway: the session's Markdown export in the site build, or readSessionTexts.
 */
export function pageTextRows(content: SessionThreads, start: number): PageRows {
  const main: PageTextRow[] = [];
  const callIndex = new Map<string, number>();
  content.messages.forEach((message, i) => {
    if (message.tool_call && message.source_type !== 'tool_result') callIndex.set(message.tool_call.call_id, start + i);
    addRows(main, message, start + i);
  });
  const parentOf = new Map(content.subagents.map((agent) => [agent.agentId, agent.parentCallId]));
  const callOwner = new Map<string, string>();
  for (const agent of content.subagents)
    for (const message of agent.messages)
      if (message.tool_call && message.source_type !== 'tool_result')
        callOwner.set(message.tool_call.call_id, agent.agentId);
  const subagents: [string, PageTextRow[]][] = content.subagents.map((agent) => {
    const at = subagentAnchor(agent, parentOf, callIndex, callOwner) ?? null;
    const rows: PageTextRow[] = [];
    for (const message of agent.messages) addRows(rows, message, at);
    return [agent.agentId, rows];
  });
  return { main, subagents };
}

function addRows(rows: PageTextRow[], message: NormalizedMessage, index: number | null): void {
  for (const { kind, text } of searchableTexts(message)) {
    if (kind !== 'prompt' && kind !== 'answer') continue;
    // An archive written before messages were checked may hold a time that is not text.
    rows.push({ ts: typeof message.timestamp === 'string' ? message.timestamp : '', kind, index, text });
  }
}

/**
 * Gathers a session's rows a page at a time, in page order; the main thread's leave in parts (takeMain), so a
 * huge session's texts are never all in memory, and its subagents' at the end: each subagent's once (as shown on
 * the last page that shows it), and then those no page shows (`addUnshown`), anchored to no message.
 */
export class SessionTextCollector {
  private main: PageTextRow[] = [];
  private mainChars = 0;
  private readonly subagents = new Map<string, PageTextRow[]>();

  addPage(rows: PageRows): void {
    for (const row of rows.main) {
      this.main.push(row);
      this.mainChars += row.text.length;
    }
    for (const [agentId, agentRows] of rows.subagents) this.subagents.set(agentId, agentRows);
  }

  /** The subagents the pages so far showed, by id. */
  shown(): ReadonlySet<string> {
    return new Set(this.subagents.keys());
  }

  /** The subagents no page shows, with their messages (see SessionPages.subagentsBut). */
  addUnshown(subagents: SubagentThread[]): void {
    this.addPage(pageTextRows({ messages: [], subagents }, 0));
  }

  /**
   * The main thread's rows gathered since the last take, once they hold at least `minChars` characters. In order:
   * a row's message index never goes down.
   */
  takeMain(minChars: number): PageTextRow[] | undefined {
    if (this.main.length === 0 || this.mainChars < minChars) return undefined;
    const rows = this.main;
    this.main = [];
    this.mainChars = 0;
    return rows;
  }

  subagentRows(): PageTextRow[] {
    return [...this.subagents.values()].flat();
  }
}

/** The main thread's rows are cached in parts of about this many characters: a shard that holds some of a huge
 * session's pages reads only the parts that hold them. */
export const TEXT_PART_CHARS = 4 << 20;

/** A session's texts: the main thread's rows in parts, in order, and its subagents' (anchored to earlier
 * messages). */
export interface SessionTexts {
  main: PageTextRow[][];
  subagents: PageTextRow[];
}

/** Where a session's pages are: its body and where its pages start (SessionSummary's). */
export type TextSource = Pick<SessionSummary, 'body' | 'pageStarts'>;

/** A session's prompts and answers read from the archive, a page at a time (a session of any size), as the
 * site build's Markdown export gathers them (SessionTextWriter). */
export function readSessionTexts(dataDir: string, source: TextSource): SessionTexts {
  const starts = source.pageStarts ?? [0];
  const pages = openSessionPages(dataDir, source.body, starts, (session, n) => sessionPage(session, starts, n));
  const collector = new SessionTextCollector();
  const main: PageTextRow[][] = [];
  for (let page = 1; pages && page <= starts.length; page++) {
    collector.addPage(pageTextRows(pages.page(page), starts[page - 1] ?? 0));
    const part = collector.takeMain(TEXT_PART_CHARS);
    if (part) main.push(part);
  }
  if (pages) collector.addUnshown(pages.subagentsBut(collector.shown()));
  const rest = collector.takeMain(0);
  // Part 0 always, even empty: it starts the session's texts afresh (see putPart).
  if (rest || main.length === 0) main.push(rest ?? []);
  return { main, subagents: collector.subagentRows() };
}

/**
 * A session's texts written to the cache as its pages are read (the site build's Markdown export reads every
 * page of a session whose body changed): a part as soon as it is full, the rest and the subagents' rows with the
 * body's stamp at `finish`. A session whose pages were not all read has no stamp, and is read again.
 */
export class SessionTextWriter {
  private readonly collector = new SessionTextCollector();
  private part = 0;

  /** `unshown` gives the session's subagents but those shown (see SessionPages.subagentsBut). */
  constructor(
    private readonly cache: PageTextCache,
    private readonly key: string,
    private readonly stamp: string,
    private readonly unshown: (shown: ReadonlySet<string>) => SubagentThread[],
  ) {}

  addPage(rows: PageRows): void {
    this.collector.addPage(rows);
    const part = this.collector.takeMain(TEXT_PART_CHARS);
    if (part) this.cache.putPart(this.key, this.part++, textPart(part));
  }

  /** Once every page is in: the subagents none of them showed are added, and the texts written whole. */
  finish(): void {
    this.collector.addUnshown(this.unshown(this.collector.shown()));
    const rest = textPart(this.collector.takeMain(0) ?? []);
    this.cache.putLast(this.key, this.part, rest, textPart(this.collector.subagentRows()), this.stamp);
  }
}

/** The stamp the text cache keeps a session's texts by. */
export { bodyStamp } from '../archive/stamps.ts';

/**
 * A part of a session's texts as the cache keeps it: its rows as UTF-8 JSON, encoded where they were gathered and
 * stored as those bytes. (When a worker sent its parts to the build's own thread as rows, a 2 GB session's texts,
 * ~150 MB of JSON, arrived there as objects, made into strings again, all of it garbage in that thread's heap until
 * a full collection: 780 MB of it, 125 MB live, in the site build's first minutes.)
 */
export interface TextPart {
  json: Uint8Array;
  /** Rows, and characters of their texts. */
  rows: number;
  chars: number;
  /** The first row's message index (see mainRows). */
  first: number | null;
}

export function textPart(rows: PageTextRow[]): TextPart {
  return {
    json: new TextEncoder().encode(JSON.stringify(rows)),
    rows: rows.length,
    chars: rows.reduce((n, r) => n + r.text.length, 0),
    first: rows[0]?.index ?? null,
  };
}

const ROW_START = Buffer.from('{"ts":"');
const ROW_BREAK = Buffer.from('},{"ts":"');
const INDEX_KEY = Buffer.from(',"index":');

/**
 * Where each row of a main-thread part is in its JSON, and its message index, without parsing it: a row is written
 * `{"ts":…,"kind":…,"index":N,"text":…}` (textPart), and outside a JSON string a quote is never escaped, so
 * `},{"ts":"` only ever comes between rows and a row's first `,"index":` is its index. Undefined for bytes in any
 * other shape, which the caller parses.
 */
export function rowSpans(json: Buffer): { start: number; end: number; index: number }[] | undefined {
  const spans: { start: number; end: number; index: number }[] = [];
  if (json.length <= 2) return spans;
  let start = 1;
  while (start < json.length - 1) {
    if (json.compare(ROW_START, 0, ROW_START.length, start, start + ROW_START.length) !== 0) return undefined;
    const stop = json.indexOf(ROW_BREAK, start);
    const end = stop === -1 ? json.length - 1 : stop + 1;
    const key = json.indexOf(INDEX_KEY, start);
    if (key === -1 || key >= end) return undefined;
    let at = key + INDEX_KEY.length;
    let index = 0;
    const digitsFrom = at;
    for (; json[at]! >= 0x30 && json[at]! <= 0x39; at++) index = index * 10 + json[at]! - 0x30;
    if (at === digitsFrom || json[at] !== 0x2c) return undefined; // a main-thread row's index is a number
    spans.push({ start, end, index });
    start = end + 1;
  }
  return spans;
}

function parseRows(json: Buffer): PageTextRow[] {
  return JSON.parse(json.toString('utf8')) as PageTextRow[];
}

/** Bump when what a row holds changes: an older cache is emptied and read again (4: rows as UTF-8 bytes; 5: the
 * stamps in a table of their own; 6: rows of the pages as shown, gathered a page at a time; 7: a subagent spawned
 * by another subagent's call anchored to the main-thread call that started the chain). */
const TEXT_CACHE_VERSION = 7;
const READ_PART = 'SELECT rows FROM texts WHERE key = ? AND part = ?';
/** The part holding a session's subagents' rows: read before the main thread's (see sessionRecords). */
const SUBAGENT_PART = -1;

/**
 * The texts the site index was last made from, per session and body stamp, in
 * `<data>/cache/site-search/texts.sqlite` (derived data): a build reads from the archive only the sessions
 * that changed, and a shard written again takes its other sessions from here. A session's texts are rows in
 * parts (`SUBAGENT_PART` for its subagents', then 0, 1, … for its main thread's in order), written as its body
 * is read; its stamp is set when the last part is in, so a session left half written is read again.
 */
export class PageTextCache {
  private readonly db: Database.Database;
  /** Statements prepared once: a shard's writer reads thousands of sessions, each with a few statements. */
  private readonly statements = new Map<string, Database.Statement>();

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql);
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)));
    return statement;
  }

  constructor(dataDir: string, options: { readonly?: boolean } = {}) {
    const file = path.join(dataDir, 'cache', 'site-search', 'texts.sqlite');
    if (options.readonly) {
      this.db = new Database(file, { readonly: true, fileMustExist: true });
      return;
    }
    mkdirSync(path.dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    this.db.pragma('synchronous = OFF');
    // Checked and emptied in one write transaction: the build and its render workers open the cache at once.
    this.db
      .transaction(() => {
        if (this.db.pragma('user_version', { simple: true }) === TEXT_CACHE_VERSION) return;
        this.db.exec('DROP TABLE IF EXISTS texts; DROP TABLE IF EXISTS stamps');
        this.db.pragma(`user_version = ${TEXT_CACHE_VERSION}`);
      })
      .immediate();
    // The stamp is not a column of `texts`: setting it there rewrote every row, and a row's bytes are most of
    // the file, so a first build wrote the file six times over.
    this.db.exec(
      'CREATE TABLE IF NOT EXISTS texts (key TEXT NOT NULL, part INTEGER NOT NULL, ' +
        'chars INTEGER NOT NULL, first INTEGER, rows BLOB NOT NULL, PRIMARY KEY (key, part));' +
        'CREATE TABLE IF NOT EXISTS stamps (key TEXT PRIMARY KEY, stamp TEXT NOT NULL) WITHOUT ROWID;' +
        // What `stamps()` sums, without reading the rows (most of the file's bytes): a build asks it up to four
        // times, each 70-100 ms over a heavy history's texts without it, 10-25 ms with it.
        'CREATE INDEX IF NOT EXISTS texts_chars ON texts (key, chars)',
    );
  }

  /** Each cached session's body stamp (empty while it is being written) and the characters of its texts. */
  stamps(): Map<string, { stamp: string; chars: number }> {
    const rows = this.db
      .prepare(
        "SELECT texts.key AS key, COALESCE(stamps.stamp, '') AS stamp, SUM(chars) AS chars " +
          'FROM texts LEFT JOIN stamps ON stamps.key = texts.key GROUP BY texts.key',
      )
      .all() as { key: string; stamp: string; chars: number }[];
    return new Map(rows.map((r) => [r.key, { stamp: r.stamp, chars: r.chars }]));
  }

  /** The body stamp a session's texts were gathered at (undefined: none, or not all of them yet). */
  stampOf(key: string): string | undefined {
    return (this.statement('SELECT stamp FROM stamps WHERE key = ?').get(key) as { stamp: string } | undefined)?.stamp;
  }

  /** A session's texts whole (a session read in one go). */
  put(key: string, stamp: string, texts: SessionTexts): void {
    this.db.transaction(() => {
      texts.main.forEach((rows, part) => this.putPart(key, part, textPart(rows)));
      this.putSubagents(key, textPart(texts.subagents));
      this.finish(key, stamp);
    })();
  }

  /** Part `part` of a session's main-thread rows; part 0 forgets what the cache held of the session. */
  putPart(key: string, part: number, texts: TextPart): void {
    if (part === 0) {
      this.statement('DELETE FROM stamps WHERE key = ?').run(key);
      this.statement('DELETE FROM texts WHERE key = ?').run(key);
    }
    this.insert(key, part, texts);
  }

  putSubagents(key: string, texts: TextPart): void {
    if (texts.rows > 0) this.insert(key, SUBAGENT_PART, texts);
  }

  /** The session's parts are all in: they are its texts for this body stamp. */
  finish(key: string, stamp: string): void {
    this.statement('INSERT OR REPLACE INTO stamps (key, stamp) VALUES (?, ?)').run(key, stamp);
  }

  /** The last part of a session's main-thread rows and its subagents' rows, in one transaction; with `stamp`,
   * the session is complete (finish). */
  putLast(key: string, part: number, texts: TextPart, subagents: TextPart, stamp: string | undefined): void {
    this.db.transaction(() => {
      this.putPart(key, part, texts);
      this.putSubagents(key, subagents);
      if (stamp) this.finish(key, stamp);
    })();
  }

  private insert(key: string, part: number, texts: TextPart): void {
    const json = Buffer.from(texts.json.buffer, texts.json.byteOffset, texts.json.byteLength);
    this.statement('INSERT OR REPLACE INTO texts (key, part, chars, first, rows) VALUES (?, ?, ?, ?, ?)').run(
      key,
      part,
      texts.chars,
      texts.first,
      json,
    );
  }

  /** A session's subagents' rows (see SessionTextCollector.subagentRows). */
  subagentRows(key: string): PageTextRow[] {
    const rows = this.statement(READ_PART).get(key, SUBAGENT_PART) as { rows: Buffer } | undefined;
    return rows ? parseRows(rows.rows) : [];
  }

  /**
   * A session's main-thread rows, a part at a time, in order; only the parts that can hold rows of messages
   * `from` to `to` (exclusive) when asked, for a shard that holds some of a huge session's pages. The rows of
   * a part are not filtered: a part may start before `from` or end after `to`.
   */
  *mainRows(key: string, from = 0, to = Infinity): Generator<PageTextRow[]> {
    for (const { json } of this.mainParts(key, from, to)) yield parseRows(json);
  }

  /**
   * Puts into `hash` the main-thread rows of messages `from` to `to` (exclusive), and nothing else, each row's
   * JSON followed by a comma: a part that lies within them as the bytes kept (a part is its rows' JSON joined
   * by commas, in brackets), one that reaches past either end as the bytes of its rows within them (rowSpans). The
   * same rows give the same digest however the parts are cut and whatever lies beyond, and nothing is parsed:
   * parsed, the parts at a 2 GB session's eleven runs' ends took 2.4 s and left ~250 MB in the build thread's heap.
   */
  hashMainRows(key: string, from: number, to: number, hash: Hash): void {
    for (const { json, first, next } of this.mainParts(key, from, to)) {
      if (first !== null && first >= from && next !== undefined && next !== null && next <= to) {
        if (json.length > 2) hash.update(json.subarray(1, -1)).update(',');
        continue;
      }
      const spans = rowSpans(json);
      if (spans) {
        for (const { start, end, index } of spans)
          if (index >= from && index < to) hash.update(json.subarray(start, end)).update(',');
        continue;
      }
      for (const row of parseRows(json))
        if (row.index !== null && row.index >= from && row.index < to) hash.update(JSON.stringify(row)).update(',');
    }
  }

  /** The parts mainRows reads, as the JSON bytes kept, with their first row's message index and the next part's. */
  private *mainParts(
    key: string,
    from: number,
    to: number,
  ): Generator<{ json: Buffer; first: number | null; next: number | null | undefined }> {
    const parts = this.statement('SELECT part, first FROM texts WHERE key = ? AND part >= 0 ORDER BY part').all(
      key,
    ) as {
      part: number;
      first: number | null;
    }[];
    for (const [i, { part, first }] of parts.entries()) {
      // A part's rows run up to the next part's first: rows are in message order (see takeMain), and a message's
      // rows are in one part.
      const next = parts[i + 1]?.first;
      if (first !== null && first >= to) break;
      if (next !== undefined && next !== null && next <= from) continue;
      yield { json: (this.statement(READ_PART).get(key, part) as { rows: Buffer }).rows, first, next };
    }
  }

  /** Forgets the sessions no longer in the archive. */
  keepOnly(keys: Set<string>): void {
    const remove = this.db.prepare('DELETE FROM texts WHERE key = ?');
    const removeStamp = this.db.prepare('DELETE FROM stamps WHERE key = ?');
    this.db.transaction(() => {
      for (const key of this.stamps().keys()) {
        if (keys.has(key)) continue;
        remove.run(key);
        removeStamp.run(key);
      }
      // A stamp whose session has no rows (put with no parts) is never asked for.
      this.db.exec('DELETE FROM stamps WHERE key NOT IN (SELECT key FROM texts)');
    })();
  }

  close(): void {
    this.db.close();
  }
}
