import { createHash, type Hash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import type { SourceId } from '../../model/message.ts';
import type { SessionSummary } from '../../model/session.ts';
import { DataDir } from '../../archive/data-dir.ts';
import { bodyStamp, type PageTextRow, sessionAbout } from '../../transcript/page-texts.ts';
import { projectName } from '../../model/project.ts';
import { dayOf } from '../../stats/calendar.ts';
import { messageAnchor, pageOfMessage, sessionRoute } from '../../model/routes.ts';
import { hasCjk, queryWords, wordRuns } from '../../search/cjk.ts';
import { markdownAsPlainText } from '../../transcript/markdown-plain-text.ts';
import { type BundlePage, distinctWords, pageText, type RecordSection } from '../../transcript/page-record.ts';

/** A section holds this much of a long text: the site index is downloaded in pieces by every visitor. */
export const MAX_SECTION_CHARS = 16 * 1024;

/** A session as the site index sees it: its summary's fields and the pages this build has of it. */
export interface SiteSession {
  key: string;
  source: SourceId;
  sessionId: string;
  cwd: string;
  title: string;
  startedAt: string;
  /** When its last message was: its shard is chosen by it (see site-shards.ts). */
  endedAt: string;
  pageStarts: number[] | undefined;
  /** Its body, relative to the data directory. */
  body: string;
  /** What the session's own section says (see sessionAbout). */
  about: string;
  /** The body header's stamp (see bodyStamp in page-texts.ts). */
  bodyStamp: string;
  /** The size of its messages file: what reading it costs. */
  bodyBytes: number;
  /** The body stamp and the pages present, so a change of either is seen. */
  stamp: string;
  /** The pages (1-based) whose HTML this build has. */
  pages: number[];
}

/** A page of the site index: what its bundle's record and text file hold of it (see page-record.ts). */
export interface PageRecord {
  page: BundlePage;
  /** Its entry in the bundle's text file (`pageText`). */
  text: string;
}

/** A Pagefind custom record (the part of its type we use). */
export interface SiteRecord {
  url: string;
  content: string;
  language: string;
  meta: Record<string, string>;
  filters: Record<string, string[]>;
}

export interface RecordOptions {
  timeZone: string;
  language: string;
  /** A share build's single page: everything is on page 1. */
  single?: boolean;
  /** A share build's redaction, applied to every text. */
  clean?: (text: string) => string;
}

/** The pages of a session that the site has (`has` a page's file): not every session has its pages in every
 * build (--since/--until, a share of some sessions). */
export function pagesInSite(
  summary: Pick<SessionSummary, 'source' | 'sessionId' | 'pageStarts'>,
  single: boolean,
  has: (file: string) => boolean,
): number[] {
  const count = single ? 1 : Math.max(1, summary.pageStarts?.length ?? 1);
  const pages: number[] = [];
  for (let page = 1; page <= count; page++)
    if (has(path.posix.join(sessionRoute(summary.source, summary.sessionId, page), 'index.html'))) pages.push(page);
  return pages;
}

/** Every archived session that has at least one page in this build, oldest first. */
export function siteSessions(
  dataDir: string,
  summaries: readonly SessionSummary[],
  outDir: string,
  single: boolean,
  outputs?: ReadonlySet<string>,
): SiteSession[] {
  const data = new DataDir(dataDir);
  const sessions: SiteSession[] = [];
  for (const summary of [...summaries].sort(
    (a, b) => a.startedAt.localeCompare(b.startedAt) || a.id.localeCompare(b.id),
  )) {
    const pages = pagesInSite(summary, single, (file) =>
      outputs ? outputs.has(file) : existsSync(path.join(outDir, file)),
    );
    const stamp = bodyStamp(dataDir, summary.body);
    if (pages.length === 0 || !stamp) continue;
    const messages = statSync(data.messagesPath(summary.body), { throwIfNoEntry: false });
    sessions.push({
      key: summary.id,
      source: summary.source,
      sessionId: summary.sessionId,
      cwd: summary.cwd,
      title: summary.title,
      startedAt: summary.startedAt,
      endedAt: summary.endedAt,
      pageStarts: summary.pageStarts,
      body: summary.body,
      about: sessionAbout(summary),
      bodyStamp: stamp,
      bodyBytes: messages?.size ?? 0,
      stamp: `${stamp}|${pages.join(',')}`,
      pages,
    });
  }
  return sessions;
}

/** A session's pages as the site index places them in shards: the whole session, or a run of a huge one's. */
export interface SiteEntry extends SiteSession {
  /** The key the shards know it by: the session's, or for a run the session's and its pages. */
  entry: string;
  /** Characters of its text (a run's share of its session's, by its pages). */
  chars: number;
  /** A run of a huge session's pages, not the whole session. */
  run: boolean;
}

/**
 * The site index's entries: each session whole, but one of more than `maxChars` of text in runs of consecutive
 * pages of about that much each. Pagefind's indexer holds a shard's index in memory until it writes it, so a
 * huge session in one shard takes memory after its size; in runs it is indexed in several shards, on every core.
 * A whole session's stamp is its body stamp and its pages; a run's is `runStamp`'s, of what its records are made
 * from, so a huge session that grows writes again only the runs whose pages changed.
 */
export function siteEntries(
  sessions: SiteSession[],
  charsOf: (key: string) => number,
  maxChars: number,
  runStamp: (run: SiteSession) => string = (run) => `${run.bodyStamp}|${run.pages.join(',')}`,
): SiteEntry[] {
  const entries: SiteEntry[] = [];
  for (const session of sessions) {
    const chars = charsOf(session.key);
    const runs = Math.min(session.pages.length, Math.ceil(chars / maxChars));
    if (runs <= 1) {
      entries.push({ ...session, entry: session.key, chars, run: false });
      continue;
    }
    const size = Math.ceil(session.pages.length / runs);
    for (let at = 0; at < session.pages.length; at += size) {
      const run = { ...session, pages: session.pages.slice(at, at + size) };
      entries.push({
        ...run,
        stamp: runStamp(run),
        entry: `${session.key}#${run.pages[0]}-${run.pages.at(-1)}`,
        chars: Math.round((chars * run.pages.length) / session.pages.length),
        run: true,
      });
    }
  }
  return entries;
}

/**
 * A digest of all that a run's records are made from (see sessionRecords): the session's fields they show, the
 * page starts of its pages, its main-thread rows (`hashRows` puts those of messages `from` to `to` into the hash)
 * and its subagents' rows on its pages. Not the body's stamp: a session that grows changes its last pages' texts
 * only.
 */
export function runStamp(
  run: SiteSession,
  hashRows: (from: number, to: number, hash: Hash) => void,
  subagentRows: PageTextRow[],
): string {
  const hash = createHash('sha256');
  const first = run.pages[0] ?? 1;
  const last = run.pages.at(-1) ?? first;
  const starts = run.pageStarts?.slice(first - 1, last + 1);
  const { source, sessionId, title, cwd, startedAt, about } = run;
  hash.update(JSON.stringify([source, sessionId, title, cwd, startedAt, about, starts, run.pages]));
  const { from, to } = messageRange(run);
  hashRows(from, to, hash);
  const pages = new Set(run.pages);
  const agents = subagentRows.filter((row) => pages.has(pageOfMessage(run.pageStarts, row.index ?? 0)));
  hash.update(JSON.stringify(agents));
  return `${hash.digest('hex')}|${run.pages.join(',')}`;
}

/** The main-thread messages on a session's pages in this build (from, to exclusive): the rows to read of it. */
export function messageRange(session: SiteSession, single = false): { from: number; to: number } {
  const starts = session.pageStarts;
  const first = session.pages[0];
  const last = session.pages.at(-1);
  if (single || !starts || first === undefined || last === undefined) return { from: 0, to: Infinity };
  return { from: first === 1 ? 0 : (starts[first - 1] ?? 0), to: starts[last] ?? Infinity };
}

/**
 * One entry per page of a session: the page's prompts and answers in order (and, on its first page, the
 * session's title, project and directory), linked to the page; the search box links a hit to its message.
 * The writer puts consecutive pages into a bundle, one Pagefind record (`bundleRecord`). Made a page at
 * a time from the main thread's rows in parts (in order) and the subagents' rows (each page's after its own),
 * so a huge session's texts are never all in memory.
 */
export function* sessionRecords(
  mainParts: Iterable<PageTextRow[]>,
  subagentRows: PageTextRow[],
  session: SiteSession,
  options: RecordOptions,
): Generator<PageRecord> {
  const clean = options.clean ?? ((text: string) => text);
  const title = clean(session.title);
  const project = projectName(clean(session.cwd));
  const pageOf = (row: PageTextRow) => (options.single ? 1 : pageOfMessage(session.pageStarts, row.index ?? 0));
  // Rows of pages this build has not, or that another shard holds (a huge session's), are passed over.
  const wanted = new Set(session.pages);
  const sectionOf = (row: PageTextRow): RecordSection => {
    const text = row.text.slice(0, MAX_SECTION_CHARS);
    return {
      anchor: row.index === null ? '' : messageAnchor(row.index),
      kind: row.kind,
      timestamp: row.ts || session.startedAt,
      // An answer is Markdown: what is found and shown is the text its page shows, without the marks.
      text: clean(row.kind === 'answer' ? markdownAsPlainText(text) : text),
    };
  };
  const fromSubagents = new Map<number, PageTextRow[]>();
  for (const row of subagentRows) {
    if (!wanted.has(pageOf(row))) continue;
    const list = fromSubagents.get(pageOf(row)) ?? [];
    list.push(row);
    fromSubagents.set(pageOf(row), list);
  }
  // The session's own section (title, project) goes first on its page, whatever its time.
  const own: PageTextRow = { ts: session.startedAt, kind: 'session', index: null, text: session.about };
  const pending = new Map<number, RecordSection[]>([[pageOf(own), [sectionOf(own)]]]);
  let next = 0;
  const recordsBefore = function* (page: number): Generator<PageRecord> {
    for (; next < session.pages.length && session.pages[next]! < page; next++) {
      const at = session.pages[next]!;
      const sections = pending.get(at) ?? [];
      pending.delete(at);
      for (const row of fromSubagents.get(at) ?? []) sections.push(sectionOf(row));
      if (sections.length > 0) yield pageRecord(at, sections);
    }
  };
  const pageRecord = (page: number, sections: RecordSection[]): PageRecord => {
    const months = new Set<string>();
    for (const section of sections) {
      const name = monthOf(section.timestamp, options.timeZone);
      if (name) months.add(name);
    }
    const entry = {
      url: sessionRoute(session.source, session.sessionId, page),
      meta: {
        title,
        source: session.source,
        project,
        date: sections.find((s) => s.kind !== 'session')?.timestamp ?? session.startedAt,
        page: String(page),
      },
      filters: { source: [session.source], project: [project], month: [...months] },
    };
    return { page: { ...entry, sections }, text: pageText(entry, sections) };
  };
  for (const rows of mainParts) {
    for (const row of rows) {
      const page = pageOf(row);
      if (!wanted.has(page)) continue;
      yield* recordsBefore(page);
      const sections = pending.get(page) ?? [];
      sections.push(sectionOf(row));
      pending.set(page, sections);
    }
  }
  yield* recordsBefore(Infinity);
}

/**
 * The Pagefind record of a bundle of pages: the runs of letters and digits of each distinct word of their texts
 * once (wordRuns) and their CJK bigrams, the union of their filter values (the search box checks each page's own),
 * linked to the first page; its meta `text` names the bundle's text file.
 */
export function bundleRecord(pages: BundlePage[], textFile: string, language: string): SiteRecord {
  const words = distinctWords(
    pages.flatMap((p) => p.sections),
    (word, add) => {
      // A CJK run never holds a space: the bigrams of the text are those of its distinct words. A query looks a
      // CJK run up by its bigrams and the rest of a word apart from it (queryWords), so that is all a word with
      // CJK in it gives: a run itself, a long sentence as often as not, would only add a term nothing looks up.
      // A bigram is letters only: its runs are itself.
      for (const term of hasCjk(word) ? queryWords(word).words : [word]) for (const run of wordRuns(term)) add(run);
    },
  );
  const filters: Record<string, Set<string>> = {};
  for (const page of pages)
    for (const [name, values] of Object.entries(page.filters)) {
      const set = (filters[name] ??= new Set());
      for (const value of values) set.add(value);
    }
  return {
    url: pages[0]?.url ?? '',
    content: words.join(' '),
    language,
    meta: { text: textFile },
    filters: Object.fromEntries(Object.entries(filters).map(([name, set]) => [name, [...set]])),
  };
}

/** A time written on the 3rd to the 26th of a month: in every zone it is in the month written (zones' offsets differ
 * by 26 hours at most). */
const MID_MONTH = /^\d{4}-\d{2}-(?:0[3-9]|1\d|2[0-6])T/;

/** The month (`yyyy-MM`) of a time in a zone (through the calendar's cached zoned minutes only near a month's
 * ends: it is asked for every section); undefined for a time that is not one. */
function monthOf(iso: string, timeZone: string): string | undefined {
  if (Number.isNaN(Date.parse(iso))) return undefined;
  return MID_MONTH.test(iso) ? iso.slice(0, 7) : dayOf(iso, timeZone).slice(0, 7);
}
