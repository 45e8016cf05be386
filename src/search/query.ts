import { existsSync } from 'node:fs';
import { TZDate } from '@date-fns/tz';
import type { SourceId } from '../model/message.ts';
import { messageAnchor, pageOfMessage, sessionRoute } from '../model/routes.ts';
import { isCjk } from './cjk.ts';
import type { SearchKind } from '../model/search-text.ts';
import { openSearchDb, rowIdFor, ROWS_PER_SECOND, SHORT_GRAM, searchIndexPath } from './store.ts';
import { ensureSearchIndex } from './sync.ts';

export interface SearchFilters {
  /** A source id (`claude-code`, `codex`, `amazon-q`). */
  source?: string;
  /** A project: its slug, its name (the last part of its directory) or its directory. */
  project?: string;
  /** First day (YYYY-MM-DD, in `timeZone`) a hit may be from. */
  since?: string;
  /** Last day (YYYY-MM-DD, in `timeZone`) a hit may be from. */
  until?: string;
  timeZone: string;
  /** Only these kinds of text. */
  kinds?: SearchKind[];
  /** Only this session (its key, `<source>/<sessionId>`). */
  session?: string;
  /** At most this many hits (default 20). */
  limit?: number;
  /** At most this many hits from one session, so one long session does not crowd out the rest (default: no
   * limit). */
  perSession?: number;
  /** Skip this many hits first (paging). */
  offset?: number;
}

export interface SearchHit {
  /** The session's key, `<source>/<sessionId>`. */
  key: string;
  source: SourceId;
  sessionId: string;
  /** The project's slug (as in the site's /projects/<slug>/). */
  project: string;
  /** The project's name for display (last part of its directory). */
  projectName: string;
  cwd: string;
  title: string;
  /** When the matching message was written (ISO, UTC). */
  timestamp: string;
  /** What the matching text is: a prompt, an answer, a tool's input or output… or `session` (title, project). */
  kind: SearchKind;
  /** The text around the match, whitespace collapsed, with each match between « and ». */
  snippet: string;
  /** The same text without the markers, and where the matches are in it ([start, end) in UTF-16 units). */
  snippetText: string;
  highlights: [number, number][];
  /** Where the first match is in the message's indexed text ([start, end) in UTF-16 units). */
  match: [number, number];
  /** Main-thread index of the message (a subagent's message: of the call that started it); null for the
   * session itself or when unknown. */
  messageIndex: number | null;
  /** The page of the session that holds the message (1-based). */
  page: number;
  /** `m<I>`, or '' when the hit is the session as a whole. */
  anchor: string;
  /** The site path of the hit, without the site's base: `sessions/<source>/<id>/[page/N/]#m<I>`. */
  route: string;
}

/** One word or "quoted phrase" of a query, and how it is looked up. */
export interface QueryTerm {
  text: string;
  /** trigram: three or more characters, in the FTS5 trigram index; cjk: one or two CJK characters, in the
   * n-gram table; scan: anything shorter (`go`, `ls`), checked against each candidate row's text. */
  via: 'trigram' | 'cjk' | 'scan';
}

/** Splits a query into terms: words separated by spaces, or phrases in double quotes. Every term must match. */
export function parseQuery(query: string): QueryTerm[] {
  const terms: QueryTerm[] = [];
  for (const match of query.matchAll(/"([^"]*)"|(\S+)/g)) {
    const text = (match[1] ?? match[2] ?? '').trim();
    if (!text) continue;
    const chars = [...text];
    const via = chars.length >= 3 ? 'trigram' : chars.every(isCjk) && chars.length <= SHORT_GRAM ? 'cjk' : 'scan';
    terms.push({ text, via });
  }
  return terms;
}

interface Row {
  ts: string;
  kind: SearchKind;
  message_index: number | null;
  text: string;
  key: string;
  source: SourceId;
  session_id: string;
  project: string;
  project_name: string;
  cwd: string;
  title: string;
  page_starts: string | null;
}

/**
 * Searches the archive: every term of `query` must occur in one text (a prompt, an answer, a tool's input or
 * output…), as a substring, ignoring the case of ASCII letters. Newest hits first. Builds the index first if there is none (use
 * ensureSearchIndex to bring an existing one up to date).
 */
