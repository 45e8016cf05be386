// Bundles the CLI's own TypeScript into dist-cli/ (dependencies stay in node_modules but commander), so the command starts
// in ~0.1 s instead of ~0.5 s through tsx. Run by `npm install` (prepare); bin/agent-logbook.js falls back to
// the sources through tsx whenever src/ is newer than the bundle.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

/**
 * Node modules that cost milliseconds to load (node:crypto ~10 ms, node:child_process ~6 ms with the net and
 * stream modules it pulls in) but that a command often never calls: a warm collect hashes nothing and spawns
 * nothing, yet every source and commander import them. An import of only functions of `LAZY[name]` is bundled
 * as a module of the same functions that load the real one on their first call. Any other import (a class, a
 * constant, `import * as`, a name not listed) keeps the real module, so nothing can go missing.
 */
const LAZY = {
  'node:crypto': ['createHash', 'createHmac', 'hash', 'randomBytes', 'randomInt', 'randomUUID', 'timingSafeEqual'],
  'node:child_process': ['exec', 'execFile', 'execFileSync', 'execSync', 'fork', 'spawn', 'spawnSync'],
};

/** The names `source` takes from `specifier`, or undefined when it takes anything else or in another way. */
function importedNames(source, specifier) {
  const quoted = `['"]${specifier.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}['"]`;
  const names = new Set();
  let uses = 0;
  // ESM: import { a, b as c, type T } from 'specifier'
  for (const m of source.matchAll(new RegExp(`import\\s*(type\\s+)?([^'";]*?)\\s*from\\s*${quoted}`, 'g'))) {
    uses += 1;
    if (m[1]) continue; // import type: erased
    const braces = /^\{([^}]*)\}$/.exec(m[2].trim());
    if (!braces) return undefined; // default or namespace import
    for (const part of braces[1].split(',')) {
      const name = part
        .trim()
        .split(/\s+as\s+/)[0]
        .trim();
      if (name && !name.startsWith('type ')) names.add(name);
    }
  }
  // CommonJS: const x = require('specifier'), then x.name only
  for (const m of source.matchAll(new RegExp(`(?:const|let|var)\\s+(\\w+)\\s*=\\s*require\\(${quoted}\\)`, 'g'))) {
    uses += 1;
    const binding = m[1];
    const mentions = source.match(new RegExp(`\\b${binding}\\b`, 'g')).length;
    const members = [...source.matchAll(new RegExp(`\\b${binding}\\.(\\w+)`, 'g'))];
    if (mentions !== members.length + 1) return undefined; // passed around or called as a whole
    for (const member of members) names.add(member[1]);
  }
  // Any other mention (a dynamic import, a require elsewhere) keeps the real module.
  const mentions = source.match(new RegExp(quoted, 'g'))?.length ?? 0;
  return uses > 0 && mentions === uses ? names : undefined;
}

const lazyBuiltins = {
  name: 'lazy-builtins',
  setup(build) {
    const filter = new RegExp(`^(${Object.keys(LAZY).join('|')})$`);
    build.onResolve({ filter }, (args) => {
      if (args.namespace === 'lazy-builtin' || args.kind === 'dynamic-import') return { external: true };
      const names = importedNames(readFileSync(args.importer, 'utf8'), args.path);
      const lazy = names && [...names].every((name) => LAZY[args.path].includes(name));
      return lazy ? { path: args.path, namespace: 'lazy-builtin' } : { external: true };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy-builtin' }, (args) => ({
      contents: [
        `import { createRequire } from 'node:module';`,
        `let real;`,
        `const load = () => (real ??= createRequire(import.meta.url)(${JSON.stringify(args.path)}));`,
        ...LAZY[args.path].map((name) => `export function ${name}(...args) { return load().${name}(...args); }`),
      ].join('\n'),
      loader: 'js',
    }));
  },
};

const outdir = process.argv[2] ?? 'dist-cli';
// Chunk names carry a hash of their content: the chunks of an earlier bundle would stay beside the new ones (and
// go into a package packed from this folder). A code cache is only good for the bundle it was made with.
rmSync(`${outdir}/chunks`, { recursive: true, force: true });
rmSync(`${outdir}/main.cache`, { force: true });

