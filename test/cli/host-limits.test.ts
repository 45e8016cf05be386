import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildSite } from '../../src/cli/build-site.ts';
import { hostLimitNote } from '../../src/cli/host-limits.ts';
import { runCli } from '../helpers/cli.ts';
import { fixtureBuild } from '../helpers/paths.ts';

describe("the static hosts' limits", { timeout: 300_000 }, () => {
  it('are noted for a site over 20,000 files or 1 GB, with which host refuses it and what to do', () => {
    expect(hostLimitNote({ files: 20_000, bytes: 1e9 })).toBeUndefined();
    const files = hostLimitNote({ files: 26_012, bytes: 0.7e9 })!;
    expect(files).toBe(
      "Note: the site is 26,012 files, 0.70 GB, and Cloudflare Pages' free plan takes at most 20,000 files: to " +
        'publish it there, build part of the history (--since YYYY-MM-DD) or only some sessions (--share --sessions).',
    );
    const bytes = hostLimitNote({ files: 9_000, bytes: 1.26e9 })!;
    expect(bytes).toContain('1.26 GB, and GitHub Pages takes a site of at most 1 GB:');
    expect(bytes).not.toContain('Cloudflare');
    expect(hostLimitNote({ files: 20_001, bytes: 1.5e9 })).toContain('20,000 files, and GitHub Pages');
    const big = { file: 'days/2026-03-02.sessions.md.gz', bytes: 30 * 2 ** 20 };
    expect(hostLimitNote({ files: 100, bytes: 0.1e9, largest: big })).toContain(
      'Cloudflare Pages takes no file over 25 MiB (days/2026-03-02.sessions.md.gz is 30 MiB)',
    );
    expect(hostLimitNote({ files: 100, bytes: 0.1e9, largest: { ...big, bytes: 25 * 2 ** 20 } })).toBeUndefined();
  });

  it("are checked against every file of the built site, the search index's too", async () => {
    const { home, data, out } = await fixtureBuild('host-limits');
    const collect = await runCli(['collect', '--home', home, '--data', data]);
    expect(collect.code, collect.stderr).toBe(0);
    const built = await buildSite({ dataDir: data, outDir: out, timeZone: 'UTC', onWarning: () => {} });
    let files = 0;
    let bytes = 0;
    let largest = { file: '', bytes: 0 };
    for (const entry of await fs.readdir(out, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile()) continue;
      const file = path.join(entry.parentPath, entry.name);
      const size = (await fs.stat(file)).size;
      files += 1;
      bytes += size;
      if (size > largest.bytes) largest = { file: path.relative(out, file), bytes: size };
    }
    expect(built.site).toEqual({ files, bytes, largest });
    // Built again with nothing changed (the build's early return): the same.
    const again = await buildSite({ dataDir: data, outDir: out, timeZone: 'UTC', onWarning: () => {} });
    expect(again.rendered).toBe(0);
    expect(again.site).toEqual({ files, bytes, largest });
    expect(files).toBeGreaterThan(100);
    // The demo is far from either limit: the build says nothing of them.
    const cli = await runCli(['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC']);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stderr).not.toContain('Note:');
  });
});
