import { createHash } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { openSessionPages, type SessionPages } from '../archive/data-dir.ts';
import { renderMarkdown } from '../transcript/markdown.ts';
import { RenderCache } from '../transcript/render-cache.ts';
import { PageTextCache, type PageRows, pageTextRows, SessionTextWriter } from '../transcript/page-texts.ts';
import { attachHtml } from '../transcript/render-session.ts';
import { sessionPage } from '../transcript/session-view.ts';
import { shareSettings } from '../privacy/share-mode.ts';
import { shareLens } from '../privacy/share-lens.ts';
import type { HistoryPrompt, Session, SessionHead, SessionPageContent, SessionSummary } from '../model/session.ts';
import { SOURCE_IDS } from '../model/message.ts';
import { groupProjects } from '../model/project.ts';
import { cachedProbe } from '../insights/repository.ts';
import type { WeekStart } from '../stats/calendar.ts';
import { bodyStamp, indexStamp as archiveIndexStamp } from '../archive/stamps.ts';
import { fileStamp, withStampsHeld } from '../util/stamp.ts';
import { sharedParse } from '../util/shared-parse.ts';

export { dataDir, type SiteOptions, siteOptions } from './site-options.ts';
import { dataDir } from './site-options.ts';

function readJson<T>(relative: string, fallback: T): T {
  const root = dataDir();
  if (!root) return fallback;
  const file = path.join(root, relative);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}

/** Whether a data file holds more than an empty list, without reading it. */
function nonEmpty(relative: string): boolean {
  const root = dataDir();
  if (!root) return false;
  try {
    return statSync(path.join(root, relative)).size > 2;
  } catch {
    return false;
  }
}

/** Size and mtime of the index files the collections load: part of every cache key over them, as one
 * process (`serve --watch`) renders the site again after each collect with the same modules loaded. */
export function indexStamp(): string {
  if (held !== undefined) return held;
  const root = dataDir();
  return root ? archiveIndexStamp(root) : '';
}

let held: string | undefined;

/**
 * Runs `render` with the index files stat'ed once, not again by every page and component that asks for the
 * indexes (a dozen stats each time: 1-2 % of a first build's render), and each body's and repository's stamp
 * taken once (withStampsHeld: 2-3 % more), and once for all the tasks of one `build` (an id of the build). For a
 * render worker's task: the build holds the archive's lock, so no collect changes the archive during it.
 */
export async function withIndexStampHeld<T>(render: () => Promise<T>, build?: string): Promise<T> {
  return withStampsHeld(async () => {
    held = indexStamp();
    try {
      return await render();
    } finally {
      held = undefined;
    }
  }, build);
}

export function hasSummaries(): boolean {
  return nonEmpty(path.join('index', 'sessions.json'));
}

export function hasHistoryPrompts(): boolean {
  return SOURCE_IDS.some((source) => nonEmpty(path.join('prompts', `${source}.json`)));
}

export function loadSummaries(): SessionSummary[] {
  const root = dataDir();
  const relative = path.join('index', 'sessions.json');
  const file = root && path.join(root, relative);
  // The build's own parse, while it holds it (see shared-parse.ts). Each summary copied: grouping writes a
  // project and a repository into it.
  const shared = file ? sharedParse(file, fileStamp(file), () => readJson<SessionSummary[]>(relative, [])) : [];
  const summaries = shared.map((summary) => ({ ...summary }));
  const share = shareSettings();
  // In a share build every record the site reads passes the share lens: nothing unredacted reaches Astro's
  // content store, the day and week indexes made from it, or a page. Its paths are anonymized, so only the
  // naming conventions group its worktrees (nothing is read from the disk).
  if (share) return groupProjects(shareLens(share).summaries(summaries));
  return groupProjects(summaries, cachedProbe());
}

export function loadHistoryPrompts(): HistoryPrompt[] {
  const history = SOURCE_IDS.flatMap((source) => readJson<HistoryPrompt[]>(path.join('prompts', `${source}.json`), []));
  const share = shareSettings();
  return share ? shareLens(share).history(history) : history;
}

let cache: { root: string | undefined; value: RenderCache | undefined } | undefined;
let openPages: { key: string; pages: SessionPages; digests: Map<number, string> } | undefined;

function renderCache(): RenderCache | undefined {
  const root = dataDir();
  if (cache?.root !== root) {
    cache?.value?.close();
    let value: RenderCache | undefined;
    try {
      value = root ? new RenderCache(root, { readonly: true }) : undefined;
    } catch {
      value = undefined; // no cache yet (e.g. a build without `agent-logbook build`): render on demand
    }
    cache = { root, value };
    return value;
  }
  return cache?.value;
}

/** Where a session's pages are read from: its summary, or the head its later pages are made from. */
export type PageSource = Pick<SessionHead, 'id' | 'body' | 'pageStarts'>;

/**
 * One page of a session (1-based; a session of one page is all of it), its Markdown rendered: read when
 * its page renders, never loaded into the content store. A long session is read a page at a time (see
 * PagedBody), so a session of any size builds. Markdown that needs the sanitizer comes sanitized from the
 * render cache the CLI fills before the build; the rest marked renders here.
 */
