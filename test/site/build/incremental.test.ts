import { promises as fs } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildSitePages } from '../../../src/site/build/build.ts';
import { templateHash } from '../../../src/site/build/compile.ts';
import { runCli } from '../../helpers/cli.ts';
import { copyFixtureHome, REPO, SESSION, tempDir } from '../../helpers/paths.ts';
import { appendPrompt } from '../../helpers/transcripts.ts';

interface FileState {
  bytes: Buffer;
  mtimeMs: number;
}

async function snapshot(dir: string): Promise<Map<string, FileState>> {
  const files = new Map<string, FileState>();
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    // Pagefind names its filter files by a hash that depends on the order its indexing finished in: the search
    // index is tested on its own (test/search/, test/browser/site-search.test.ts), the pages here.
    if (path.relative(dir, file).startsWith(`pagefind${path.sep}`)) continue;
    files.set(path.relative(dir, file), { bytes: await fs.readFile(file), mtimeMs: (await fs.stat(file)).mtimeMs });
  }
  return files;
}

let home: string;
let dataDir: string;
let incremental: string;
const build = (out: string, ...more: string[]) =>
  runCli(['build', '--home', home, '--data', dataDir, '--out', out, '--tz', 'Asia/Tokyo', ...more]);
const sessionPage = (id: string) => path.join('sessions', 'claude-code', id, 'index.html');

beforeAll(async () => {
  home = await copyFixtureHome();
  const root = await tempDir('incremental');
  dataDir = path.join(root, 'data');
  incremental = path.join(root, 'incremental');
  const first = await build(incremental);
  expect(first.code, first.stderr).toBe(0);
}, 900_000);

