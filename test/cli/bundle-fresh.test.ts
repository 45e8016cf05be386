import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleIsFresh } from '../../bin/bundle-fresh.js';
import { tempDir } from '../helpers/paths.ts';

const BUILT = new Date('2026-01-02T00:00:00Z');
const BEFORE = new Date('2026-01-01T00:00:00Z');
const AFTER = new Date('2026-01-03T00:00:00Z');

/** A package folder whose bundle was made after every file of src/ (times set, not waited for). */
async function packageFolder(): Promise<string> {
  const root = await tempDir('bundle-fresh');
  await fs.mkdir(path.join(root, 'src', 'cli'), { recursive: true });
  await fs.mkdir(path.join(root, 'dist-cli'));
  await fs.writeFile(path.join(root, 'src', 'cli', 'main.ts'), 'export {};\n');
  await fs.writeFile(path.join(root, 'src', 'model.ts'), 'export {};\n');
  await fs.writeFile(path.join(root, 'dist-cli', 'main.cjs'), 'export {};\n');
  await fs.writeFile(path.join(root, 'dist-cli', 'sources.txt'), 'src\nsrc/cli\nsrc/cli/main.ts\nsrc/model.ts\n');
  for (const p of ['src/cli/main.ts', 'src/model.ts', 'src/cli', 'src'])
    await fs.utimes(path.join(root, p), BEFORE, BEFORE);
  await fs.utimes(path.join(root, 'dist-cli', 'main.cjs'), BUILT, BUILT);
  return root;
}

describe('bundleIsFresh (bin/bundle-fresh.js): whether the launcher may run dist-cli/ instead of src/', () => {
  it('is fresh when nothing listed is newer than the bundle', async () => {
    expect(bundleIsFresh(await packageFolder())).toBe(true);
  });

  it('is stale when a file was edited, added, removed, or the list is missing', async () => {
    const edited = await packageFolder();
    await fs.utimes(path.join(edited, 'src', 'model.ts'), AFTER, AFTER);
    expect(bundleIsFresh(edited)).toBe(false);

    // A new file changes its folder's time, which the list names.
    const added = await packageFolder();
    await fs.writeFile(path.join(added, 'src', 'cli', 'new.ts'), 'export {};\n');
    expect(bundleIsFresh(added)).toBe(false);

    const removed = await packageFolder();
    await fs.rm(path.join(removed, 'src', 'model.ts'));
    await fs.utimes(path.join(removed, 'src'), BEFORE, BEFORE);
    expect(bundleIsFresh(removed)).toBe(false);

    const unlisted = await packageFolder();
    await fs.rm(path.join(unlisted, 'dist-cli', 'sources.txt'));
    expect(bundleIsFresh(unlisted)).toBe(false);
  });
});
