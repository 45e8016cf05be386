import { describe, expect, it } from 'vitest';
import { bundleRecord } from '../../../src/site/search/site-records.ts';
import { textBundleBytes } from '../../../src/site/search/site-shard.ts';
import { queryWords } from '../../../src/search/cjk.ts';
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

  it('the words without CJK, then what a query looks up of the others: CJK bigrams and the rest, each once', () => {
    const page = (url: string, ...texts: string[]): BundlePage => ({
      url,
      meta: {},
      filters: { source: ['claude-code'] },
      sections: texts.map(section),
    });
    const record = bundleRecord(
      [page('/a/', 'Fix ログイン画面', 'fix the 画面のバグ'), page('/b/', 'ログイン to 画面 再度 画面form')],
      's0001/text/x.pf_text',
      'en',
    );
    const content = record.content.split(' ');
    expect(content.slice(0, 3)).toEqual(['Fix', 'the', 'to']);
    expect(content.slice(3).sort()).toEqual(
      ['ログ', 'グイ', 'イン', 'ン画', '画面', '面の', 'のバ', 'バグ', '再度', 'form'].sort(),
    );
    // Each term is one a query would look up (queryWords): no whole CJK run.
    for (const query of ['ログイン画面', '画面のバグ', '画面form'])
      for (const term of queryWords(query).words) expect(content).toContain(term);
    expect(content).not.toContain('ログイン画面');
    expect(record).toMatchObject({
      url: '/a/',
      meta: { text: 's0001/text/x.pf_text' },
      filters: { source: ['claude-code'] },
    });
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