// Several real builds each, on a machine that may be shared: generous time limits, nothing timed.
describe('incremental site build', { timeout: 900_000 }, () => {
  it('after one session grew, writes only what changed, and the same bytes as a full build', async () => {
    const before = await snapshot(incremental);
    const transcript = path.join(home, '.claude', 'projects', '-home-alice-work-webapp', `${SESSION.B}.jsonl`);
    await appendPrompt(transcript, 'APPENDED-MARKER: また確認してください', '2026-03-03T00:25:00.000Z');

    const second = await build(incremental);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toContain('1 session read');
    const after = await snapshot(incremental);
    expect(after.get(sessionPage(SESSION.B))!.bytes.toString()).toContain('APPENDED-MARKER: また確認してください');

    // Every file whose bytes did not change kept its mtime: it was not written again.
    let kept = 0;
    for (const [file, state] of after) {
      const old = before.get(file);
      if (old?.bytes.equals(state.bytes)) {
        expect(state.mtimeMs, file).toBe(old.mtimeMs);
        kept += 1;
      }
    }
    expect(before.get(sessionPage(SESSION.A))!.bytes.equals(after.get(sessionPage(SESSION.A))!.bytes)).toBe(true);
    expect(kept).toBeGreaterThan(after.size / 2);

    const full = path.join(path.dirname(incremental), 'full');
    const fresh = await build(full, '--full');
    expect(fresh.code, fresh.stderr).toBe(0);
    const fullFiles = await snapshot(full);
    expect([...after.keys()].sort()).toEqual([...fullFiles.keys()].sort());
    for (const [file, state] of after) {
      expect(state.bytes.equals(fullFiles.get(file)!.bytes), `${file} differs from the full build`).toBe(true);
    }
  });

  it("writes the same files as Astro's own build, byte for byte but for the stylesheet's name", async () => {
    const { buildSiteWithAstro } = await import('../../../src/cli/build-site.ts');
    const astroOut = path.join(path.dirname(incremental), 'astro');
    await buildSiteWithAstro({ dataDir, outDir: astroOut, timeZone: 'Asia/Tokyo' });
    // The site search (Pagefind's index and the box's script) is written after the pages, by either path.
    const ours = new Map([...(await snapshot(incremental))].filter(([f]) => f !== 'search.js'));
    const astro = await snapshot(astroOut);
    // Astro splits the CSS by page once pages import stylesheets of their own; we emit one file for the whole
    // site. Every selector and declaration Astro emits is in ours, and every page is the same once stylesheet links are set aside.
    const css = (files: Map<string, FileState>) => [...files.keys()].filter((f) => f.endsWith('.css'));
    const rules = (files: Map<string, FileState>) =>
      new Set(css(files).flatMap((f) => files.get(f)!.bytes.toString('utf8').split(/[{};]/)));
    const ourRules = rules(ours);
    expect(css(ours)).toHaveLength(1);
    for (const rule of rules(astro)) expect(ourRules.has(rule), rule).toBe(true);
    const withoutCss = (files: Map<string, FileState>) => [...files.keys()].filter((f) => !f.endsWith('.css')).sort();
    expect(withoutCss(ours)).toEqual(withoutCss(astro));
    const withoutLinks = (html: string) => html.replace(/\s*<link rel="stylesheet" href="[^"]*\.css">\s*/g, '');
    for (const file of withoutCss(ours)) {
      const expected = withoutLinks(astro.get(file)!.bytes.toString('utf8'));
      expect(withoutLinks(ours.get(file)!.bytes.toString('utf8')), file).toBe(expected);
    }
  });

  it('with nothing changed, writes nothing', async () => {
    const before = await snapshot(incremental);
    const again = await build(incremental);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('0 files written');
    const after = await snapshot(incremental);
    expect([...after.keys()].sort()).toEqual([...before.keys()].sort());
    for (const [file, state] of after) expect(state.mtimeMs, file).toBe(before.get(file)!.mtimeMs);
  });

  it('keeps the page of a session whose transcript is gone, as the archive still holds it', async () => {
    await fs.rm(path.join(home, '.claude', 'projects', '-home-alice-notes----', `${SESSION.C}.jsonl`));
    const run = await build(incremental);
    expect(run.code, run.stderr).toBe(0);
    const page = await fs.readFile(path.join(incremental, sessionPage(SESSION.C)), 'utf8');
    expect(page).toContain('this copy comes from the agent-logbook archive');
  });

  it('a template change compiles the renderer again and re-renders the pages', async () => {
    // A private copy of the package, so its templates can change.
    const root = await tempDir('templates');
    for (const name of ['src', 'astro.config.mjs', 'package.json', 'tsconfig.json']) {
      await fs.cp(path.join(REPO, name), path.join(root, name), { recursive: true });
    }
    await fs.symlink(path.join(REPO, 'node_modules'), path.join(root, 'node_modules'));
    // public/ is copied into the site as it is, as Astro does.
    await fs.mkdir(path.join(root, 'public'), { recursive: true });
    await fs.writeFile(path.join(root, 'public', 'probe.js'), '// probe\n');
    const out = path.join(root, 'dist');
    process.env.AGENT_LOGBOOK_DATA = dataDir;
    process.env.AGENT_LOGBOOK_TZ = 'Asia/Tokyo';
    const options = { packageRoot: root, dataDir, outDir: out };

    const first = await buildSitePages(options);
    expect(first.compiled).toBe(true);
    expect(await fs.readFile(path.join(out, 'probe.js'), 'utf8')).toBe('// probe\n');
    const unchanged = await buildSitePages(options);
    expect(unchanged).toMatchObject({ compiled: false, rendered: 0, written: 0 });

    const hashBefore = await templateHash(root);
    const stat = path.join(root, 'src', 'site', 'components', 'Stat.astro');
    const source = await fs.readFile(stat, 'utf8');
    expect(source).toContain('<li');
    await fs.writeFile(stat, source.replace('<li', '<li data-template-probe="1"'));
    expect(await templateHash(root)).not.toBe(hashBefore);

    const changed = await buildSitePages(options);
    expect(changed.compiled).toBe(true);
    expect(changed.written).toBeGreaterThan(0);
    const page = await fs.readFile(path.join(out, sessionPage(SESSION.A)), 'utf8');
    expect(page).toContain('data-template-probe="1"');
  });
});
