import { formatNumber } from '../util/format.ts';

/** What static hosts refuse (their documentation): Cloudflare Pages' free plan a site of over 20,000 files,
 * and any file over 25 MiB; GitHub Pages a site of over 1 GB. */
const MAX_FILES = 20_000;
const MAX_FILE_BYTES = 25 * 1024 * 1024;
const MAX_BYTES = 1e9;

/** A line for a site a common static host would refuse, saying which and what to do; none for any other. */
export function hostLimitNote(site: {
  files: number;
  bytes: number;
  largest?: { file: string; bytes: number };
}): string | undefined {
  const largest = site.largest && site.largest.bytes > MAX_FILE_BYTES ? site.largest : undefined;
  const refused = [
    ...(site.files > MAX_FILES ? [`Cloudflare Pages' free plan takes at most ${formatNumber(MAX_FILES)} files`] : []),
    ...(largest
      ? [`Cloudflare Pages takes no file over 25 MiB (${largest.file} is ${(largest.bytes / 2 ** 20).toFixed(0)} MiB)`]
      : []),
    ...(site.bytes > MAX_BYTES ? ['GitHub Pages takes a site of at most 1 GB'] : []),
  ];
  if (refused.length === 0) return undefined;
  return (
    `Note: the site is ${formatNumber(site.files)} files, ${(site.bytes / 1e9).toFixed(2)} GB, and ${refused.join(', and ')}: ` +
    `to publish it there, build part of the history (--since YYYY-MM-DD) or only some sessions (--share --sessions).`
  );
}