export async function searchLogbook(dataDir: string, query: string, filters: SearchFilters): Promise<SearchHit[]> {
  const terms = parseQuery(query);
  if (terms.length === 0) return [];
  if (!existsSync(searchIndexPath(dataDir))) await ensureSearchIndex(dataDir);
  const db = openSearchDb(dataDir, { readonly: true });
  try {
    const { from, order, where, params } = matching(terms, filters);
    const columns =
      'm.ts, m.kind, m.message_index, m.text, s.key, s.source, s.session_id, s.project, s.project_name, ' +
      's.cwd, s.title, s.page_starts';
    const limit = Math.max(0, filters.limit ?? 20);
    const offset = Math.max(0, filters.offset ?? 0);
    const sql =
      `SELECT ${columns} FROM ${from} JOIN sessions s ON s.id = m.session WHERE ${where} ` + `ORDER BY ${order} DESC`;
    if (filters.perSession === undefined) {
      return (db.prepare(`${sql} LIMIT ? OFFSET ?`).all(...params, limit, offset) as Row[]).map((row) =>
        toHit(row, terms),
      );
    }
    // Newest first, skipping a session's hits past the cap, and stopping once the page is full: a common word
    // reads only as many matches as it shows (a window over every match read them all).
    const cap = Math.max(0, filters.perSession);
    const perSession = new Map<string, number>();
    const rows: Row[] = [];
    let skipped = 0;
    for (const row of db.prepare(sql).iterate(...params) as IterableIterator<Row>) {
      const seen = perSession.get(row.key) ?? 0;
      if (seen >= cap) continue;
      perSession.set(row.key, seen + 1);
      if (skipped < offset) skipped += 1;
      else rows.push(row);
      if (rows.length >= limit) break;
    }
    return rows.map((row) => toHit(row, terms));
  } finally {
    db.close();
  }
}

/** How many hits a query has in all (counted up to `upTo`: `more` says there are more), and in how many sessions
 * (the filters apply; limit, offset and the cap per session do not). */
export async function countHits(
  dataDir: string,
  query: string,
  filters: SearchFilters,
  upTo = 1000,
): Promise<{ hits: number; sessions: number; more: boolean }> {
  const terms = parseQuery(query);
  if (terms.length === 0) return { hits: 0, sessions: 0, more: false };
  if (!existsSync(searchIndexPath(dataDir))) await ensureSearchIndex(dataDir);
  const db = openSearchDb(dataDir, { readonly: true });
  try {
    const { from, order, where, params } = matching(terms, filters);
    // Newest first and no further than `upTo` + 1 matches: counting every match of a common word reads the index.
    const sql =
      'SELECT count(*) AS hits, count(DISTINCT session) AS sessions FROM (' +
      `SELECT m.session AS session FROM ${from} JOIN sessions s ON s.id = m.session WHERE ${where} ` +
      `ORDER BY ${order} DESC LIMIT ?)`;
    const counted = db.prepare(sql).get(...params, upTo + 1) as { hits: number; sessions: number };
    return counted.hits > upTo ? { hits: upTo, sessions: counted.sessions, more: true } : { ...counted, more: false };
  } finally {
    db.close();
  }
}

/** The tables, order and conditions that find the messages holding every term and passing the filters. */
function matching(
  terms: QueryTerm[],
  filters: SearchFilters,
): { from: string; order: string; where: string; params: unknown[] } {
  const where: string[] = [];
  const params: unknown[] = [];
  const trigram = terms.filter((t) => t.via === 'trigram');
  const cjk = terms.filter((t) => t.via === 'cjk');
  // The table that finds candidates drives the query, newest row first (ids are in time order), so a
  // common word stops after `limit` hits.
  let from: string;
  let order: string;
  if (trigram.length > 0) {
    from = 'messages_fts f JOIN messages m ON m.id = f.rowid';
    order = 'f.rowid';
    for (const term of trigram) {
      where.push('f.text LIKE ?');
      params.push(`%${term.text}%`);
      // LIKE's own wildcards in the term match too much: the text must hold the term as typed.
      if (/[%_]/.test(term.text)) addScan(term, where, params);
    }
  } else if (cjk.length > 0) {
    from = 'messages_cjk c JOIN messages m ON m.id = c.rowid';
    order = 'c.rowid';
  } else {
    from = 'messages m';
    order = 'm.id';
  }
  if (cjk.length > 0) {
    where.push(
      trigram.length > 0
        ? 'm.id IN (SELECT rowid FROM messages_cjk WHERE messages_cjk MATCH ?)'
        : 'messages_cjk MATCH ?',
    );
    params.push(cjk.map((t) => `"${t.text}"`).join(' AND '));
  }
  for (const term of terms.filter((t) => t.via === 'scan')) addScan(term, where, params);
  if (filters.source) {
    where.push('s.source = ?');
    params.push(filters.source);
  }
  if (filters.session) {
    where.push('s.key = ?');
    params.push(filters.session);
  }
  if (filters.project) {
    where.push('(s.project = ? OR s.project_name = ? COLLATE NOCASE OR s.cwd = ?)');
    params.push(filters.project, filters.project, filters.project.replace(/(.)\/+$/, '$1'));
  }
  if (filters.since) {
    const since = dayStart(filters.since, filters.timeZone, 0);
    // The id range lets the index skip what is too old; the time decides.
    where.push(`${order} >= ?`, 'm.ts >= ?');
    params.push(rowIdFor(since), since);
  }
  if (filters.until) {
    const until = dayStart(filters.until, filters.timeZone, 1);
    // Ids of a crowded second spill into the next ones: a minute of slack.
    where.push(`${order} < ?`, 'm.ts < ?');
    params.push(rowIdFor(until) + 60 * ROWS_PER_SECOND, until);
  }
  if (filters.kinds && filters.kinds.length > 0) {
    where.push(`m.kind IN (${filters.kinds.map(() => '?').join(', ')})`);
    params.push(...filters.kinds);
  }
  return { from, order, where: where.length ? where.join(' AND ') : '1', params };
}

