/**
 * The site search's record: one per session page, shared by the index writer (site-index.ts) and the search
 * box (src/site/client/search.ts), so it imports nothing from Node.
 *
 * Pagefind finds the page; the search box then finds the message in it and makes the snippet itself. So
 * what Pagefind indexes (the content) is each distinct word of the page once, then the CJK bigrams of the
 * page: Pagefind's time grows with the bytes it is given, and repeats add nothing to finding a page. What
 * the search box shows is not in Pagefind's fragments but in a gzip file of our own beside the shard, with the
 * texts of the pages before and after it (the record's meta `text` names the file and the page's place in it,
 * `<shard>/text/<hash>.pf_text#<n>`), fetched for the pages a query found: the page's sections, which message
 * each is (its anchor, kind and time) and its text. Kept out of Pagefind, it halves Pagefind's time.
 */

/** The extension of a page's text file: not `.gz`, which some hosts serve as gzip-encoded. */
export const TEXT_FILE_EXTENSION = '.pf_text';

export type SectionKind = 'session' | 'prompt' | 'answer';

export interface RecordSection {
  /** The anchor of its message in the page (`m<I>`); empty for the session's own section. */
  anchor: string;
  kind: SectionKind;
  timestamp: string;
  text: string;
}

/** What Pagefind indexes for a page: each distinct word once, then the bigrams of its CJK text. */
export function recordContent(sections: RecordSection[], bigrams: string[]): string {
  const seen = new Set<string>();
  let content = '';
  for (const section of sections) {
    for (const word of section.text.split(/\s+/)) {
      const key = word.toLowerCase();
      if (!word || seen.has(key)) continue;
      seen.add(key);
      content += `${word} `;
    }
  }
  return content + bigrams.join(' ');
}

/** A page's text file (before gzip): its sections as `[anchor, kind, timestamp, text]`. */
export function pageText(sections: RecordSection[]): string {
  return JSON.stringify(sections.map((s) => [s.anchor, s.kind, s.timestamp, s.text]));
}

/** A text file (before gzip): the texts (`pageText`) of several pages, the n-th page's at index n. */
export function textBundle(pageTexts: string[]): string {
  return `[${pageTexts.join(',')}]`;
}

/** The pages' texts of a text file (after gunzip), parsed; none when it is not JSON. */
export function bundlePages(json: string): unknown[] {
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed : [];
  } catch {
    return [];
  }
}

/** The sections of a page, from its entry in a text file; none when it is not of that shape. */
export function pageSections(parsed: unknown): RecordSection[] {
  if (!Array.isArray(parsed)) return [];
  return parsed
    .filter((entry): entry is string[] => Array.isArray(entry) && entry.every((v) => typeof v === 'string'))
    .map(([anchor = '', kind = 'answer', timestamp = '', text = '']) => ({
      anchor,
      kind: kind as SectionKind,
      timestamp,
      text,
    }));
}
