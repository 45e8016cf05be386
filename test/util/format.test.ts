import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatNumber } from '../../src/util/format.ts';
import { joiner } from '../../src/util/fs.ts';

describe('formatNumber', () => {
  it('writes what toLocaleString("en-US") writes, whole numbers without it', () => {
    const numbers = [0, -0, 1, -1, 12, 999, 1000, -1234, 12_345, 123_456, 1_234_567, Number.MAX_SAFE_INTEGER];
    for (let digits = 1; digits <= 16; digits++) numbers.push(10 ** digits - 1, -(10 ** (digits - 1) + 7));
    numbers.push(1.5, 1234.5678, 2 ** 60, Number.NaN, Number.POSITIVE_INFINITY);
    for (const n of numbers) expect(formatNumber(n), String(n)).toBe(n.toLocaleString('en-US'));
  });
});

describe('joiner', () => {
  it('joins a listed name to its folder as path.join does', () => {
    const dirs = ['/', '/a', '/a/', '/a/b/', 'a', 'a/b', './a', '../a', '..', '.', '', '/a/./b', '/a//b', '/a/b/..'];
    const names = ['x', '.x', '..x', 'x y', 'a\\b', '.', '..', '...', '-'];
    for (const dir of dirs)
      for (const name of names) expect(joiner(dir)(name), `${dir} + ${name}`).toBe(path.join(dir, name));
  });
});
