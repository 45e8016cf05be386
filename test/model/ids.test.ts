import { describe, expect, it } from 'vitest';
import { idToPathSegment, MAX_SEGMENT, splitSessionKey } from '../../src/model/ids.ts';
import { pageOfMessage, sessionRoute } from '../../src/model/routes.ts';

const hostile = [
  '',
  '.',
  '..',
  '../..',
  '../../index',
  'a/b',
  'a\\b',
  'a b',
  'a_b',
  'a~b',
  'a~7Eb',
  '日本語',
  '中国語',
  'ABC',
  'abc',
  'Abc',
  '.hidden',
  'x\u0000y',
  'x\ny',
  'e\u0301',
  'é',
  'x'.repeat(300),
  `${'x'.repeat(300)}y`,
  '日'.repeat(200),
  `${'~'.repeat(80)}`,
  '019cb1a0-0001-7000-8000-000000000001',
];

describe('idToPathSegment', () => {
  it('keeps ids that are already safe as they are', () => {
    expect(idToPathSegment('019cb1a0-0001-7000-8000-000000000001')).toBe('019cb1a0-0001-7000-8000-000000000001');
    expect(idToPathSegment('agent-a1b2.c3_d')).toBe('agent-a1b2.c3_d');
  });

  it('never maps two different ids to one name, even where the file system folds case', () => {
    const seen = new Map<string, string>();
    for (const id of hostile) {
      const folded = idToPathSegment(id).toLowerCase();
      expect(
        seen.get(folded),
        `${JSON.stringify(id)} collides with ${JSON.stringify(seen.get(folded))}`,
      ).toBeUndefined();
      seen.set(folded, id);
    }
  });

  it('gives names that are one path component, bounded, with no dot-only or hidden name', () => {
    for (const id of hostile) {
      const name = idToPathSegment(id);
      expect(name).not.toMatch(/[/\\\u0000-\u001f\u007f]/);
      expect(name).not.toMatch(/^\./);
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(MAX_SEGMENT);
      expect(name.length).toBeGreaterThan(0);
    }
  });

  it('shortens long ids with a hash of the whole id', () => {
    const a = idToPathSegment('x'.repeat(300));
    const b = idToPathSegment(`${'x'.repeat(300)}y`);
    expect(a).not.toBe(b);
    expect(a).toMatch(/^x+~~[0-9a-f]{32}$/);
  });

  it('routes a session under sessions/<source>/ whatever its id', () => {
    expect(sessionRoute('amazon-q', '../..')).toBe('sessions/amazon-q/~2E.~2F../');
    expect(sessionRoute('codex', 'abc', 3)).toBe('sessions/codex/abc/page/3/');
    expect(splitSessionKey('amazon-q/a/b')).toEqual({ source: 'amazon-q', sessionId: 'a/b' });
  });

  it('finds the page of a message', () => {
    expect(pageOfMessage(undefined, 5)).toBe(1);
    expect(pageOfMessage([0, 10, 20], 9)).toBe(1);
    expect(pageOfMessage([0, 10, 20], 10)).toBe(2);
    expect(pageOfMessage([0, 10, 20], 25)).toBe(3);
    // Every message of a session of many pages, against the definition: the last page starting at or before it.
    const starts = Array.from({ length: 2000 }, (_, i) => i * 7 + (i % 3));
    for (const index of [0, 1, 7, 8, 9, 15, 16, 17, 5000, 5001, 13_995, 13_996, 14_001, 20_000]) {
      expect(pageOfMessage(starts, index), String(index)).toBe(starts.filter((start) => start <= index).length);
    }
  });
});
