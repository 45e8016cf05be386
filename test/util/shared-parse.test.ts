import { describe, expect, it } from 'vitest';
import { sharedParse, sharedParseAsync } from '../../src/util/shared-parse.ts';

describe('a parse shared by the readers of one process', () => {
  it('is parsed once per stamp, and again when the stamp changes', () => {
    let parses = 0;
    const parse = () => [{ id: `s${++parses}`, files: ['a.jsonl'] }];
    const first = sharedParse('/data/index/sessions.json', '10:1:7', parse);
    const second = sharedParse('/data/index/sessions.json', '10:1:7', parse);
    expect(second).toBe(first);
    expect(parses).toBe(1);
    const grown = sharedParse('/data/index/sessions.json', '12:2:7', parse);
    expect(grown[0]!.id).toBe('s2');
    // Another file is another entry.
    expect(sharedParse('/other/index/sessions.json', '10:1:7', parse)[0]!.id).toBe('s3');
    // A missing file (no stamp) is parsed every time, and not frozen: nothing else reads it.
    const unshared = sharedParse('/data/gone.json', undefined, parse);
    expect(unshared[0]!.id).toBe('s4');
    expect(Object.isFrozen(unshared)).toBe(false);
  });

  it('is frozen to its leaves: a reader that writes into it fails, and must copy', () => {
    const value = sharedParse('/data/frozen.json', '1:1:1', () => [{ id: 'a', files: ['x'], tokens: { input: 1 } }]);
    expect(() => {
      (value[0] as { id: string }).id = 'b';
    }).toThrow(TypeError);
    expect(() => (value[0]!.files as string[]).push('y')).toThrow(TypeError);
    expect(() => {
      (value[0]!.tokens as { input: number }).input = 2;
    }).toThrow(TypeError);
    const copy = { ...value[0]!, project: 'p' };
    expect(copy).toMatchObject({ id: 'a', project: 'p' });
  });

  it('is shared between the async and the sync reader (the build and its renderer)', async () => {
    const built = await sharedParseAsync('/data/both.json', '5:5:5', async () => [{ id: 'from the build' }]);
    const rendered = sharedParse('/data/both.json', '5:5:5', () => [{ id: 'parsed again' }]);
    expect(rendered).toBe(built);
    expect(rendered[0]!.id).toBe('from the build');
  });
});
