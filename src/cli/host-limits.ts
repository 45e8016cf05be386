import { formatNumber } from '../util/format.ts';

/** What static hosts refuse (their documentation): Cloudflare Pages' free plan a site of over 20,000 files,
 * GitHub Pages one of over 1 GB. */
const MAX_FILES = 20_000;
const MAX_BYTES = 1e9;

/** A line for a site a common static host would refuse, saying which and what to do; none for any other. */
export function hostLimitNote(site: { files: number; bytes: number }): string | undefined {
  const refused = [
    ...(site.files > MAX_FILES ? [`Cloudflare Pages' free plan takes at most ${formatNumber(MAX_FILES)} files`] : []),
    ...(site.bytes > MAX_BYTES ? ['GitHub Pages takes a site of at most 1 GB'] : []),
  ];
  if (refused.length === 0) return undefined;
  return (
    `Note: the site is ${formatNumber(site.files)} files, ${(site.bytes / 1e9).toFixed(2)} GB, and ${refused.join(', and ')}: ` +
    `to publish it there, build part of the history (--since YYYY-MM-DD) or only some sessions (--share --sessions).`
  );
}
