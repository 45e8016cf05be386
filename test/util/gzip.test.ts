import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { gzipForSite, gzipTextsForSite } from '../../src/util/gzip.ts';

async function bytesOf(stream: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('gzipTextsForSite', () => {
  it('gzips texts of any size one after another, a character never cut, as gzipping them joined does', async () => {
    const emoji = '🙂'; // two UTF-16 units, four bytes
    const texts = [
      '# A session\n',
      '',
      'ログインの画面を修正しました。'.repeat(9000), // ~135 k characters of three bytes each
      `${'a'.repeat(21_844)}${emoji}${'b'.repeat(5)}`, // the pair straddles where a third of the buffer ends
      emoji.repeat(40_000),
      ...Array.from({ length: 3000 }, (_, i) => `\n\nitem ${i} ${'x'.repeat(i % 97)} 検索`),
    ];
    const joined = texts.join('');
    const gzipped = await bytesOf(gzipTextsForSite(texts));
    expect(gunzipSync(gzipped).toString('utf8')).toBe(joined);
    expect(gzipped.equals(gzipForSite(joined))).toBe(true);
  });

  it('gives an empty text an empty file', async () => {
    expect(gunzipSync(await bytesOf(gzipTextsForSite([]))).length).toBe(0);
  });
});
