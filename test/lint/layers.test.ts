import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/paths.ts';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '..', '..');
const DEPCRUISE = path.join(ROOT, 'node_modules', '.bin', 'depcruise');

/** Runs the project's layer check over a small tree of `files` (path → imports) and returns its verdict. */
async function check(files: Record<string, string[]>): Promise<{ code: number; output: string }> {
  const dir = await tempDir('layers');
  await fs.writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        allowImportingTsExtensions: true,
        noEmit: true,
        module: 'ESNext',
        moduleResolution: 'Bundler',
      },
    }),
  );
  for (const [file, imports] of Object.entries(files)) {
    const target = path.join(dir, file);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const lines = imports.map((to, i) => {
      let relative = path.relative(path.dirname(target), path.join(dir, to));
      if (!relative.startsWith('.')) relative = `./${relative}`;
      return `import { value as v${i} } from '${relative}';\nexport const use${i} = v${i};`;
    });
    await fs.writeFile(target, `${lines.join('\n')}\nexport const value = 1;\n`);
  }
  try {
    const { stdout } = await run(DEPCRUISE, ['src', '--config', path.join(ROOT, '.dependency-cruiser.cjs')], {
      cwd: dir,
    });
    return { code: 0, output: stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, output: failed.stdout };
  }
}

describe('the layer check (npm run layers)', () => {
  it('lets a layer import the layers below it', async () => {
    const verdict = await check({
      'src/model/message.ts': [],
      'src/archive/data-dir.ts': ['src/model/message.ts'],
      'src/site/page.ts': ['src/archive/data-dir.ts', 'src/model/message.ts'],
      'src/cli/main.ts': ['src/site/page.ts', 'src/mcp/server.ts'],
      'src/mcp/server.ts': ['src/archive/data-dir.ts'],
    });
    expect(verdict.output).toContain('no dependency violations');
    expect(verdict.code).toBe(0);
  });

  it('fails on an upward import, naming the rule and the files', async () => {
    const verdict = await check({ 'src/model/message.ts': ['src/site/page.ts'], 'src/site/page.ts': [] });
    expect(verdict.code).not.toBe(0);
    expect(verdict.output).toMatch(/layer-model: src\/model\/message\.ts → src\/site\/page\.ts/);
  });

  it('fails when the archive reaches up into a source, or a source into collect', async () => {
    const verdict = await check({
      'src/archive/data-dir.ts': ['src/sources/claude-code/read.ts'],
      'src/sources/claude-code/read.ts': ['src/collect/collect.ts'],
      'src/collect/collect.ts': [],
    });
    expect(verdict.code).not.toBe(0);
    expect(verdict.output).toContain('layer-archive');
    expect(verdict.output).toContain('layer-sources');
  });

  it('fails on an import between the two front ends on one rung, and between two sources', async () => {
    const verdict = await check({
      'src/mcp/server.ts': ['src/export/run.ts'],
      'src/export/run.ts': [],
      'src/sources/codex/read.ts': ['src/sources/claude-code/read.ts'],
      'src/sources/claude-code/read.ts': [],
    });
    expect(verdict.code).not.toBe(0);
    expect(verdict.output).toContain('sibling-mcp');
    expect(verdict.output).toContain('one-source-folder');
  });

  it('fails on a cycle inside a folder and on a module outside the layers', async () => {
    const verdict = await check({
      'src/util/a.ts': ['src/util/b.ts'],
      'src/util/b.ts': ['src/util/a.ts'],
      'src/loose.ts': ['src/util/a.ts'],
    });
    expect(verdict.code).not.toBe(0);
    expect(verdict.output).toContain('no-circular');
    expect(verdict.output).toContain('src-folders-only');
  });
});
