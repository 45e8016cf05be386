/**
 * Astro's file routing for a static build with `build.format: 'directory'` and `trailingSlash: 'always'`,
 * for the kinds of route files this site has: `.astro` pages and `.ts`/`.js` endpoints, `[param]` and
 * `[...rest]` segments. A test checks every output path against Astro's own build of the fixtures.
 */

export interface RouteFile {
  /** Path under src/site/pages, with `/` separators. */
  file: string;
  endpoint: boolean;
  /** Whether the route has parameters (and so a `getStaticPaths`). */
  dynamic: boolean;
}

/** The route files Astro would build: skips `_`-prefixed files and folders, like Astro. */
export function routeFile(file: string): RouteFile | undefined {
  if (file.split('/').some((part) => part.startsWith('_'))) return undefined;
  const endpoint = /\.(ts|js)$/.test(file);
  if (!endpoint && !file.endsWith('.astro')) return undefined;
  if (file.endsWith('.d.ts')) return undefined;
  return { file, endpoint, dynamic: /\[[^\]]+\]/.test(file) };
}

/**
 * The output file for one route of a route file (relative to the output directory, `/` separators).
 * Parameter values are used as given: `getStaticPaths` already made them path-safe (ids go through
 * `idToPathSegment`).
 */
export function outputPath(route: RouteFile, params: Record<string, string | number | undefined>): string {
  const stem = route.file.replace(/\.(astro|ts|js)$/, '');
  const segments = stem
    .split('/')
    .map((segment) =>
      segment.replace(/\[(\.\.\.)?([^\]]+)\]/g, (_, rest: string | undefined, name: string) => {
        const value = params[name];
        if (value === undefined || value === '') {
          if (rest) return '';
          throw new Error(`${route.file}: no value for parameter "${name}"`);
        }
        const text = String(value);
        if (!rest && text.includes('/')) throw new Error(`${route.file}: "${name}" = "${text}" holds a "/"`);
        return text;
      }),
    )
    .join('/')
    .split('/')
    .filter((part) => part !== '');
  for (const part of segments) {
    if (part === '.' || part === '..') throw new Error(`${route.file}: a parameter makes the path segment "${part}"`);
  }
  if (route.endpoint) {
    if (segments.length === 0) throw new Error(`${route.file}: an endpoint needs a file name`);
    return segments.join('/');
  }
  const last = segments.at(-1);
  if (segments.length === 1 && (last === '404' || last === '500')) return `${last}.html`;
  if (last === 'index') segments.pop();
  return [...segments, 'index.html'].join('/');
}

/** The URL path of an output file, as a browser asks for it (for `Astro.url`). */
export function urlPathOf(output: string, base: string): string {
  const trimmedBase = base.replace(/\/$/, '');
  if (output === 'index.html') return `${trimmedBase}/`;
  if (output.endsWith('/index.html')) return `${trimmedBase}/${output.slice(0, -'index.html'.length)}`;
  return `${trimmedBase}/${output}`;
}
