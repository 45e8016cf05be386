import { describe, expect, it } from 'vitest';
import { markdownAsPlainText } from '../../src/transcript/markdown-plain-text.ts';

describe('markdownAsPlainText', () => {
  it.each([
    ['## A heading ##', 'A heading'],
    ['- [x] Read package.json', 'Read package.json'],
    ['12. twelfth', 'twelfth'],
    ['2024 was a year', '2024 was a year'],
    ['> > quoted twice', 'quoted twice'],
    ['| a | **b** |', 'a · b'],
    ['|---|:--:|', ''],
    ['***', ''],
    ['**bold**, _it_, *em* and ~~gone~~', 'bold, it, em and gone'],
    [
      'see [the docs](https://example.com/a "t") or <https://example.com/b>',
      'see the docs (https://example.com/a) or https://example.com/b',
    ],
    ['![a cat](cat.png)', 'a cat'],
    ['call `__init__` with `a * b`', 'call __init__ with a * b'],
    ['\\*not emphasis\\*', '*not emphasis*'],
    ['snake_case_name and 2 * 3 * 4', 'snake_case_name and 2 * 3 * 4'],
    ['plain words, 123 and ログイン画面の修正', 'plain words, 123 and ログイン画面の修正'],
    ['a private-use \ue005 character stays', 'a private-use \ue005 character stays'],
  ])('%j as %j', (markdown, plain) => {
    expect(markdownAsPlainText(markdown)).toBe(plain);
  });

  it('keeps a fence as written, without the fence', () => {
    expect(markdownAsPlainText('before\n```sh\n# a comment\n**kept**\n```\nafter *x*')).toBe(
      'before\n# a comment\n**kept**\nafter x',
    );
  });
});
