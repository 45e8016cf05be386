import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDir } from '../../../src/archive/data-dir.ts';
import { buildSite, type BuildSiteOptions } from '../../../src/cli/build-site.ts';
import { folderDigest } from '../../../src/util/fs.ts';
import { runCli } from '../../helpers/cli.ts';
import { FIXTURE_HOME, fixtureBuild, SESSION, WEBAPP } from '../../helpers/paths.ts';

const NOTHING_CHANGED =
  /^Nothing changed since the last build into (.+): the archive's index, the options and the sessions' repositories are as it left them \(\d+\.\ds\)$/m;

async function build(options: Omit<BuildSiteOptions, 'say' | 'verbose'>) {
  let said = '';
  const report = await buildSite({ ...options, verbose: true, say: (line) => (said += line), onWarning: () => {} });
  return { report, said };
}

/** The fixture home collected into a data folder of its own, and the options of a build of it into a site folder. */
async function collectedFixture(prefix: string) {
  const { home, data, out } = await fixtureBuild(prefix);
  const collect = await runCli(['collect', '--home', home, '--data', data]);
  expect(collect.code, collect.stderr).toBe(0);
  return { home, data, out, options: { dataDir: data, outDir: out, timeZone: 'UTC' } };
}

/** The shard size the test run sets (test/global-setup.ts), put back after a test changes it. */
const SHARD_CHARS = process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS;

