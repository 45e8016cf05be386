import { existsSync, promises as fs } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileRenderer, precompileRenderer } from '../../../src/site/build/compile.ts';
import { REPO, tempDir } from '../../helpers/paths.ts';

/** A copy of the package's templates and config, its node_modules linked: what `npm install` leaves. */
async function installedCopy(): Promise<string> {
  const root = await tempDir('precompiled');
  for (const name of ['src', 'public', 'astro.config.mjs', 'package.json', 'tsconfig.json'])
    await fs.cp(path.join(REPO, name), path.join(root, name), { recursive: true });
  await fs.symlink(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
  return root;
}

describe('the renderer compiled at install time', () => {
  it('is what a build uses; a changed template is compiled again into the data directory', async () => {
    const root = await installedCopy();
    const installed = await precompileRenderer(root);
    expect(path.dirname(installed.dir)).toBe(path.join(root, 'dist-site'));
    expect(existsSync(path.join(installed.dir, 'entry.mjs'))).toBe(true);
    expect(installed.styles.length).toBeGreaterThan(0);

    // A user's build (the CLI names the package root with a trailing separator): nothing compiled, nothing
    // written into the data directory's cache.
    const cache = path.join(await tempDir('precompiled-data'), 'cache', 'renderer');
    const used = await compileRenderer(`${root}${path.sep}`, cache);
    expect(used.dir).toBe(installed.dir);
    expect(used.compiled).toBeUndefined();
    expect(existsSync(cache)).toBe(false);

    // A development checkout whose template changed: its own renderer, the installed one left as it was.
    const component = path.join(root, 'src', 'site', 'components', 'Stat.astro');
    await fs.appendFile(component, '\n<!-- changed -->\n');
    const changed = await compileRenderer(root, cache);
    expect(changed.compiled).toBe(true);
    expect(path.dirname(changed.dir)).toBe(cache);
    expect(changed.hash).not.toBe(installed.hash);
    expect(existsSync(path.join(installed.dir, 'entry.mjs'))).toBe(true);

    // Dependencies loaded on first use (jsdom, zod) are required from the package: no node_modules is found by
    // walking up from the data directory.
    const code = await fs.readFile(path.join(changed.dir, 'entry.mjs'), 'utf8');
    expect(code).not.toContain('createRequire(import.meta.url)');
    const from = path.join(root, 'package.json');
    expect(code).toContain(`createRequire(${JSON.stringify(from)})`);
    expect(createRequire(from).resolve('jsdom')).toContain(`${path.sep}jsdom${path.sep}`);

    // Astro's runtime, date-fns and the Markdown libraries are in the bundle: a render worker loads one module
    // instead of ~2,000. What it still imports from node_modules is native, reads its own files, or is shiki.
    const imported = [...code.matchAll(/(?:from |import\()"([^"]*node_modules[^"]*)"/g)].map(
      ([, specifier]) => /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules)/.exec(specifier!)![1],
    );
    expect(new Set(imported)).toEqual(new Set(['better-sqlite3', 'shiki']));
    expect(code).toMatch(/class _?experimental_AstroContainer\b/);
  }, 120_000);
});
