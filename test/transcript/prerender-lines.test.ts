import { describe, expect, it } from 'vitest';
import { isSelfSanitized } from '../../src/transcript/markdown.ts';
import { lineMayNeedSanitizer } from '../../src/transcript/prerender-body.ts';
import { XSS_PAYLOADS } from '../fixtures/xss-payloads.ts';

/** A response's line as the archive writes it. */
function line(text: string, kind = 'response'): Buffer {
  const message = {
    id: 'm1',
    role: 'assistant',
    source_type: 'assistant_message',
    timestamp: '2026-03-05T08:20:00.000Z',
    segments: [{ channel: 'assistant', type: 'text', text }],
    metadata: { kind },
  };
  return Buffer.from(JSON.stringify({ thread: 'main', message }));
}

const PIECES = [
  'text ',
  '[',
  ']',
  '(',
  ')',
  ':',
  '!',
  '<',
  '>',
  '`',
  '```',
  '~~~',
  '\n',
  '\n\n',
  ' ',
  'javascript:alert(1)',
  'https://x.example/',
  'ftp://x',
  'XMPP:a@b',
  'Ftp:',
  '"',
  "'",
  '*',
  '_',
  '#',
  '- ',
  '1. ',
  '|',
  'img',
  '&lt;',
  '\\',
  'www.x.example',
  'a@b.example',
  'mailto:a@b',
  '日本語',
  'ts',
  'c++',
  'x-y_1',
  '\t',
  '\r\n',
  '\f',
  '\u000b',
  '\u00a0',
  '\u3000',
  '\u0008',
  '````',
  '~~~~',
  ' ts ',
  '{',
  '=',
];

describe('the Markdown pass parses a line', () => {
  it('whenever its Markdown needs the sanitizer: every XSS payload, and 60,000 random texts of Markdown pieces', () => {
    let needing = 0;
    const check = (text: string) => {
      if (isSelfSanitized(text)) return;
      needing += 1;
      expect(lineMayNeedSanitizer(line(text)), JSON.stringify(text)).toBe(true);
      expect(lineMayNeedSanitizer(line(text, 'compact_summary')), JSON.stringify(text)).toBe(true);
    };
    for (const payload of XSS_PAYLOADS) check(payload);
    let seed = 29;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    for (let i = 0; i < 60_000; i++) {
      let text = '';
      for (let n = 1 + Math.floor(random() * 12); n > 0; n--) text += PIECES[Math.floor(random() * PIECES.length)];
      check(text);
    }
    expect(needing).toBeGreaterThan(5_000);
  });

  it('not for plain prose, links that are safe as written, nor a kind that is not Markdown', () => {
    for (const text of [
      'Done: the tests pass.',
      'See https://x.example/a and www.x.example.',
      '- [x] 日本語 [a] b',
      '```ts\nconst a = 1;\n```\n\n~~~ c++\nint b;\n~~~',
    ])
      expect(lineMayNeedSanitizer(line(text)), text).toBe(false);
    expect(lineMayNeedSanitizer(line('<b>typed</b> by the user', 'prompt'))).toBe(false);
  });
});
