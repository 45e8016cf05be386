import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { gzipForSite } from '../../util/gzip.ts';
import type { ShareSettings } from '../../privacy/share-mode.ts';
import {
  bundleRecord,
  messageRange,
  type PageRecord,
  type RecordOptions,
  sessionRecords,
  type SiteSession,
} from './site-records.ts';
import { TEXT_FILE_EXTENSION, TEXT_MAP_FILE } from '../../transcript/page-record.ts';
import { PageTextCache, readSessionTexts, type SessionTexts } from '../../transcript/page-texts.ts';
import { importModule } from '../../util/import-module.ts';

/**
 * One language for every record. Pagefind keeps an index per language and a page loads the one of its own
 * `<html lang>` (or the biggest when it has none of that language), so records in several languages would
 * hide each other's sessions. Under `en` Pagefind keeps a run of CJK characters as one word: the bigram form
 * (site-record.ts) is what makes Japanese and Chinese searchable, the same way on every page.
 */
export const SITE_SEARCH_LANGUAGE = 'en';

/** In each shard: the text files of its pages (see page-record.ts). */
const TEXT_DIR = 'text';
/**
 * Consecutive pages go into one bundle (one Pagefind record and one text file) until it holds this many
 * characters (~70 kB gzipped): a record and a file a page would put a history of thousands of sessions over the
 * file limits of static hosts and cost Pagefind a record each, and a search fetches a few such files at most
 * (the pages of a shard are in the order of their sessions, so one session's pages share one).
 */
const TEXT_BUNDLE_CHARS = 250_000;
/** Records handed to Pagefind and not yet taken in, at most (about this many bundles' texts in memory). */
const IN_FLIGHT_RECORDS = 16;

/** Reads sessions' texts from the archive for the text cache (see page-texts.ts). */
export interface ReadJob {
  dataDir: string;
  sessions: { key: string; body: string; pageStarts: number[] | undefined }[];
}

export type ReadResult = { key: string; texts: SessionTexts }[];

export function readTexts(job: ReadJob): ReadResult {
  return job.sessions.map(({ key, ...source }) => ({ key, texts: readSessionTexts(job.dataDir, source) }));
}

export interface ShardJob {
  dataDir: string;
  timeZone: string;
  share?: ShareSettings;
  /** The shard's name: its directory under the site's pagefind/. */
  shard: string;
  sessions: SiteSession[];
  /** A new directory to write the shard's bundle into. */
  outputPath: string;
}

export interface ShardWritten {
  pages: number;
  /** Characters of the pages' text. */
  chars: number;
}

/**
 * Writes one shard: a record and a text file per bundle of its sessions' pages (see page-record.ts), from the
 * text cache, indexed by Pagefind into `outputPath`. Each thread that writes shards (workers, see
 * site-shard-worker.ts, or the build's own for a single shard) has a Pagefind indexer process of its own.
 */
export async function writeShard(job: ShardJob): Promise<ShardWritten> {
  const options: RecordOptions = {
    timeZone: job.timeZone,
    language: SITE_SEARCH_LANGUAGE,
    single: job.share?.single,
    clean: job.share ? await shareCleaner(job.share) : undefined,
  };
  const cache = new PageTextCache(job.dataDir, { readonly: true });
  const pagefind = await importModule<typeof import('pagefind')>('pagefind');
  try {
    const { index, errors } = await pagefind.createIndex({ forceLanguage: SITE_SEARCH_LANGUAGE });
    if (!index) throw new Error(errors.join('; '));
    await fs.mkdir(path.join(job.outputPath, TEXT_DIR), { recursive: true });
    let pages = 0;
    let chars = 0;
    // Records are handed to Pagefind without waiting for the one before (its indexer works while the next
    // bundle's records are made), up to IN_FLIGHT_RECORDS at a time: a huge session's would otherwise queue
    // in this thread. A bundle's records wait for it to be full, as their meta names its file.
    let added: Promise<{ errors: string[] }>[] = [];
    const failed: string[] = [];
    const writes: Promise<void>[] = [];
    let bundle: PageRecord[] = [];
    let bundleChars = 0;
    const flush = async () => {
      if (bundle.length === 0) return;
      const gzipped = gzipForSite(textBundleBytes(bundle.map((entry) => entry.text)));
      // Named by its bytes as written: hashing the gzip is a quarter of the work of hashing the text.
      const name = `${createHash('sha256').update(gzipped).digest('hex').slice(0, 20)}${TEXT_FILE_EXTENSION}`;
      writes.push(fs.writeFile(path.join(job.outputPath, TEXT_DIR, name), gzipped));
      added.push(
        index.addCustomRecord(
          bundleRecord(
            bundle.map((entry) => entry.page),
            `${job.shard}/${TEXT_DIR}/${name}`,
            SITE_SEARCH_LANGUAGE,
          ),
        ),
      );
      bundle = [];
      bundleChars = 0;
      if (added.length >= IN_FLIGHT_RECORDS) {
        failed.push(...(await Promise.all(added)).flatMap((r) => r.errors));
        added = [];
      }
    };
    for (const session of job.sessions) {
      const { from, to } = messageRange(session, options.single);
      for (const page of sessionRecords(
        cache.mainRows(session.key, from, to),
        cache.subagentRows(session.key),
        session,
        options,
      )) {
        chars += page.text.length;
        pages += 1;
        bundle.push(page);
        bundleChars += page.text.length;
        if (bundleChars >= TEXT_BUNDLE_CHARS) await flush();
      }
    }
    await flush();
    failed.push(...(await Promise.all(added)).flatMap((r) => r.errors));
    await Promise.all(writes);
    if (failed.length > 0) throw new Error(failed.join('; '));
    const written = await index.writeFiles({ outputPath: job.outputPath });
    if (written.errors.length > 0) throw new Error(written.errors.join('; '));
    await index.deleteIndex();
    await writeTextMap(job.outputPath);
    // Pagefind's ready-made interfaces: the site has its own (src/site/client/search.ts).
    for (const name of await fs.readdir(job.outputPath)) {
      if (/^pagefind-(component-ui|modular-ui|ui|highlight)\./.test(name)) await fs.rm(path.join(job.outputPath, name));
    }
    return { pages, chars };
  } finally {
    cache.close();
    await pagefind.close();
  }
}

