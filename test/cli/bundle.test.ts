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

/** The chunks a module imports statically (loaded with it), transitively. */
async function staticGraph(file: string, seen = new Set<string>()): Promise<Set<string>> {
  if (seen.has(file)) return seen;
  seen.add(file);
  const code = await fs.readFile(file, 'utf8');
  for (const m of code.matchAll(/from\s*"(\.{1,2}\/[^"]+)"/g))
    await staticGraph(path.join(path.dirname(file), m[1]!), seen);
  return seen;
}

/** Runs the bundled CLI in a process of its own; says which of node:crypto and node:child_process it loaded. */
async function bundled(args: string[]): Promise<{ code: number; stderr: string; loaded: string[] }> {
  const script = [
    `const { main } = await import(${JSON.stringify(new URL(`file://${path.join(OUT, 'main.js')}`).href)});`,
    'let stderr = "";',
    'const io = { cwd: process.cwd(), env: process.env, stdout: () => {}, stderr: (t) => (stderr += t), isTTY: false };',
    `const code = await main(${JSON.stringify(args)}, io);`,
    'const loaded = process.moduleLoadList.filter((m) => /^NativeModule (crypto|child_process)$/.test(m));',
    'process.stdout.write(JSON.stringify({ code, stderr, loaded: loaded.map((m) => m.slice(13)) }));',
  ].join('\n');
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: REPO });
  return JSON.parse(stdout) as { code: number; stderr: string; loaded: string[] };
}

describe('the bundled CLI (scripts/bundle-cli.mjs)', () => {
  it('loads node:crypto and node:child_process only when they are called', async () => {
    // A chunk of an earlier bundle (chunk names carry a hash of their content) is not left beside the new ones.
    await fs.mkdir(path.join(OUT, 'chunks'), { recursive: true });
    await fs.writeFile(path.join(OUT, 'chunks', 'chunk-EARLIER.js'), 'export {};\n');
    await run(process.execPath, [path.join(REPO, 'scripts', 'bundle-cli.mjs'), OUT], { cwd: REPO });
    expect(existsSync(path.join(OUT, 'chunks', 'chunk-EARLIER.js'))).toBe(false);
    const main = path.join(OUT, 'main.js');
    const collectChunk = /run-collect-[A-Z0-9]+\.js/.exec(await fs.readFile(main, 'utf8'))?.[0];
    expect(collectChunk).toBeDefined();
    const loaded = new Set([
      ...(await staticGraph(main)),
      ...(await staticGraph(path.join(OUT, 'chunks', collectChunk!))),
    ]);
    expect(loaded.size).toBeGreaterThan(10);
    const code = (await Promise.all([...loaded].map((f) => fs.readFile(f, 'utf8')))).join('\n');
    // The sources hash with createHash, commander spawns subcommands: both through a stand-in that loads them.
    expect(code).toContain('createHash(...args)');
    expect(code).toContain('spawn(...args)');
    expect(code).not.toMatch(/from\s*"node:crypto"|require\("node:crypto"\)/);
    expect(code).not.toMatch(/from\s*"node:child_process"|require\("node:child_process"\)/);

    // The stand-ins work: a first collect of the demo home hashes (Claude Code's resume states).
    const data = path.join(await tempDir('bundle'), 'data');
    const cold = await bundled(['collect', '--home', FIXTURE_HOME, '--data', data]);
    expect(cold.code).toBe(0);
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
