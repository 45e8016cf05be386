// Compiles the site's page templates into dist-site/ when the package is installed (`prepare`), so a user's
// build renders with them at once instead of running Vite and Rollup in every new data directory.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { precompileRenderer } from '../src/site/build/compile.ts';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.env.ASTRO_TELEMETRY_DISABLED = '1';
const started = Date.now();
const renderer = await precompileRenderer(packageRoot);
console.log(
  `Page templates compiled into ${path.relative(packageRoot, renderer.dir)} (${((Date.now() - started) / 1000).toFixed(1)}s)`,
);
