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
