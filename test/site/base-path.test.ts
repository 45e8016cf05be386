import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';

const site = inject('site');
const SITE_URL = 'https://alice.example.org/logbook/';

/** Every file under `dir`, relative. */
async function files(dir: string): Promise<string[]> {
  return (await fs.readdir(dir, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => path.relative(dir, path.join(e.parentPath, e.name)));
}

/** The file a site path names, as a static host serves it (`/a/` → `a/index.html`). */
function fileFor(out: string, sitePath: string): string {
  const clean = decodeURIComponent(sitePath.replace(/[?#].*$/, ''));
  return path.join(out, clean.endsWith('/') ? `${clean}index.html` : clean);
}

describe('build --site-url https://host/path/ (a GitHub Pages project site)', () => {
  it('puts every link, script and stylesheet under /path/, each resolving to a file; Markdown links are absolute', async () => {
    const dir = await tempDir('base');
    const out = path.join(dir, 'dist');
    const data = path.join(dir, 'data');
    await fs.cp(site.dataDir, data, { recursive: true });
    const run = await runCli([
      'build',
      '--home',
      path.join(dir, 'no-home'),
      '--data',
      data,
      '--out',
      out,
      '--tz',
      'Asia/Tokyo',
      '--site-url',
      SITE_URL,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`links under ${SITE_URL}`);

    const all = await files(out);
    const html = all.filter((f) => f.endsWith('.html'));
    expect(html.length).toBeGreaterThan(20);
    const broken: string[] = [];
    let checked = 0;
    for (const page of html) {
      const text = await fs.readFile(path.join(out, page), 'utf8');
      for (const [, url] of text.matchAll(/\s(?:href|src)="([^"]*)"/g)) {
        if (!url || url.startsWith('#') || url.startsWith('mailto:') || url.startsWith('data:')) continue;
        if (/^https?:/.test(url) && !url.startsWith(SITE_URL)) continue; // links inside transcripts
        checked += 1;
        const sitePath = url.startsWith(SITE_URL)
          ? url.slice(SITE_URL.length - 1)
          : url.startsWith('/')
            ? url
            : path.posix.join('/logbook/', path.posix.dirname(`/${page}`), url);
        if (!sitePath.startsWith('/logbook/')) {
          broken.push(`${page}: ${url} (outside the base)`);
          continue;
        }
        if (!existsSync(fileFor(out, sitePath.slice('/logbook'.length)))) broken.push(`${page}: ${url}`);
      }
    }
    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(200);

    // The Markdown reports link with absolute URLs, which work pasted anywhere, and they resolve too.
    const md = await fs.readFile(path.join(out, 'weeks', '2026-W10.md'), 'utf8');
    const links = [...md.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!);
    expect(links.length).toBeGreaterThan(10);
    for (const link of links) {
      expect(link.startsWith(SITE_URL), link).toBe(true);
      expect(existsSync(fileFor(out, link.slice(SITE_URL.length - 1))), link).toBe(true);
    }
    // And `report` prints the same file, with the site URL the build remembered.
    const report = await runCli(['report', '--no-collect', '--data', data, '--week', '2026-W10']);
    expect(report.stdout).toBe(md);
  });
});
