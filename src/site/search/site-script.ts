import { promises as fs } from 'node:fs';
import path from 'node:path';
import { importModule } from '../../util/import-module.ts';
import { temporaryBeside } from '../../util/temp-files.ts';

export const SEARCH_SCRIPT = 'search.js';

/** The search box's browser script, bundled from `src/site/client/search.ts` (which shares the CJK n-gram rules of
 * `search/cjk.ts` with the index) into `<out>/search.js`. The site build renders pages through Astro's container
 * and has no client build of its own, so a component's `<script>` would not reach the browser; this file is
 * linked from the search box like `session.js`. Written only when its bytes change. */
export async function writeSearchScript(outDir: string, packageRoot: string): Promise<void> {
  const { build } = await importModule<typeof import('esbuild')>('esbuild');
  const result = await build({
    entryPoints: [path.join(packageRoot, 'src', 'site', 'client', 'search.ts')],
    bundle: true,
    format: 'esm',
    target: 'es2022',
    minify: true,
    write: false,
    legalComments: 'none',
  });
  const bytes = Buffer.from(result.outputFiles[0]!.contents);
  const target = path.join(outDir, SEARCH_SCRIPT);
  const current = await fs.readFile(target).catch(() => undefined);
  if (current?.equals(bytes)) return;
  const temp = temporaryBeside(target);
  await fs.writeFile(temp, bytes);
  await fs.rename(temp, target);
}
