import { execFile } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { FIXTURE_HOME, REPO, tempDir } from '../helpers/paths.ts';

const run = promisify(execFile);

// Under node_modules (so the bundle finds the dependencies it leaves out) and in a folder named dist-cli (so it
// finds its worker files).
const OUT = path.join(REPO, 'node_modules', '.cache', `bundle-test-${process.pid}`, 'dist-cli');
afterAll(() => fs.rm(path.dirname(OUT), { recursive: true, force: true }));

/** Runs the bundled CLI as the launcher does, in a process of its own; says which of node:crypto and
 * node:child_process it loaded, and whether V8 took the code cache. */
async function bundled(args: string[]): Promise<{ code: number; stderr: string; loaded: string[]; cache: string }> {
  const loader = new URL(`file://${path.join(REPO, 'bin', 'bundle-load.js')}`).href;
  const script = [
    `const { loadBundle, tuneV8 } = await import(${JSON.stringify(loader)});`,
    'tuneV8();',
    `const bundle = loadBundle(${JSON.stringify(OUT)});`,
    'let stderr = "";',
    'const io = { cwd: process.cwd(), env: process.env, stdout: () => {}, stderr: (t) => (stderr += t), isTTY: false };',
    `const code = await bundle.main(${JSON.stringify(args)}, io);`,
    'const loaded = process.moduleLoadList.filter((m) => /^NativeModule (crypto|child_process)$/.test(m));',
    'process.stdout.write(JSON.stringify({ code, stderr, loaded: loaded.map((m) => m.slice(13)), cache: bundle.cache }));',
  ].join('\n');
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO });
  return JSON.parse(stdout) as { code: number; stderr: string; loaded: string[]; cache: string };
}

describe('the bundled CLI (scripts/bundle-cli.mjs)', () => {
  it('loads node:crypto and node:child_process only when they are called', async () => {
    // A chunk of an earlier bundle (chunk names carry a hash of their content) is not left beside the new ones.
    await fs.mkdir(path.join(OUT, 'chunks'), { recursive: true });
    await fs.writeFile(path.join(OUT, 'chunks', 'chunk-EARLIER.js'), 'export {};\n');
    await run(process.execPath, [path.join(REPO, 'scripts', 'bundle-cli.mjs'), OUT], { cwd: REPO });
    expect(existsSync(path.join(OUT, 'chunks', 'chunk-EARLIER.js'))).toBe(false);
    const code = await fs.readFile(path.join(OUT, 'main.cjs'), 'utf8');
    // The sources hash with createHash, commander spawns subcommands: both through a stand-in that loads them.
    expect(code).toContain('createHash(...args)');
    expect(code).toContain('spawn(...args)');
    // One import(), importModule's: any other would fail once read from the code cache.
    expect(code.match(/\bimport\(/g)).toHaveLength(1);
    expect((await fs.stat(path.join(OUT, 'main.cache'))).size).toBeGreaterThan(100_000);

    // The stand-ins work: a first collect of the demo home hashes (Claude Code's resume states).
    const data = path.join(await tempDir('bundle'), 'data');
    const cold = await bundled(['collect', '--home', FIXTURE_HOME, '--data', data]);
    expect(cold.code).toBe(0);
    expect(cold.cache).toBe('used');
    // The demo's zstd rollout is decoded by a package imported from code read out of the cache.
    expect(cold.stderr).not.toMatch(/\.zst: /);
    expect(cold.stderr).toMatch(/Collected in [\d.]+s: [1-9]\d* sessions new, 0 updated, 0 unchanged\./);
    expect(cold.loaded).toEqual(['crypto']);
    const warm = await bundled(['collect', '--home', FIXTURE_HOME, '--data', data]);
    expect(warm.code).toBe(0);
    expect(warm.stderr).toMatch(/: 0 sessions new, 0 updated, [1-9]\d* unchanged\./);
    expect(warm.loaded).not.toContain('child_process');

    // What the launcher checks to tell the bundle from older sources (bin/bundle-fresh.js).
    const listed = (await fs.readFile(path.join(OUT, 'sources.txt'), 'utf8')).split('\n');
    expect(listed).toEqual(
      expect.arrayContaining(['src', 'src/cli', 'src/cli/main.ts', 'src/sources/qwen-code/index.ts']),
    );
  }, 120_000);
});
