import { createHash } from 'node:crypto';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { workerFile } from '../../util/worker-pool.ts';
import type { CompileTask, CompileResult } from './compile-worker.ts';

/** What a compiled renderer is: its entry module and the stylesheets its pages link. */
export interface CompiledRenderer {
  /** Hash of everything the markup depends on: bumps when a template, style or page helper changes. */
  hash: string;
  dir: string;
  entry: string;
  /** Emitted stylesheets, relative to `dir` (`_astro/….css`). */
  styles: string[];
  /** Compiled by this call (else found compiled by an earlier build). */
  compiled?: boolean;
}

const MANIFEST = 'renderer.json';

const COMPILE_WORKER = workerFile(import.meta.url, 'site-compile-worker', './compile-worker.js');

/**
 * The template hash: what the compiled pages are made of, and nothing else. Every file under src/ and public/
 * (pages, components, layouts, styles and the TypeScript they import: hashing all of src/ costs a few
 * milliseconds and never misses a file a component imports), the Astro config, and the installed version of
 * every runtime dependency, as the bundle imports them from node_modules (marked, shiki, DOMPurify, Astro's
 * runtime…). No setting is compiled in: the config reads no environment, and the pages read the options (the
 * site's base path too, see href()) when they render; the build keys the pages by them. So one bundle, made when
 * the package is installed, serves every build.
 */
export async function templateHash(packageRoot: string): Promise<string> {
  const hash = createHash('sha256');
  // The bundle imports its dependencies by absolute path: a moved installation compiles again. Resolved, as
  // callers spell the same folder with and without its trailing separator.
  hash.update(path.resolve(packageRoot)).update('\0');
  // public/ too: its files are copied into the site, and a change must not hide behind "nothing changed".
  for (const folder of ['src', 'public']) {
    const root = path.join(packageRoot, folder);
    const files = (await fs.readdir(root, { recursive: true, withFileTypes: true }).catch(() => []))
      .filter((e) => e.isFile())
      .map((e) => path.join(e.parentPath, e.name))
      .sort();
    for (const file of files) {
      hash
        .update(path.relative(packageRoot, file))
        .update('\0')
        .update(await fs.readFile(file))
        .update('\0');
    }
  }
  hash.update(readFileSync(path.join(packageRoot, 'astro.config.mjs')));
  const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as {
    version?: string;
    dependencies?: Record<string, string>;
  };
  hash.update(`\0${manifest.version ?? ''}`);
  for (const name of Object.keys(manifest.dependencies ?? {}).sort()) {
    hash.update(`\0${name}@${installedVersion(packageRoot, name) ?? 'missing'}`);
  }
  return hash.digest('hex').slice(0, 20);
}

/** The version of the package `name` as Node resolves it from `packageRoot` (the nearest node_modules up). */
function installedVersion(packageRoot: string, name: string): string | undefined {
  for (let at = path.resolve(packageRoot); ; at = path.dirname(at)) {
    const file = path.join(at, 'node_modules', name, 'package.json');
    if (existsSync(file)) {
      try {
        return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? '';
      } catch {
        return 'unreadable';
      }
    }
    if (path.dirname(at) === at) return undefined;
  }
}

/** Where `npm install` puts the renderer of the package's own templates (see precompileRenderer). */
export const precompiledDir = (packageRoot: string): string => path.join(packageRoot, 'dist-site');

/**
 * The site renderer for the current templates: the one compiled when the package was installed
 * (`<package>/dist-site/<hash>/`), else compiled by Vite with Astro's own plugins (`getViteConfig`) into
 * `<cacheDir>/<hash>/` (a template changed in a development checkout), or taken from there when an earlier
 * build made it. Astro's container API can
 * only import `.astro` files inside Vite; outside it renders compiled components, so this compiles them
 * once per template hash. Dependencies stay in node_modules, imported by absolute path (the bundle lives in
 * the data directory, where no node_modules is found by walking up).
 */
export async function compileRenderer(packageRoot: string, cacheDir: string): Promise<CompiledRenderer> {
  const hash = await templateHash(packageRoot);
  const installed = await readCompiled(path.join(precompiledDir(packageRoot), hash));
  if (installed) return installed;
  return compileInto(packageRoot, cacheDir, hash);
}

/** Compiles the renderer of the package's templates into `<package>/dist-site/` (run by `npm install`). */
export async function precompileRenderer(packageRoot: string): Promise<CompiledRenderer> {
  return compileInto(packageRoot, precompiledDir(packageRoot), await templateHash(packageRoot));
}

async function compileInto(packageRoot: string, cacheDir: string, hash: string): Promise<CompiledRenderer> {
  const dir = path.join(cacheDir, hash);
  const known = await readCompiled(dir);
  if (known) return known;
  const staging = `${dir}.tmp-${process.pid}-${Date.now()}`;
  // In a thread of its own: Vite, Rollup and Astro's compiler stay loaded after a build, about 100 MB this
  // process would carry through the page rendering; a thread's memory goes when it ends.
  await compileInWorker({ packageRoot, outDir: staging });
  const styles = (await fs.readdir(path.join(staging, '_astro')).catch(() => [] as string[]))
    .filter((name) => name.endsWith('.css'))
    .sort()
    .map((name) => `_astro/${name}`);
  const compiled: CompiledRenderer = { hash, dir, entry: path.join(dir, 'entry.mjs'), styles, compiled: true };
  await fs.writeFile(path.join(staging, MANIFEST), JSON.stringify({ styles }));
  await fs.rm(dir, { recursive: true, force: true });
  try {
    await fs.rename(staging, dir);
  } catch (error) {
    // Another build compiled the same templates at the same time: theirs is as good as ours.
    await fs.rm(staging, { recursive: true, force: true });
    if (!(await readCompiled(dir))) throw error;
  }
  await removeOtherRenderers(cacheDir, hash);
  return compiled;
}

async function readCompiled(dir: string): Promise<CompiledRenderer | undefined> {
  try {
    const { styles } = JSON.parse(await fs.readFile(path.join(dir, MANIFEST), 'utf8')) as { styles: string[] };
    return { hash: path.basename(dir), dir, entry: path.join(dir, 'entry.mjs'), styles };
  } catch {
    return undefined;
  }
}

/** Renderers of older templates are of no further use; a crashed compile's staging directory neither. */
async function removeOtherRenderers(cacheDir: string, keep: string): Promise<void> {
  for (const name of await fs.readdir(cacheDir).catch(() => [] as string[])) {
    if (name === keep || name.startsWith(`${keep}.tmp-`)) continue;
    await fs.rm(path.join(cacheDir, name), { recursive: true, force: true }).catch(() => undefined);
  }
}

function compileInWorker(task: CompileTask): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(COMPILE_WORKER, { workerData: task });
    let result: CompileResult | undefined;
    worker.once('message', (message: CompileResult) => (result = message));
    worker.once('error', reject);
    worker.once('exit', (code) => {
      if (result?.ok) resolve();
      else if (result) reject(Object.assign(new Error(result.message), { stack: result.stack }));
      else reject(new Error(`compiling the page templates stopped (exit code ${code})`));
    });
  });
}
