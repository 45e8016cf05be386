import { promises as fs, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fileStamp, fileStamps, heldOnce, withStampsHeld } from '../../src/util/stamp.ts';
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

describe('withStampsHeld', () => {
  it('stamps each file once and works out each held value once while held, and afresh after', async () => {
    const dir = await tempDir('stamps-held');
    const file = path.join(dir, 'body.json');
    await fs.writeFile(file, 'one');
    const before = fileStamp(file);
    let computed = 0;
    const value = () => heldOnce('repository\0/x', () => ++computed);
    await withStampsHeld(async () => {
      expect(fileStamp(file)).toBe(before);
      await fs.writeFile(file, 'three');
      // Nothing writes what a held task stamps: what it was asked first is what it is told again.
      expect(fileStamp(file)).toBe(before);
      expect(fileStamp(path.join(dir, 'missing'))).toBeUndefined();
      expect([value(), value()]).toEqual([1, 1]);
      // A nested task holds what the outer one holds.
      await withStampsHeld(async () => expect([fileStamp(file), value()]).toEqual([before, 1]));
    });
    expect(fileStamp(file)).not.toBe(before);
    expect(fileStamp(file)!.startsWith('5:')).toBe(true);
    expect([value(), value()]).toEqual([2, 3]);
    // A task that fails lets go too.
    await expect(withStampsHeld(async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(value()).toBe(4);
  });

  it("shares what one build's tasks stamped, and not with another build's nor a task outside a build", async () => {
    const dir = await tempDir('stamps-build');
    const file = path.join(dir, 'index.json');
    await fs.writeFile(file, 'one');
    let computed = 0;
    const value = () => heldOnce('repository\0/y', () => ++computed);
    const first = await withStampsHeld(async () => [fileStamp(file), value()], 'build-1');
    await fs.writeFile(file, 'three');
    // The build's next task is told what its first was.
    expect(await withStampsHeld(async () => [fileStamp(file), value()], 'build-1')).toEqual(first);
    // Between its tasks, nothing is held.
    expect(fileStamp(file)).not.toBe(first[0]);
    expect(value()).toBe(2);
    // Another build stamps afresh, and so does a task of no build.
    const second = await withStampsHeld(async () => [fileStamp(file), value()], 'build-2');
    expect(second).toEqual([fileStamp(file), 3]);
    expect(await withStampsHeld(async () => value(), 'build-2')).toBe(3);
    expect(await withStampsHeld(async () => value())).toBe(4);
    expect(await withStampsHeld(async () => value(), 'build-2')).toBe(5);
  });
});
