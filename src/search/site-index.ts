import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { tz } from '@date-fns/tz';
import { format } from 'date-fns';
import Database from 'better-sqlite3';
import type { NormalizedMessage, SourceId } from '../model/message.ts';
import type { Session } from '../model/session.ts';
import { messageAnchor, pageOfMessage, sessionRoute } from '../model/routes.ts';
import { projectName } from '../model/project.ts';
import type { ShareSettings } from '../site/share-mode.ts';
import { BIGRAM_MARK, cjkBigrams, hasCjk } from './cjk.ts';
import { searchIndexPath } from './store.ts';
import { ensureSearchIndex } from './sync.ts';

/** The directory of the site search bundle, under the site's output. */
export const SITE_SEARCH_DIR = 'pagefind';

/**
 * One language for every record. Pagefind keeps an index per language and a page loads the one of its own
 * `<html lang>` (or the biggest when it has none of that language), so records in several languages would
 * hide each other's sessions. Under `en` Pagefind keeps a run of CJK characters as one word: the bigram form
 * below is what makes Japanese and Chinese searchable, the same way on every page.
 */
export const SITE_SEARCH_LANGUAGE = 'en';

/** A record holds this much of a long answer: the site index is downloaded in pieces by every visitor. */
export const MAX_RECORD_CHARS = 16 * 1024;

export interface SiteSearchOptions {
  dataDir: string;
  outDir: string;
  timeZone: string;
  share?: ShareSettings;
}

export interface SiteSearchResult {
  records: number;
  /** Bytes written under `<outDir>/pagefind/`. */
  bytes: number;
}

interface Row {
  ts: string;
  kind: 'prompt' | 'answer' | 'session';
  message_index: number | null;
  text: string;
  key: string;
  source: SourceId;
  session_id: string;
  cwd: string;
  title: string;
  page_starts: string | null;
}

/**
 * Writes the site's search index (Pagefind) for the sessions whose pages the site has: one record per
 * prompt and per answer, linked to its message (`#m<I>`, on the right page), and one per session (title,
 * project). Read from the CLI search index (brought up to date first, so only changed sessions are read
 * from the archive), not from the built HTML. Tool input and output are left out: they are large and
 * noisy, and `agent-logbook search` covers them. A share build indexes the redacted, anonymized text only.
 */