/** A text file (before gzip): the entries (`pageText`) of its pages as one JSON array, encoded a page at a time
 * (as one string, a bundle's ~250,000 characters would first be copied whole, to two bytes a character once any
 * is CJK: see threadBytes in site/components/thread-html.ts). */
export function textBundleBytes(pageTexts: string[]): Buffer {
  const parts: Buffer[] = [];
  for (const [i, text] of pageTexts.entries()) {
    if (i > 0) parts.push(COMMA);
    parts.push(Buffer.from(text));
  }
  return Buffer.concat([OPEN, ...parts, CLOSE]);
}

const [OPEN, COMMA, CLOSE] = ['[', ',', ']'].map((mark) => Buffer.from(mark)) as [Buffer, Buffer, Buffer];

/** Pagefind's fragment files are gzip of this signature then the fragment's JSON. */
const FRAGMENT_SIGNATURE = 'pagefind_dcd';

/** Writes the shard's TEXT_MAP_FILE from the fragments Pagefind wrote: each record's id and its meta `text`. */
async function writeTextMap(outputPath: string): Promise<void> {
  const dir = path.join(outputPath, 'fragment');
  const map: Record<string, string> = {};
  for (const name of (await fs.readdir(dir)).sort()) {
    if (!name.endsWith('.pf_fragment')) continue;
    const raw = gunzipSync(await fs.readFile(path.join(dir, name))).toString('utf8');
    if (!raw.startsWith(FRAGMENT_SIGNATURE)) throw new Error(`${name}: not a Pagefind fragment`);
    const fragment = JSON.parse(raw.slice(FRAGMENT_SIGNATURE.length)) as { meta?: { text?: string } };
    if (fragment.meta?.text) map[name.slice(0, -'.pf_fragment'.length)] = fragment.meta.text;
  }
  await fs.writeFile(path.join(outputPath, TEXT_MAP_FILE), `${JSON.stringify(map)}\n`);
}

export type SiteSearchTask = ({ type: 'read' } & ReadJob) | ({ type: 'shard' } & ShardJob);
export type SiteSearchTaskResult =
  | { ok: true; type: 'read'; texts: ReadResult }
  | ({ ok: true; type: 'shard' } & ShardWritten)
  | { ok: false; error: string };

/** A task of the site search, in a worker (site-shard-worker.ts) or, when it is the only one, on this thread. */
export async function runSiteSearchTask(task: SiteSearchTask): Promise<SiteSearchTaskResult> {
  try {
    if (task.type === 'read') return { ok: true, type: 'read', texts: readTexts(task) };
    return { ok: true, type: 'shard', ...(await writeShard(task)) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** Text as a share build shows it: through the share lens, like every other share output. */
async function shareCleaner(settings: ShareSettings): Promise<(text: string) => string> {
  const { shareLens } = await import('../../privacy/share-lens.ts');
  return shareLens(settings).text;
}