export function loadSessionPage(source: PageSource, page: number): SessionPageContent {
  const read = readPage(source, page);
  const { content } = read;
  if (page > 1) keepDigest(read, page);
  // The page's search texts, for the session's Markdown export rendered next (see keepPageMarkdown), when it is to
  // gather them.
  lastPageRows =
    textsWanted(source) !== undefined
      ? { key: pagesKey(source), page, rows: rowsOf(source, page, content) }
      : undefined;
  const rendered = renderCache();
  const store = rendered && { get: (markdown: string) => rendered.get(markdown) };
  attachHtml(content, (text) => renderMarkdown(text, store));
  const share = shareSettings();
  return share ? shareLens(share).page(content) : content;
}

function rowsOf(source: PageSource, page: number, content: SessionPageContent): PageRows {
  return pageTextRows(content, (source.pageStarts ?? [0])[page - 1] ?? 0);
}

let lastPageRows: { key: string; page: number; rows: PageRows } | undefined;

/** A session page as loadSessionPage reads it, without its Markdown rendered (for the session's Markdown), and,
 * `withRows`, its search texts (made before the share lens: the site search's writer applies it). */
export function loadSessionPageText(
  source: PageSource,
  page: number,
  withRows: boolean,
): { content: SessionPageContent; rows?: PageRows } {
  const { content } = readPage(source, page);
  const rows = withRows ? rowsOf(source, page, content) : undefined;
  const share = shareSettings();
  return { content: share ? shareLens(share).page(content) : content, rows };
}

/** The body stamp to gather a session's search texts at, when the cache does not have them for its body as it is. */
function staleTextsStamp(source: PageSource): string | undefined {
  const root = dataDir();
  if (!root || shareSettings()?.single) return undefined;
  const stamp = bodyStamp(root, source.body);
  if (stamp === undefined || textCache()?.stampOf(source.id) === stamp) return undefined;
  return stamp;
}

/** The stamp to gather the session's search texts at, asked of the cache once a session (by its pages, then by
 * its Markdown export): undefined when they are not to be gathered. */
function textsWanted(source: PageSource): string | undefined {
  const key = pagesKey(source);
  if (wanted?.key !== key) wanted = { key, stamp: textCache() ? staleTextsStamp(source) : undefined };
  return wanted.stamp;
}

let wanted: { key: string; stamp: string | undefined } | undefined;

/**
 * Where the session's Markdown export puts the site search's texts of the session as it reads its pages, when the
 * cache does not have them for the body as it is. The export reads every page of a session whose body changed
 * (those rendered just before it in the same worker, from what they kept), so the pages need not read it before.
 */
export function sessionTextWriter(source: PageSource): SessionTextWriter | undefined {
  const stamp = textsWanted(source);
  const cache = textCache();
  if (stamp === undefined || !cache) return undefined;
  return new SessionTextWriter(cache, source.id, stamp, (shown) => openedPages(source).pages.subagentsBut(shown));
}

let texts: { root: string; value: PageTextCache | undefined } | undefined;

function textCache(): PageTextCache | undefined {
  const root = dataDir();
  if (!root) return undefined;
  if (texts?.root !== root) {
    texts?.value?.close();
    let value: PageTextCache | undefined;
    try {
      value = new PageTextCache(root);
    } catch {
      value = undefined; // the data directory cannot be written: the site search reads what it lacks
    }
    texts = { root, value };
  }
  return texts.value;
}

/**
 * A digest of all that page `page` (after the first) of a session reads from the archive, as loadSessionPage
 * reads it. It stays the same when the session grows past the page, so the page need not be made again
 * (see the site build); the page's other inputs are its props and the build's options.
 */
export function sessionPageDigest(source: PageSource, page: number): string {
  // Made when the page rendered (see loadSessionPage), or else now: from its bytes where the body is paged.
  const known = openPages?.key === pagesKey(source) ? openPages.digests.get(page) : undefined;
  if (known !== undefined) return known;
  const opened = openedPages(source);
  if (opened.pages.hashPage) {
    const digest = opened.pages.hashPage(page);
    opened.digests.set(page, digest);
    return digest;
  }
  return keepDigest(readPage(source, page), page);
}

/** A later page's digest, taken as it was read (or kept from an earlier read) and kept for the build to ask for. */
function keepDigest(read: ReturnType<typeof readPage>, page: number): string {
  const digest = read.digests.get(page) ?? read.digest ?? digestOf(read.content);
  read.digests.set(page, digest);
  return digest;
}

/** Lets go of the session last opened: the index of a long one's pages holds tens of MB (see PagedBody). */
export function closeSessionPages(): void {
  openPages = undefined;
}