/** A term checked against each candidate's text: ASCII in any case (SQLite's lower() folds ASCII only),
 * anything else as typed. */
function addScan(term: QueryTerm, where: string[], params: unknown[]): void {
  if (/^[\x20-\x7e]+$/.test(term.text)) {
    where.push('instr(lower(m.text), ?) > 0');
    params.push(term.text.toLowerCase());
  } else {
    where.push('instr(m.text, ?) > 0');
    params.push(term.text);
  }
}

/** The UTC instant a day (plus `add` days) starts in a zone, as stored timestamps are written. */
function dayStart(day: string, timeZone: string, add: number): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(new TZDate(y, m - 1, d + add, timeZone).getTime()).toISOString();
}

function toHit(row: Row, terms: QueryTerm[]): SearchHit {
  const pageStarts = row.page_starts ? (JSON.parse(row.page_starts) as number[]) : undefined;
  const index = row.message_index;
  const page = pageOfMessage(pageStarts, index ?? 0);
  const anchor = index === null ? '' : messageAnchor(index);
  const snippet = snippetOf(row.text, terms);
  return {
    key: row.key,
    source: row.source,
    sessionId: row.session_id,
    project: row.project,
    projectName: row.project_name,
    cwd: row.cwd,
    title: row.title,
    timestamp: row.ts,
    kind: row.kind,
    ...snippet,
    messageIndex: index,
    page,
    anchor,
    route: `${sessionRoute(row.source, row.session_id, page)}${anchor ? `#${anchor}` : ''}`,
  };
}

const BEFORE = 60;
const AFTER = 140;

/** The text around the first match, whitespace collapsed, with every match in it marked. */
export function snippetOf(
  text: string,
  terms: QueryTerm[],
): Pick<SearchHit, 'snippet' | 'snippetText' | 'highlights' | 'match'> {
  const pattern = new RegExp(
    terms
      .map((t) => t.text)
      .sort((a, b) => b.length - a.length)
      .map((t) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('|'),
    'giu',
  );
  const first = pattern.exec(text);
  const match: [number, number] = first ? [first.index, first.index + first[0].length] : [0, 0];
  let start = Math.max(0, match[0] - BEFORE);
  let end = Math.min(text.length, match[1] + AFTER);
  if (/[\udc00-\udfff]/.test(text[start] ?? '')) start -= 1;
  if (/[\udc00-\udfff]/.test(text[end] ?? '')) end += 1;
  const snippetText =
    (start > 0 ? '…' : '') + text.slice(start, end).replace(/\s+/g, ' ').trim() + (end < text.length ? '…' : '');
  const highlights: [number, number][] = [];
  pattern.lastIndex = 0;
  for (const m of snippetText.matchAll(pattern)) highlights.push([m.index, m.index + m[0].length]);
  let snippet = '';
  let at = 0;
  for (const [from, to] of highlights) {
    snippet += `${snippetText.slice(at, from)}«${snippetText.slice(from, to)}»`;
    at = to;
  }
  snippet += snippetText.slice(at);
  return { snippet, snippetText, highlights, match };
}
