import { readFileSync, statSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';

/**
 * V8 settings for every run of the CLI, bundled or not (and for the run that makes the code cache: V8 refuses a
 * cache made under other flags). The young generation grows to its full size at its first scavenge instead of
 * doubling at each: a short command (a collect that finds nothing new) then scavenges half as often and promotes
 * less, which spares it the old-generation collection it otherwise ends with; a long one reaches that size anyway.
 */
export function tuneV8() {
  v8.setFlagsFromString('--semi-space-growth-factor=16');
}

/**
 * @typedef {object} LoadedBundle
 * @property {(argv: string[], io?: unknown) => Promise<number>} main the CLI (src/cli/main.ts)
 * @property {'used' | 'rejected' | 'none'} cache whether V8 took the code cache beside the bundle
 * @property {() => void} writeCache writes the code cache of what this process has compiled so far
 */

/**
 * Runs `<dist>/main.cjs`, the CLI bundled into one CommonJS file (scripts/bundle-cli.mjs), with the V8 code cache
 * beside it (`main.cache`): a command then starts without parsing and compiling the functions a collect runs,
 * ~25 ms of a warm collect's ~230. Node 20 offers a code cache only for scripts, not for ES modules. A cache older
 * than the bundle is not offered; one V8 refuses (another Node version, other flags) costs nothing but the read.
 * @param {string} dist the bundle's folder
 * @returns {LoadedBundle}
 */
export function loadBundle(dist) {
  const file = path.join(dist, 'main.cjs');
  const cacheFile = path.join(dist, 'main.cache');
  const source = readFileSync(file, 'utf8');
  const cachedData = readCache(cacheFile, statSync(file).mtimeMs);
  const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
  // Node 20's V8 loses, in a function read from a code cache, what an import() there needs: the bundle's
  // import() calls come here (src/util/import-module.ts), and scripts/bundle-cli.mjs checks it has no other.
  globalThis[Symbol.for('agent-logbook.import')] ??= (specifier) => import(specifier);
  const module = { exports: {} };
  script.runInThisContext()(module.exports, Module.createRequire(file), module, file, dist);
  return {
    main: module.exports.main,
    cache: !cachedData ? 'none' : script.cachedDataRejected ? 'rejected' : 'used',
    writeCache: () => writeFileSync(cacheFile, script.createCachedData()),
  };
}

/** The cache when it was made after the bundle, else undefined. */
function readCache(cacheFile, bundleTime) {
  try {
    return statSync(cacheFile).mtimeMs >= bundleTime ? readFileSync(cacheFile) : undefined;
  } catch {
    return undefined;
  }
}
