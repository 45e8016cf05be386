import { promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileStamp, fileStamps } from '../../src/util/stamp.ts';
import { FIXTURE_HOME, tempDir } from '../helpers/paths.ts';

/** The stamp as statSync gives it: what every archive written so far recorded. */
function statStamp(file: string): string | undefined {
  const stat = statSync(file, { throwIfNoEntry: false });
  return stat && `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

describe('fileStamp', () => {
  it('is the size, mtimeMs and inode statSync gives, for every file of the demo home (so archives keep their stamps)', async () => {
    const files = await filesUnder(FIXTURE_HOME);
    expect(files.length).toBeGreaterThan(20);
    for (const file of files) expect(fileStamp(file), file).toBe(statStamp(file));
  });

  it('changes when a file grows, is rewritten with the same size, or is replaced; undefined when it is gone', async () => {
    const dir = await tempDir('stamp');
    const file = path.join(dir, 'é — a file.jsonl');
    await fs.writeFile(file, 'one\n');
    const first = fileStamp(file);
    expect(first).toBe(statStamp(file));
    expect(first).toMatch(/^4:\d+(\.\d+)?:\d+$/);

    await fs.appendFile(file, 'two\n');
    const grown = fileStamp(file);
    expect(grown).toBe(statStamp(file));
    expect(grown).not.toBe(first);

    // A time with a fraction of a millisecond (utimes takes seconds as a float) is written as statSync writes it.
    await fs.utimes(file, new Date('2026-01-02T03:04:05.678Z'), new Date('2026-01-02T03:04:05.678Z'));
    expect(fileStamp(file)).toBe(statStamp(file));
    expect(fileStamp(file)).toMatch(/^8:176732304567\d(\.\d+)?:\d+$/);

    // Another file renamed over it: same size and mtime, another inode.
    const other = path.join(dir, 'other');
    await fs.writeFile(other, 'one\ntwo\n');
    await fs.utimes(other, new Date('2026-01-02T03:04:05.678Z'), new Date('2026-01-02T03:04:05.678Z'));
    const before = fileStamp(file);
    await fs.rename(other, file);
    expect(fileStamp(file)).toBe(statStamp(file));
    expect(fileStamp(file)).not.toBe(before);

    await fs.rm(file);
    expect(fileStamp(file)).toBeUndefined();
    expect(fileStamp(path.join(dir, 'never', 'there'))).toBeUndefined();
    expect(fileStamps([path.join(dir, 'never'), dir])).toBe(`- ${statStamp(dir)}`);
  });

  it('throws as statSync does for a path through a file', async () => {
    const dir = await tempDir('stamp');
    const file = path.join(dir, 'plain');
    await fs.writeFile(file, 'x');
    expect(() => statSync(path.join(file, 'inside'), { throwIfNoEntry: false })).toThrow(/ENOTDIR/);
    expect(() => fileStamp(path.join(file, 'inside'))).toThrow(/ENOTDIR/);
  });
});
