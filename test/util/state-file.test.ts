import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readStateFile, writeStateFile } from '../../src/util/state-file.ts';
import { tempDir } from '../helpers/paths.ts';

describe('state files', () => {
  it('round-trips a value whose big parts are Maps, one line per entry', async () => {
    const file = path.join(await tempDir('state'), 'nested', 'state.json');
    const calls = new Map<string, unknown>([
      ['toolu_1', ['2026-01-01T00:00:00.000Z#4', 'Bash', 'completed', '2026-01-01T00:00:01.000Z#5']],
      ['toolu_2', ['2026-01-01T00:00:02.000Z#6', 'Read', 'unanswered']],
    ]);
    const value = {
      version: 1,
      threads: { 'a.jsonl': { calls, usage: new Map([['msg_1', { best: [1, 2, 3, 4] }]]), titles: { auto: 'x' } } },
      list: [new Map([[1, 'one']])],
    };
    writeStateFile(file, value);
    const lines = (await fs.readFile(file, 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(1 + 2 + 1 + 1);
    expect(lines[0]).not.toContain('toolu_1');
    const back = await readStateFile<typeof value>(file);
    expect(back).toEqual(value);
    expect(back!.threads['a.jsonl'].calls).toBeInstanceOf(Map);
  });

  it('gives nothing for a missing or damaged file, so the caller starts over', async () => {
    const dir = await tempDir('state');
    expect(await readStateFile(path.join(dir, 'none.json'))).toBeUndefined();
    const file = path.join(dir, 'state.json');
    writeStateFile(file, { m: new Map([['k', 1]]) });
    await fs.appendFile(file, '[0, "half');
    expect(await readStateFile(file)).toBeUndefined();
    await fs.writeFile(file, '{"m":{"$map":0}}\n[7,"k",1]\n');
    expect(await readStateFile(file)).toBeUndefined();
  });
});
