/**
 * Where the site is published (`--site-url`), as Astro's `site` and `base`: `https://host/path/` → site
 * `https://host`, base `/path/`; `/path/` → base only; none → served from `/`. The one place that reads a site
 * URL: the build's config, the compiled templates and `href()` all go through it.
 */
export function siteAndBase(siteUrl: string | undefined): { site?: string; base: string } {
  if (!siteUrl) return { base: '/' };
  if (siteUrl.startsWith('/')) return { base: siteUrl };
  const url = new URL(siteUrl);
  return { site: url.origin, base: url.pathname };
}

/** The base path without its trailing slash (`/logbook`, or `` at the root), for joining with `/days/…`. */
export function basePathOf(siteUrl: string | undefined): string {
  return siteAndBase(siteUrl).base.replace(/\/+$/, '');
}