export async function writeSiteSearch(options: SiteSearchOptions): Promise<SiteSearchResult> {
  await ensureSearchIndex(options.dataDir);
  const pagefind = await import('pagefind');
  const { index, errors } = await pagefind.createIndex({ forceLanguage: SITE_SEARCH_LANGUAGE });
  if (!index) throw new Error(`the site search index could not be created: ${errors.join('; ')}`);
  const clean = options.share ? await shareCleaner(options.share) : undefined;
  const db = new Database(searchIndexPath(options.dataDir), { readonly: true });
  let records = 0;
  try {
    const rows = db
      .prepare(
        'SELECT m.ts, m.kind, m.message_index, m.text, s.key, s.source, s.session_id, s.cwd, s.title, s.page_starts ' +
          "FROM messages m JOIN sessions s ON s.id = m.session WHERE m.kind IN ('prompt', 'answer', 'session') " +
          'ORDER BY m.id',
      )
      .iterate() as IterableIterator<Row>;
    const built = new Map<string, boolean>();
    const sessions = new Map<string, { title: string; project: string }>();
    let pending: Promise<unknown>[] = [];
    for (const row of rows) {
      const starts = row.page_starts ? (JSON.parse(row.page_starts) as number[]) : undefined;
      const page = options.share?.single ? 1 : pageOfMessage(starts, row.message_index ?? 0);
      const route = sessionRoute(row.source, row.session_id, page);
      let exists = built.get(route);
      if (exists === undefined) built.set(route, (exists = existsSync(path.join(options.outDir, route, 'index.html'))));
      if (!exists) continue; // not in this build (--since/--until, a share of some sessions)
      let session = sessions.get(row.key);
      if (!session) {
        session = {
          title: clean ? clean(row.title) : row.title,
          project: projectName(clean ? clean(row.cwd) : row.cwd),
        };
        sessions.set(row.key, session);
      }
      const text = clean ? clean(row.text) : row.text;
      const anchor = row.message_index === null ? '' : messageAnchor(row.message_index);
      const bigrams = hasCjk(text) ? cjkBigrams(text).join(' ') : '';
      // A session's own record: its title (unless that is just its first prompt, which has a record of its
      // own), project name and directory.
      const content = text.slice(0, MAX_RECORD_CHARS);
      pending.push(
        index.addCustomRecord({
          url: `${route}${anchor ? `#${anchor}` : ''}`,
          content: bigrams ? `${content}\n${BIGRAM_MARK}${bigrams}` : content,
          language: SITE_SEARCH_LANGUAGE,
          meta: {
            title: session.title,
            source: row.source,
            project: session.project,
            date: row.ts,
            kind: row.kind,
          },
          filters: {
            source: [row.source],
            project: [session.project],
            month: [format(new Date(row.ts), 'yyyy-MM', { in: tz(options.timeZone) })],
          },
        }),
      );
      records += 1;
      // Many requests in flight to the indexer, but not all of them at once.
      if (pending.length >= 256) {
        await Promise.all(pending);
        pending = [];
      }
    }
    await Promise.all(pending);
    const target = path.join(options.outDir, SITE_SEARCH_DIR);
    // Written beside the site, then only changed files are moved in: an unchanged index keeps its bytes and
    // mtimes, as every other file of an incremental build does.
    const fresh = path.join(options.outDir, `.${SITE_SEARCH_DIR}-${process.pid}.tmp`);
    await fs.rm(fresh, { recursive: true, force: true });
    const written = await index.writeFiles({ outputPath: fresh });
    if (written.errors.length > 0)
      throw new Error(`the site search index could not be written: ${written.errors.join('; ')}`);
    await index.deleteIndex();
    // Pagefind's ready-made interfaces: the site has its own (src/scripts/search.ts).
    for (const name of await fs.readdir(fresh)) {
      if (/^pagefind-(component-ui|modular-ui|ui|highlight)\./.test(name)) await fs.rm(path.join(fresh, name));
    }
    await syncDirectory(fresh, target);
    await fs.rm(fresh, { recursive: true, force: true });
    return { records, bytes: await directoryBytes(target) };
  } finally {
    db.close();
    await pagefind.close();
  }
}

/** Text as a share build shows it (redacted, anonymized), through the same code as its pages. */
async function shareCleaner(settings: ShareSettings): Promise<(text: string) => string> {
  const { shareBody } = await import('../site/share-mode.ts');
  const carrier: Session = {
    source: 'claude-code',
    sessionId: 'search',
    title: '',
    cwd: '',
    startedAt: '',
    endedAt: '',
    models: [],
    files: [],
    messages: [],
    subagents: [],
    warnings: [],
  };
  return (text) => {
    const message: NormalizedMessage = {
      id: 'search',
      timestamp: '',
      role: 'user',
      source_type: 'message',
      segments: [{ channel: 'input', type: 'text', format: 'text', text }],
      raw: { event_type: 'search', file_path: '', line_index: 0 },
    };
    return shareBody(settings, { ...carrier, messages: [message] }).messages[0]?.segments[0]?.text ?? '';
  };
}

async function directoryBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await fs.readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

/** Makes `target` hold exactly the files of `fresh`, rewriting only files whose bytes differ. */
async function syncDirectory(fresh: string, target: string): Promise<void> {
  await fs.mkdir(target, { recursive: true });
  const wanted = new Set<string>();
  for (const entry of await fs.readdir(fresh, { withFileTypes: true })) {
    const from = path.join(fresh, entry.name);
    const to = path.join(target, entry.name);
    wanted.add(entry.name);
    if (entry.isDirectory()) {
      const existing = await fs.lstat(to).catch(() => undefined);
      if (existing && !existing.isDirectory()) await fs.rm(to, { force: true });
      await syncDirectory(from, to);
      continue;
    }
    const [next, current] = await Promise.all([fs.readFile(from), fs.readFile(to).catch(() => undefined)]);
    if (!current || !current.equals(next)) await fs.rename(from, to);
  }
  for (const name of await fs.readdir(target)) {
    if (!wanted.has(name)) await fs.rm(path.join(target, name), { recursive: true, force: true });
  }
}
