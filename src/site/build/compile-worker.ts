import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { Plugin, UserConfig } from 'vite';

export interface CompileTask {
  packageRoot: string;
  /** Where the bundle goes (emptied first). */
  outDir: string;
}

export type CompileResult = { ok: true } | { ok: false; message: string; stack?: string };

/**
 * The dependencies the bundle imports from node_modules; every other one is bundled into it. A worker that
 * renders pages loads the bundle first: with Astro's runtime, date-fns and the Markdown libraries as ~2,000
 * separate modules that took 1.0 s a thread (0.4 s bundled), more than a one-session rebuild renders.
 * Kept outside: native addons (better-sqlite3, sharp), jsdom (it reads files beside its modules), shiki (each
 * language and theme is a module of its own, imported when first used) and the build tools that Astro's runtime
 * names but a render never runs.
 */
const EXTERNAL = new RegExp(
  String.raw`[\\/]node_modules[\\/](better-sqlite3|sharp|@img|jsdom|shiki|@shikijs|vite|esbuild|@esbuild|rollup|@rollup|lightningcss)[\\/]`,
);

/** Compiles the pages into one SSR bundle with Vite and Astro's own plugins (see compileRenderer). */
// Compiled at the site's root, with no `site`: the pages read the site URL and its base path when they render
// (see href()), so one bundle serves every build.
async function compile({ packageRoot, outDir }: CompileTask): Promise<void> {
  const { build } = await import('vite');
  const { getViteConfig } = await import('astro/config');
  const shim = path.join(packageRoot, 'src', 'site', 'content-shim.ts');
  const resolveOutside: Plugin = {
    name: 'agent-logbook:renderer',
    enforce: 'pre',
    async resolveId(id, importer) {
      // The pages' collections come straight from the data directory (see content-shim.ts).
      if (id === 'astro:content') return shim;
      if (!importer || /^[./\0]|^[a-z]+:/.test(id)) return null;
      const resolved = await this.resolve(id, importer, { skipSelf: true });
      if (resolved && !resolved.external && EXTERNAL.test(resolved.id)) {
        return { id: resolved.id, external: true };
      }
      return null;
    },
    // The bundle may live in the data directory, where no node_modules is found by walking up (see compileRenderer):
    // a require made from its own URL (a dependency loaded on first use) starts from the package instead.
    renderChunk(code) {
      if (!code.includes('createRequire(import.meta.url)')) return null;
      const from = JSON.stringify(path.join(packageRoot, 'package.json'));
      return { code: code.replaceAll('createRequire(import.meta.url)', `createRequire(${from})`), map: null };
    },
  };
  const userConfig: UserConfig = {
    root: packageRoot,
    logLevel: 'error',
    ssr: { noExternal: true },
    build: {
      ssr: path.join(packageRoot, 'src', 'site', 'build', 'renderer-entry.ts'),
      outDir,
      emptyOutDir: true,
      ssrEmitAssets: true,
      cssCodeSplit: false,
      minify: false,
      // Vite's default target lowers class fields to helper calls (a private one to a WeakMap): Astro's runtime
      // and marked make objects with fields for every page and every Markdown text. The stylesheet is still for
      // the browsers Vite's default names.
      target: 'node20',
      cssTarget: ['es2020', 'edge88', 'firefox78', 'chrome87', 'safari14'],
      rollupOptions: { output: { format: 'esm', entryFileNames: 'entry.mjs' } },
    },
  };
  const config = await getViteConfig(userConfig, { root: packageRoot, logLevel: 'error' })({
    mode: 'production',
    command: 'build',
  });
  // Ahead of Astro's own resolver, which would hand `astro:content` its content-layer runtime.
  config.plugins = [resolveOutside, ...(config.plugins ?? []).filter((p) => p !== resolveOutside)];
  // This thread's own copy of the environment: the parent's NODE_ENV is untouched.
  process.env.NODE_ENV = 'production';
  await build({ ...config, configFile: false });
}

compile(workerData as CompileTask).then(
  () => parentPort!.postMessage({ ok: true } satisfies CompileResult),
  (error: unknown) =>
    parentPort!.postMessage({
      ok: false,
      message: error instanceof Error ? error.message : String(error),
      stack: error instanceof Error ? error.stack : undefined,
    } satisfies CompileResult),
);