function readPage(
  source: PageSource,
  page: number,
): { content: SessionPageContent; digests: Map<number, string>; digest: string | undefined } {
  const opened = openedPages(source);
  const { messages, subagents, resumedFrom } = opened.pages.page(page);
  return {
    content: resumedFrom ? { messages, subagents, resumedFrom } : { messages, subagents },
    digests: opened.digests,
    digest: opened.pages.digest?.(page),
  };
}

/** The session's pages, opened once for all of them: the pages of a long session are built one after another. */
function openedPages(source: PageSource): NonNullable<typeof openPages> {
  const key = pagesKey(source);
  if (openPages?.key === key) return openPages;
  const root = dataDir();
  const starts = source.pageStarts ?? [0];
  const pages = root
    ? openSessionPages(root, source.body, starts, (session, n) => sessionPage(session, starts, n))
    : undefined;
  if (!pages) throw new Error(`missing session body ${source.body} in ${root}`);
  return (openPages = { key, pages, digests: new Map() });
}

/** For a page not read through PagedBody (a body of the old format, or one whose messages file is missing). A
 * message at a time: a page's messages hold their tools' whole outputs (its size bound counts only what the page
 * shows of them), so a page can be far bigger than one string of JSON should be. */
function digestOf(content: SessionPageContent): string {
  const hash = createHash('sha256');
  const add = (value: unknown) => hash.update(JSON.stringify(value) ?? 'undefined').update('\n');
  add(content.resumedFrom);
  for (const message of content.messages) add(message);
  add(null); // where a thread's messages end
  for (const { messages, ...agent } of content.subagents) {
    add(agent);
    for (const message of messages) add(message);
    add(null); // where a thread's messages end
  }
  return hash.digest('hex');
}

/** What a session's pages are kept by: its body as read (a process that renders again after a collect,
 * `serve --watch`, must not keep a body from before it grew), its pages, and the share settings they were
 * made under. */
function pagesKey(source: PageSource): string {
  const root = dataDir() ?? '';
  const starts = source.pageStarts ?? [0];
  return [
    root,
    source.body,
    bodyStamp(root, source.body) ?? '',
    `${starts.length}:${starts.at(-1)}`,
    process.env.AGENT_LOGBOOK_SHARE ?? '',
  ].join('\u0000');
}

/** Stands in a session page for its thread, whose bytes render-page.ts puts in its place (see threadBytes).
 * Only the thread is raw HTML on that page, and it is put in after this is found, so nothing else can hold it. */
export const THREAD_MARKER = '<!--agent-logbook:thread-->';
let threadsSpliced = false;
let keptThread: Buffer | undefined;

/** Said by render-page.ts, which puts each page's thread into its bytes (Astro's own build does not). */
export function spliceThreads(): void {
  threadsSpliced = true;
}

/** What a session page shows for its thread: the marker, its bytes kept for render-page.ts, or (in Astro's own
 * build) the thread's HTML. */
export function placeThread(bytes: Buffer): string {
  if (!threadsSpliced) return bytes.toString('utf8');
  keptThread = bytes;
  return THREAD_MARKER;
}

/** The thread kept by the page rendered last, once (undefined for any other page). */
export function takeThreadBytes(): Buffer | undefined {
  const bytes = keptThread;
  keptThread = undefined;
  return bytes;
}

/** A session's Markdown kept for its export, at most this many characters (a bigger one reads its last pages
 * again). */
const KEPT_MARKDOWN_CHARS = 8_000_000;
let keptMarkdown:
  { key: string; pages: Map<number, { markdown: string[]; rows?: PageRows }>; chars: number } | undefined;

/**
 * Keeps the Markdown of a session page (in a time zone), made from the items the page shows, and its search texts
 * (see loadSessionPage), for the session's Markdown export, which the build renders next in the same worker (see
 * the site build): the export then neither reads the session's pages again nor builds their views twice. Only the
 * last session's pages are kept.
 */
export function keepPageMarkdown(summary: PageSource, page: number, timeZone: string, markdown: () => string[]): void {
  const pages = pagesKey(summary);
  const key = `${pages}\u0000${timeZone}`;
  if (keptMarkdown?.key !== key) keptMarkdown = { key, pages: new Map(), chars: 0 };
  if (keptMarkdown.chars >= KEPT_MARKDOWN_CHARS) return;
  const items = markdown();
  const rows = lastPageRows?.key === pages && lastPageRows.page === page ? lastPageRows.rows : undefined;
  keptMarkdown.pages.set(page, { markdown: items, rows });
  for (const item of items) keptMarkdown.chars += item.length;
  for (const row of rows?.main ?? []) keptMarkdown.chars += row.text.length;
  for (const [, agentRows] of rows?.subagents ?? []) for (const row of agentRows) keptMarkdown.chars += row.text.length;
}

/** A page's Markdown kept by keepPageMarkdown, if it was, and its search texts if they were. */
export function keptPageMarkdown(
  summary: PageSource,
  page: number,
  timeZone: string,
): { markdown: string[]; rows?: PageRows } | undefined {
  return keptMarkdown?.key === `${pagesKey(summary)}\u0000${timeZone}` ? keptMarkdown.pages.get(page) : undefined;
}
