import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { templateHash } from '../../../src/site/build/compile.ts';
import { REPO, tempDir } from '../../helpers/paths.ts';

/** A private copy of the package whose node_modules links every installed package but `marked`, a copy of its
 * package.json, so its version can change as an upgrade would change it. */
async function packageCopy(): Promise<string> {
  const root = await tempDir('template-hash');
  for (const name of ['src', 'astro.config.mjs', 'package.json']) {
    await fs.cp(path.join(REPO, name), path.join(root, name), { recursive: true });
  }
  const modules = path.join(root, 'node_modules');
  await fs.mkdir(path.join(modules, 'marked'), { recursive: true });
  for (const name of await fs.readdir(path.join(REPO, 'node_modules'))) {
    if (name !== 'marked') await fs.symlink(path.join(REPO, 'node_modules', name), path.join(modules, name));
  }
  await fs.copyFile(
    path.join(REPO, 'node_modules', 'marked', 'package.json'),
    path.join(modules, 'marked', 'package.json'),
  );
  return root;
}

const saved = { ...process.env };
afterEach(() => {
  for (const name of Object.keys(process.env)) if (!(name in saved)) delete process.env[name];
  Object.assign(process.env, saved);
});

describe('template hash', () => {
  it('follows what the compiled pages are made of: not an unrelated setting, but an upgraded dependency', async () => {
    const root = await packageCopy();
    delete process.env.AGENT_LOGBOOK_SITE_URL;
    const before = await templateHash(root);

    // Settings the compiled pages do not hold: the render reads them, and the page keys hold them.
    process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS = '12345';
    process.env.AGENT_LOGBOOK_SOMETHING_NEW = 'unrelated';
    process.env.AGENT_LOGBOOK_HOME = '/elsewhere';
    expect(await templateHash(root)).toBe(before);

    // Nor the site URL, its base path included: the pages read it when they render, so the bundle compiled at
    // install time serves a site hosted under any path.
    process.env.AGENT_LOGBOOK_SITE_URL = 'https://one.example/logbook/';
    expect(await templateHash(root)).toBe(before);
    delete process.env.AGENT_LOGBOOK_SITE_URL;

    // An upgrade of a dependency the pages run (marked renders every message's Markdown).
    const manifest = path.join(root, 'node_modules', 'marked', 'package.json');
    const pkg = JSON.parse(await fs.readFile(manifest, 'utf8')) as { version: string };
    await fs.writeFile(manifest, JSON.stringify({ ...pkg, version: `${pkg.version}-upgraded` }));
    expect(await templateHash(root)).not.toBe(before);
  });
});