const common = {
  outdir,
  bundle: true,
  platform: 'node',
  target: 'node20',
  // Dependencies stay in node_modules, except commander: every command loads it first, and bundled it loads in
  // ~10 ms instead of ~25 ms (seven CommonJS files resolved and read one by one).
  plugins: [
    lazyBuiltins,
    {
      name: 'dependencies-external',
      setup(build) {
        build.onResolve({ filter: /^[^./]/ }, (args) => (args.path === 'commander' ? undefined : { external: true }));
      },
    },
  ],
  sourcemap: 'linked',
  logLevel: 'warning',
};

// The command: one CommonJS file, which bin/bundle-load.js runs with a V8 code cache (Node 20 has none for ES
// modules). Its own modules are evaluated when first imported, as in the sources.
await build({
  ...common,
  entryPoints: { main: 'src/cli/main.ts' },
  format: 'cjs',
  outExtension: { '.js': '.cjs' },
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: "const __bundleUrl = require('node:url').pathToFileURL(__filename).href;" },
});

// An import() in the command's bundle fails once read from the code cache (see bin/bundle-load.js): the only one
// allowed is importModule's (src/util/import-module.ts), which the launcher never lets run.
const imports = readFileSync(`${outdir}/main.cjs`, 'utf8').match(/\bimport\(/g)?.length ?? 0;
if (imports !== 1) {
  console.error(
    `bundle-cli: ${outdir}/main.cjs has ${imports} import() calls: import with importModule (src/util/import-module.ts).`,
  );
  process.exit(1);
}

// The worker threads: ES modules sharing chunks (their start is not what a command waits for).
await build({
  ...common,
  entryPoints: {
    'prerender-worker': 'src/transcript/prerender-worker.ts',
    'claude-session-worker': 'src/sources/claude-code/session-worker.ts',
    'site-render-worker': 'src/site/build/render-worker.ts',
    'site-compile-worker': 'src/site/build/compile-worker.ts',
    'site-search-worker': 'src/site/search/site-shard-worker.ts',
  },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
  format: 'esm',
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});

// What bin/agent-logbook.js checks to tell whether this bundle is older than src/: each folder (its time changes
// when a file is added, removed or renamed in it) and each file.
const sources = readdirSync('src', { recursive: true, withFileTypes: true }).map((entry) =>
  `${entry.parentPath}/${entry.name}`.replaceAll('\\', '/'),
);
writeFileSync(`${outdir}/sources.txt`, ['src', ...sources.sort()].join('\n') + '\n');

// The code cache holds what V8 compiled while the command ran: a collect of the demo home, first and again
// (what a warm collect runs), in a folder of the bundle's own that goes afterwards. Without the demo home (an
// installed package), what --help compiles.
const training = `${outdir}/.cache-training`;
rmSync(training, { recursive: true, force: true });
const demo = existsSync('fixtures/home');
const commands = demo
  ? [1, 2].map(() => ['collect', '--home', 'fixtures/home', '--data', `${training}/data`])
  : [['--help']];
const trainer = [
  `import { loadBundle, tuneV8 } from ${JSON.stringify(pathToFileURL('bin/bundle-load.js').href)};`,
  'tuneV8();',
  `const bundle = loadBundle(${JSON.stringify(path.resolve(outdir))});`,
  `const io = { cwd: process.cwd(), env: {}, stdout: () => {}, stderr: () => {}, isTTY: false };`,
  `for (const argv of ${JSON.stringify(commands)}) if ((await bundle.main(argv, io)) !== 0) process.exit(1);`,
  'bundle.writeCache();',
].join('\n');
try {
  execFileSync(process.execPath, ['--input-type=module', '-e', trainer], { stdio: 'inherit' });
} catch {
  console.warn('bundle-cli: no code cache made (the command runs without it, ~25 ms slower to start).');
}
rmSync(training, { recursive: true, force: true });
