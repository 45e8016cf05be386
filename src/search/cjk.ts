/**
 * Chinese, Japanese and Korean text has no spaces between words, so word-based search finds nothing inside
 * it. Both indexes add the short character sequences (n-grams) of every CJK run as extra indexed terms.
 */
const CJK_CHAR = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u3006\u30fc\uff70]/u;
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u3006\u30fc\uff70]+/gu;

export function isCjk(char: string): boolean {
  return CJK_CHAR.test(char);
}

export function hasCjk(text: string): boolean {
  return CJK_CHAR.test(text);
}

/** Every maximal run of CJK characters in a text. */
export function cjkRuns(text: string): string[] {
  return text.match(CJK_RUN) ?? [];
}

/**
 * The distinct n-grams of length 1..`upTo` (in code points) of the CJK runs of a text, in first-seen order.
 * A CJK-only query of at most `upTo` characters is a substring of the text exactly when it is one of them.
 */
export function cjkGrams(text: string, upTo: number): string[] {
  const grams = new Set<string>();
  for (const run of cjkRuns(text)) {
    const chars = [...run];
    for (let i = 0; i < chars.length; i++) {
      let gram = '';
      for (let n = 0; n < upTo && i + n < chars.length; n++) {
        gram += chars[i + n];
        grams.add(gram);
      }
    }
  }
  return [...grams];
}

/**
 * The site index's form of CJK text: the distinct two-character sequences of every CJK run (a run of one
 * character is kept as it is), space-separated, so that a search engine that splits on spaces finds any
 * substring of two or more characters by looking up the bigrams of the query (see queryWords).
 */
export function cjkBigrams(text: string): string[] {
  const grams = new Set<string>();
  for (const run of cjkRuns(text)) {
    const chars = [...run];
    if (chars.length === 1) grams.add(chars[0]!);
    for (let i = 0; i + 1 < chars.length; i++) grams.add(chars[i]! + chars[i + 1]!);
  }
  return [...grams];
}

/**
 * A query as the site index is searched: words without CJK stay as they are; every CJK run becomes its
 * bigrams (the same form the index holds). `runs` are the CJK runs a hit must hold as they are: bigrams
 * found apart from each other are not a match.
 */
export function queryWords(query: string): { words: string[]; runs: string[] } {
  const words: string[] = [];
  const runs: string[] = [];
  for (const term of query.split(/\s+/).filter(Boolean)) {
    const parts = term.split(
      /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3005\u3006\u30fc\uff70]+)/u,
    );
    for (const part of parts) {
      if (!part) continue;
      if (hasCjk(part)) {
        runs.push(part);
        words.push(...cjkBigrams(part));
      } else {
        words.push(part);
      }
    }
  }
  return { words, runs };
}

const RUNS = /[\p{Alphabetic}\p{N}]+|\p{Extended_Pictographic}/gu;
/** Where Pagefind splits a compound into parts: a lower-case letter before an upper-case one, letters and digits. */
const PART_BOUNDARY = /(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N})|(?<=\p{N})(?=\p{L})/u;
/** Most words: letters and digits only, which Pagefind takes whole. */
const ASCII_WORD = /^[A-Za-z0-9]+$/;

/**
 * A word's terms in the site index, and what a query's word is looked up by: its runs of letters and digits,
 * and for a word that holds anything else, each run's parts as well (`AuthCallback` and `Auth`, `Callback`;
 * `sha256` and `sha`, `256`) and its emoji. Given the word itself, Pagefind drops its other characters and
 * indexes the rest joined as well as those parts (`compute(171,` as `compute171`, `compute` and `171`). On code
 * and paths the joined form is a term nobody types, and it was most of the indexer's work. Looked up by the
 * same terms (each matched as a prefix), a bundle whose text holds the word typed is still found; the search
 * box then checks the text itself.
 */
export function wordRuns(word: string): string[] {
  if (ASCII_WORD.test(word)) return [word];
  const terms: string[] = [];
  for (const run of word.match(RUNS) ?? []) {
    terms.push(run);
    const parts = run.split(PART_BOUNDARY);
    if (parts.length > 1) terms.push(...parts);
  }
  return terms;
}

/** What the site index is searched for, from a query's words (queryWords): their runs of letters and digits,
 * or the words as they are when they have none (Pagefind then finds nothing, as for any such query). */
export function indexQuery(words: string[]): string {
  const runs = words.flatMap(wordRuns);
  return (runs.length > 0 ? runs : words).join(' ');
}
