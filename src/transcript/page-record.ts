/**
 * The site search's record, shared by the index writer (src/site/search/) and the search box
 * (src/site/client/search.ts), so it imports nothing from Node.
 *
 * Pagefind finds a **bundle** of consecutive session pages (~100,000 characters of text); the search box then
 * finds the pages and the messages in it that hold the query and makes the snippets itself. So Pagefind gets
 * one record per bundle, not per page: its time and its files (a fragment per record) grow with the records,
 * and a static host counts files. What it indexes (the content) is each distinct word of the bundle once, then
 * the CJK bigrams of its pages: repeats add nothing to finding a bundle. What the search box shows is not in
 * Pagefind's fragments but in a gzip file of our own beside the shard (the record's meta `text` names it,
 * `<shard>/text/<hash>.pf_text`): for each page its URL, its meta (title, source, project, date, page), its
 * filter values, and its sections (which message each is: anchor, kind, time; and its text).
 */
/** The extension of a page's text file: not `.gz`, which some hosts serve as gzip-encoded. */
export const TEXT_FILE_EXTENSION = '.pf_text';
/**
 * In each shard: which text file each of its Pagefind records names, by the record's id (its fragment's name),
 * as `{ "<id>": "<shard>/text/<hash>.pf_text" }`. With it the search box fetches a found bundle's text at once,
 * without reading its fragment first.
 */
export const TEXT_MAP_FILE = 'texts.json';

export type SectionKind = 'session' | 'prompt' | 'answer';

export interface RecordSection {
  /** The anchor of its message in the page (`m<I>`); empty for the session's own section. */
  anchor: string;
  kind: SectionKind;
  timestamp: string;
  text: string;
}

/** Each distinct word of a bundle's sections once, as first written, whatever its case (what Pagefind
 * indexes of it, with the CJK bigrams of these words). A word is lower-cased only the first time it is seen as
 * written. With `termsOf`, each distinct word gives the terms it adds (`add`), and the terms are what is kept
 * once, by the same rule. */
export function distinctWords(
  sections: RecordSection[],
  termsOf: (word: string, add: (term: string) => void) => void = (word, add) => add(word),
): string[] {
  const words = new Set<string>();
  const seen = new Set<string>();
  const terms: string[] = [];
  const add = (term: string) => {
    if (!term || seen.has(term)) return;
    seen.add(term);
    const key = term.toLowerCase();
    if (key !== term) {
      if (seen.has(key)) return;
      seen.add(key);
    }
    terms.push(term);
  };
  for (const section of sections) {
    for (const word of section.text.split(/\s+/)) {
      if (!word || words.has(word)) continue;
      words.add(word);
      termsOf(word, add);
    }
  }
  return terms;
}

/** A page of a bundle: where it is, what the search box says of it, what the filters see, and its texts. */
export interface BundlePage {
  url: string;
  meta: Record<string, string>;
  filters: Record<string, string[]>;
  sections: RecordSection[];
}

/** A page's entry in a text file (before gzip): `[url, meta, filters, [[anchor, kind, timestamp, text], …]]`. */
export function pageText(page: Omit<BundlePage, 'sections'>, sections: RecordSection[]): string {
  return JSON.stringify([
    page.url,
    page.meta,
    page.filters,
    sections.map((s) => [s.anchor, s.kind, s.timestamp, s.text]),
  ]);
}

/** The pages' entries of a text file (after gunzip), parsed; none when it is not JSON. */
export function bundlePages(json: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

const isStringRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A page of a text file, from its entry; undefined when it is not of that shape. */
export function bundlePage(parsed: unknown): BundlePage | undefined {
  if (!Array.isArray(parsed) || parsed.length < 4) return undefined;
  const [url, meta, filters, sections] = parsed as unknown[];
  if (typeof url !== 'string' || !isStringRecord(meta) || !isStringRecord(filters) || !Array.isArray(sections))
    return undefined;
  return {
    url,
    meta: Object.fromEntries(Object.entries(meta).filter((e): e is [string, string] => typeof e[1] === 'string')),
    filters: Object.fromEntries(
      Object.entries(filters).map(([name, values]) => [
        name,
        Array.isArray(values) ? values.filter((v): v is string => typeof v === 'string') : [],
      ]),
    ),
    sections: sections
      .filter((entry): entry is string[] => Array.isArray(entry) && entry.every((v) => typeof v === 'string'))
      .map(([anchor = '', kind = 'answer', timestamp = '', text = '']) => ({
        anchor,
        kind: kind as SectionKind,
        timestamp,
        text,
      })),
  };
}
