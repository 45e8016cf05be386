import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from '../helpers/paths.ts';

const MAX_LINES = 500;
const CODE = /\.(ts|mjs|cjs|js|astro)$/;

async function codeFiles(folder: string): Promise<string[]> {
  const entries = await fs.readdir(path.join(REPO, folder), { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && CODE.test(e.name) && !e.name.includes('.generated.'))
    .map((e) => path.relative(REPO, path.join(e.parentPath, e.name)));
}

describe('source files', () => {
  it(`are split by what they handle: none written by hand is over ${MAX_LINES} lines`, async () => {
    const files = [...(await codeFiles('src')), ...(await codeFiles('scripts'))];
    expect(files.length).toBeGreaterThan(100);
    const long: string[] = [];
    for (const file of files) {
      const lines = (await fs.readFile(path.join(REPO, file), 'utf8')).split('\n').length - 1;
      if (lines > MAX_LINES) long.push(`${file}: ${lines} lines`);
    }
    expect(long).toEqual([]);
  });
});
