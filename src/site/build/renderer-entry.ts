// The entry of the site renderer bundle that compile.ts builds with Vite once per template hash: every page
// module of src/site/pages (with the whole component tree each imports) and Astro's container, from one build so
// they share one Astro runtime. Nothing here runs inside Astro's own build.
export { experimental_AstroContainer } from 'astro/container';
export {
  closeSessionPages,
  sessionPageDigest,
  spliceThreads,
  takeThreadBytes,
  THREAD_MARKER,
  withIndexStampHeld,
} from '../data.ts';

/** Page modules by their path relative to src/site/pages (`days/[day].astro`, `stats.json.ts`, …). */
export const pageModules: Record<string, Record<string, unknown>> = Object.fromEntries(
  Object.entries(import.meta.glob('../pages/**/*.{astro,ts,js}', { eager: true })).map(([file, module]) => [
    file.replace(/^\.\.\/pages\//, ''),
    module as Record<string, unknown>,
  ]),
);

/** The base path the bundle was compiled with (Astro's `base`, as `href()` reads it). */
export const baseUrl: string = import.meta.env.BASE_URL;
