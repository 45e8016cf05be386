import { describe, expect, it } from 'vitest';
import { textHash } from '../../src/util/text-hash.ts';

describe('textHash', () => {
  it('is 16 hex digits, the same for the same text and different for a changed, moved or added character', () => {
    const text = JSON.stringify([
      ['019a-1', '/home/alice/work/app'],
      ['019a-2', null],
    ]);
    expect(textHash(text)).toMatch(/^[0-9a-f]{16}$/);
    expect(textHash(text)).toBe(textHash(JSON.stringify(JSON.parse(text))));
    const variants = [
      text.replace('alice', 'alicf'),
      JSON.stringify([
        ['019a-2', null],
        ['019a-1', '/home/alice/work/app'],
      ]),
      `${text} `,
      text.slice(0, -1),
      '',
      '\u00e9',
      'e\u0301',
    ];
    const hashes = new Set([text, ...variants].map(textHash));
    expect(hashes.size).toBe(variants.length + 1);
  });
});