describe('a build with nothing changed since the last one into its folder', { timeout: 600_000 }, () => {
  it('knows it from the build record and the search state, without reading the archive', async () => {
    const { data, out, options } = await collectedFixture('nothing-changed');
    // A whole second, which utimes can set again exactly (below).
    const index = path.join(data, 'index', 'sessions.json');
    const second = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    await fs.utimes(index, second, second);

    const first = await build(options);
    expect(first.said).not.toMatch(NOTHING_CHANGED);
    expect(first.report.written).toBeGreaterThan(50);

    const again = await build(options);
    expect(again.said).toMatch(NOTHING_CHANGED);
    expect(NOTHING_CHANGED.exec(again.said)![1]).toBe(out);
    expect(again.said).not.toContain('Markdown:');
    expect(again.report).toMatchObject({ rendered: 0, written: 0, removed: 0, failed: [] });
    expect(again.report.site).toEqual(first.report.site);
    expect(again.report.pages).toBe(first.report.pages);

    // The proof it read nothing of the archive: its index, made unreadable with its stamp (size, mtime, inode) kept,
    // is not noticed. (A build that reads it stops with an error saying it cannot.)
    const { size } = await fs.stat(index);
    const kept = await fs.readFile(index);
    const handle = await fs.open(index, 'r+');
    await handle.write(Buffer.alloc(size, '!'), 0, size, 0);
    await handle.close();
    await fs.utimes(index, second, second);
    const unread = await build(options);
    expect(unread.said).toMatch(NOTHING_CHANGED);
    await expect(new DataDir(data).readSummaries()).rejects.toThrow(/cannot read the session index/);
    const restore = await fs.open(index, 'r+');
    await restore.write(kept, 0, size, 0);
    await restore.close();
    await fs.utimes(index, second, second);
  });

  it('is not taken when a file of the search is not as the last build left it, nor when the state is gone', async () => {
    const { data, out, options } = await collectedFixture('nothing-changed-search');
    await build(options);
    const script = await fs.readFile(path.join(out, 'search.js'), 'utf8');
    const list = await fs.readFile(path.join(out, 'pagefind', 'shards.json'), 'utf8');
    const [shard] = JSON.parse(list) as string[];
    const entry = path.join(out, 'pagefind', shard!, 'pagefind-entry.json');
    const entryBytes = await fs.readFile(entry, 'utf8');

    const changes: [string, () => Promise<void>][] = [
      ['the script removed', () => fs.rm(path.join(out, 'search.js'))],
      ['the shard list edited', () => fs.writeFile(path.join(out, 'pagefind', 'shards.json'), '[]\n')],
      ["a shard's entry removed", () => fs.rm(entry)],
      ['the search state removed', () => fs.rm(path.join(data, 'cache', 'site-search'), { recursive: true })],
    ];
    for (const [what, change] of changes) {
      await change();
      const next = await build(options);
      expect(next.said, what).not.toMatch(NOTHING_CHANGED);
      expect(next.said, what).toMatch(/^Site search: \d+ of \d+ shards? written/m);
      expect(next.report.written, what).toBe(0);
      // Made whole again, and known to be so by the build after.
      expect(await fs.readFile(path.join(out, 'search.js'), 'utf8'), what).toBe(script);
      expect(await fs.readFile(path.join(out, 'pagefind', 'shards.json'), 'utf8'), what).toBe(list);
      const written = JSON.parse(await fs.readFile(entry, 'utf8')) as { languages: object };
      expect(Object.keys(written.languages), what).toEqual(Object.keys(JSON.parse(entryBytes).languages as object));
      expect((await build(options)).said, what).toMatch(NOTHING_CHANGED);
    }
  });

  it('is not taken after a session grew, the options changed, or a page was changed by hand', async () => {
    const { home, data, out, options } = await collectedFixture('nothing-changed-inputs');
    await build(options);

    const tokyo = await build({ ...options, timeZone: 'Asia/Tokyo' });
    expect(tokyo.said).not.toMatch(NOTHING_CHANGED);
    expect(tokyo.report.rendered).toBeGreaterThan(50);
    expect((await build({ ...options, timeZone: 'Asia/Tokyo' })).said).toMatch(NOTHING_CHANGED);

    // Each of the other options, and the search's shard size (which only the search state holds).
    const tokyo2 = { ...options, timeZone: 'Asia/Tokyo' };
    const others: [string, Omit<BuildSiteOptions, 'say' | 'verbose'>][] = [
      ['a base URL', { ...tokyo2, siteUrl: 'https://example.org/logbook/' }],
      ['--since', { ...tokyo2, since: '2026-03-04' }],
      ['weeks from Sunday', { ...tokyo2, weekStart: 'sunday' }],
      ['--full', { ...tokyo2, full: true }],
    ];
    for (const [what, changed] of others) {
      const next = await build(changed);
      expect(next.said, what).not.toMatch(NOTHING_CHANGED);
      expect(next.report.rendered, what).toBeGreaterThan(0);
      // Back to the site as before: its pages are made again, so the next build is the one that finds nothing.
      await build(tokyo2);
      expect((await build(tokyo2)).said, what).toMatch(NOTHING_CHANGED);
    }
    process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS = '700';
    try {
      const resharded = await build(tokyo2);
      expect(resharded.said).not.toMatch(NOTHING_CHANGED);
      expect(resharded.report.written).toBe(0);
      // Asked again (shards are not cut anew: the size is for the sessions placed from now on).
      expect(resharded.said).toMatch(/^Site search: \d+ of \d+ shards? written/m);
      expect((await build(tokyo2)).said).toMatch(NOTHING_CHANGED);
    } finally {
      if (SHARD_CHARS === undefined) delete process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS;
      else process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS = SHARD_CHARS;
    }
    await build(tokyo2);

    // The last build into the folder did not finish (its mark is there), though its record and files are whole.
    const mark = path.join(data, 'cache', 'site-build', `${folderDigest(out)}.unfinished`);
    await fs.writeFile(mark, `${JSON.stringify({ pid: 999_999_999, outDir: await fs.realpath(out) })}\n`);
    const unfinished = await build(tokyo2);
    expect(unfinished.said).not.toMatch(NOTHING_CHANGED);
    expect(unfinished.said).toMatch(/^Markdown: /m);
    expect(existsSync(mark)).toBe(false);
    expect((await build(tokyo2)).said).toMatch(NOTHING_CHANGED);

    const home404 = path.join(out, '404.html');
    await fs.appendFile(home404, '<!-- mine -->');
    const mended = await build({ ...options, timeZone: 'Asia/Tokyo' });
    expect(mended.said).not.toMatch(NOTHING_CHANGED);
    expect(mended.report.written).toBe(1);
    expect(await fs.readFile(home404, 'utf8')).not.toContain('<!-- mine -->');

    // A session grows: the collect rewrites the archive's index, and the build renders that session's pages.
    const grown = path.join(WEBAPP.replace(FIXTURE_HOME, home), `${SESSION.D}.jsonl`);
    const last = JSON.parse((await fs.readFile(grown, 'utf8')).trim().split('\n').at(-1)!) as Record<string, unknown>;
    const added = {
      ...last,
      type: 'user',
      message: { role: 'user', content: 'Thanks: and the staging config too?' },
      uuid: '99999999-9999-4999-8999-999999999999',
      parentUuid: last.uuid,
      timestamp: '2026-03-05T10:05:00.000Z',
    };
    await fs.appendFile(grown, `${JSON.stringify(added)}\n`);
    const recollect = await runCli(['collect', '--home', home, '--data', data]);
    expect(recollect.code, recollect.stderr).toBe(0);
    expect(recollect.stderr).toMatch(/1 updated/);
    const after = await build({ ...options, timeZone: 'Asia/Tokyo' });
    expect(after.said).not.toMatch(NOTHING_CHANGED);
    expect(after.said).toMatch(/^Markdown: 1 new or changed sessions read/m);
    expect(after.report.rendered).toBeGreaterThan(0);
  });
});
