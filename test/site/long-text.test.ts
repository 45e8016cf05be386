import { describe, expect, it } from 'vitest';
import { PREVIEW_CHARS, PREVIEW_LINES, preText, splitLongText } from '../../src/site/long-text.ts';

const lines = (n: number, text = (i: number) => `line ${i}`) =>
  Array.from({ length: n }, (_, i) => text(i + 1)).join('\n');

describe('a long text on a session page', () => {
  it('is shown whole up to a screenful and a few lines', () => {
    expect(splitLongText(lines(PREVIEW_LINES + 6))).toBeUndefined();
    expect(splitLongText('x'.repeat(6000))).toBeUndefined();
  });

  it('is split after its first lines, each part once, the two making the text', () => {
    const text = lines(100);
    const split = splitLongText(text)!;
    expect(split.head).toBe(`${lines(PREVIEW_LINES)}\n`);
    expect(split.head + split.rest).toBe(text);
    expect(split.rest.startsWith(`line ${PREVIEW_LINES + 1}\n`)).toBe(true);
    expect(split).toMatchObject({ lines: 100, headLines: PREVIEW_LINES });
  });

  it('cuts a few very long lines by characters, never inside a surrogate pair', () => {
    const text = lines(3, () => `x${'😀'.repeat(2000)}`);
    const split = splitLongText(text)!;
    expect(split.head.length).toBeLessThanOrEqual(PREVIEW_CHARS);
    expect(split.head + split.rest).toBe(text);
    expect(split.head.at(-1)).toBe('\uDE00');
    expect(split.headLines).toBe(1);
  });

  it('escapes only what text content needs, and keeps a leading line break through the HTML parser', () => {
    expect(preText(`a "b" 'c' <d> & e`)).toBe(`a "b" 'c' &lt;d&gt; &amp; e`);
    expect(preText('\nfirst')).toBe('\n\nfirst');
  });
});
