import { describe, expect, it } from 'vitest';
import { bundleRecord } from '../../../src/site/search/site-records.ts';
import { textBundleBytes } from '../../../src/site/search/site-shard.ts';
import { indexQuery, queryWords, wordRuns } from '../../../src/search/cjk.ts';
import {
  type BundlePage,
  bundlePage,
  bundlePages,
  distinctWords,
  pageText,
  type RecordSection,
} from '../../../src/transcript/page-record.ts';

const section = (text: string): RecordSection => ({ anchor: 'm1', kind: 'prompt', timestamp: '', text });

describe('what Pagefind indexes of a bundle', () => {
  it('each word once, as first written, whatever its case', () => {
    expect(
      distinctWords([section('Error in  the\tbuild'), section('ERROR error the Build 画面 build'), section('\n')]),
    ).toEqual(['Error', 'in', 'the', 'build', '画面']);
  });

  it('a word whose lower case differs in length (İ) once', () => {
    expect(distinctWords([section('İstanbul i̇stanbul İSTANBUL')])).toEqual(['İstanbul']);
  });

  it('the runs of letters and digits of each word, and CJK bigrams, each once', () => {
    const page = (url: string, ...texts: string[]): BundlePage => ({
      url,
      meta: {},
      filters: { source: ['claude-code'] },
      sections: texts.map(section),
    });
    const record = bundleRecord(
      [
        page('/a/', 'Fix ログイン画面', 'fix the 画面のバグ'),
        page('/b/', 'ログイン to 画面 再度 画面form compute(171, "the"'),
      ],
      's0001/text/x.pf_text',
      'en',
    );
    const content = record.content.split(' ');
    expect(content).toEqual([
      ...['Fix', 'ログ', 'グイ', 'イン', 'ン画', '画面', 'the', '面の', 'のバ', 'バグ'],
      ...['to', '再度', 'form', 'compute', '171'],
    ]);
    // Each term is one a query would look up (queryWords): no whole CJK run, no word with its punctuation.
    for (const query of ['ログイン画面', '画面のバグ', '画面form', 'compute(171'])
      for (const term of indexQuery(queryWords(query).words).split(' ')) expect(content).toContain(term);
    expect(content).not.toContain('ログイン画面');
    expect(record).toMatchObject({
      url: '/a/',
      meta: { text: 's0001/text/x.pf_text' },
      filters: { source: ['claude-code'] },
    });
  });

  it('finds a bundle for any word of its text, or the start of one, as typed', () => {
    const texts = [
      'const value0 = compute(171, "修正 otherwise"); // valid',
      'see /home/bench/work/project-4/src/file0.ts:12 and https://example.com/a?b=1&c=2',
      "don't use v1.5.2-beta_3 or foo-bar; call getUserName() — café 3.14",
      'see src/AuthCallback.ts, hashlib.sha256(data) and React.useEffect(() 🎉',
    ];
    const content = bundleRecord(
      texts.map((text, i) => ({ url: `/${i}/`, meta: {}, filters: {}, sections: [section(text)] })),
      'x',
      'en',
    ).content.toLowerCase();
    const terms = content.split(' ');
    for (const text of texts)
      for (const word of text.split(' ')) {
        // The word, and each of its starts of two characters or more (Pagefind matches a term as a prefix).
        for (let end = 2; end <= word.length; end++) {
          const query = indexQuery(queryWords(word.slice(0, end)).words).toLowerCase();
          for (const term of query.split(' ').filter((t) => /[\p{L}\p{N}]/u.test(t)))
            expect(
              terms.some((indexed) => indexed.startsWith(term)),
              `${word.slice(0, end)}: ${term}`,
            ).toBe(true);
        }
      }
    // The parts Pagefind gives a word with punctuation in it: camelCase, letters and digits, emoji.
    for (const query of ['callback', 'Callback', '256', 'effect', 'user', '🎉'])
      for (const term of indexQuery(queryWords(query).words).toLowerCase().split(' '))
        expect(
          terms.some((indexed) => indexed.startsWith(term)),
          `${query}: ${term}`,
        ).toBe(true);
    expect(wordRuns('src/AuthCallback.ts')).toEqual(['src', 'AuthCallback', 'Auth', 'Callback', 'ts']);
    expect(wordRuns('AuthCallback')).toEqual(['AuthCallback']);
    expect(wordRuns('compute(171,')).toEqual(['compute', '171']);
    expect(wordRuns('=>')).toEqual([]);
    // A query with no letter or digit is looked up as typed (and finds nothing, as before).
    expect(indexQuery(['=>'])).toBe('=>');
    expect(indexQuery(['v1.5.2', '画面'])).toBe('v1 v 1 5 2 画面');
  });
});

describe('a text file', () => {
  it('is the pages’ entries as one JSON array, encoded a page at a time', () => {
    const entries = [
      pageText({ url: '/a/', meta: { title: 'ログイン' }, filters: {} }, [
        { anchor: 'm1', kind: 'prompt', timestamp: '', text: '画面を直して 🎉 "q"' },
      ]),
      pageText({ url: '/b/', meta: {}, filters: { source: ['codex'] } }, []),
      '[]',
    ];
    for (const count of [0, 1, 3]) {
      const texts = entries.slice(0, count);
      const bytes = textBundleBytes(texts);
      expect(bytes.toString('utf8')).toBe(`[${texts.join(',')}]`);
      expect(bundlePages(bytes.toString('utf8'))).toEqual(texts.map((t) => JSON.parse(t) as unknown));
    }
    expect(bundlePage(bundlePages(textBundleBytes(entries).toString('utf8'))[0])!.sections[0]!.text).toBe(
      '画面を直して 🎉 "q"',
    );
  });
});
