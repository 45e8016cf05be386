import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { buildSite } from '../../../src/cli/build-site.ts';
import { DataDir } from '../../../src/archive/data-dir.ts';
import { tempDir } from '../../helpers/paths.ts';

// A first build reads every body in its page render: with many bodies changed, the render gathers their search
// texts and sanitized Markdown (site/data.ts gatherSessionTexts), and the Markdown pass after it reads only what
// the render could not take whole. The fixture site's ~30 sessions would take the pass first; passFirstUpTo
// takes either way on the same data.

const site = inject('site');
let root: string;
let bodies: number;

async function pageFiles(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.relative(dir, path.join(entry.parentPath, entry.name));
    // Pagefind's own files differ from run to run (see incremental.test.ts); its records come from the texts
    // compared below.
    if (file.startsWith(`pagefind${path.sep}`)) continue;
    files.set(file, (await fs.readFile(path.join(dir, file))).toString('base64'));
  }
  return files;
}

function cacheRows(data: string, file: string, sql: string): unknown[] {
  const db = new Database(path.join(data, 'cache', file), { readonly: true });
  try {
    return db.prepare(sql).raw().all();
  } finally {
    db.close();
  }
}

async function firstBuild(name: string, passFirstUpTo: number): Promise<{ out: string; data: string; said: string }> {
  const data = path.join(root, name, 'data');
  await fs.cp(site.dataDir, data, { recursive: true });
  await fs.rm(path.join(data, 'cache'), { recursive: true, force: true });
  const out = path.join(root, name, 'out');
  let said = '';
  const build = () =>
    buildSite({
      dataDir: data,
      outDir: out,
      timeZone: 'Asia/Tokyo',
      verbose: true,
      passFirstUpTo,
      say: (line) => (said += line),
    });
  await build();
  return { out, data, said };
}

beforeAll(async () => {
  root = await tempDir('gather-first');
  bodies = (await new DataDir(site.dataDir).readSummaries()).length;
}, 60_000);

describe('a first build with many bodies changed', { timeout: 900_000 }, () => {
  it('takes the texts from the pages it renders, and makes the same site and search texts as the pass first', async () => {
    const gathered = await firstBuild('gathered', 0);
    const passFirst = await firstBuild('pass-first', 1_000_000);

    const line = /Markdown: (\d+) sessions taken from their pages, (\d+) new or changed sessions read/.exec(
      gathered.said,
    );
    expect(line, gathered.said).not.toBeNull();
    const [taken, read] = [Number(line![1]), Number(line![2])];
    expect(taken).toBeGreaterThan(bodies / 2);
    expect(taken + read).toBe(bodies);
    expect(passFirst.said).toMatch(new RegExp(`Markdown: ${bodies} new or changed sessions read`));

    expect(await pageFiles(gathered.out)).toEqual(await pageFiles(passFirst.out));
    const texts = (data: string) =>
      cacheRows(data, 'site-search/texts.sqlite', 'SELECT key, part, chars, first, rows FROM texts ORDER BY key, part');
    expect(texts(gathered.data).length).toBeGreaterThanOrEqual(bodies);
    expect(texts(gathered.data)).toEqual(texts(passFirst.data));
    // Every body is done for the next build, and the Markdown the XSS fixtures needed sanitized is kept.
    const done = (data: string) => cacheRows(data, 'render.sqlite', 'SELECT body FROM rendered_bodies ORDER BY body');
    expect(done(gathered.data)).toEqual(done(passFirst.data));
    expect(done(gathered.data)).toHaveLength(bodies);
    const html = (data: string) => cacheRows(data, 'render.sqlite', 'SELECT key, html FROM html ORDER BY key');
    expect(html(gathered.data).length).toBeGreaterThan(0);
    expect(html(passFirst.data)).toEqual(expect.arrayContaining(html(gathered.data)));

    // The next build reads no body, either way.
    let again = '';
    await buildSite({
      dataDir: gathered.data,
      outDir: gathered.out,
      timeZone: 'Asia/Tokyo',
      verbose: true,
      passFirstUpTo: 0,
      say: (l) => (again += l),
    });
    expect(again).toContain('Markdown: 0 new or changed sessions read');
  });
});
