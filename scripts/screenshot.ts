/**
 * Developer aid: screenshots of built pages, to look at the site as a person would.
 *   npx tsx scripts/screenshot.ts <dist> <out-dir> /path/ [/other/path/ …]
 */
import path from 'node:path';
import { launchChromium, layOutEverything, startPreview } from '../test/helpers/browser.ts';

const [dist, outDir, ...routes] = process.argv.slice(2);
if (!dist || !outDir || routes.length === 0) {
  console.error('usage: tsx scripts/screenshot.ts <dist> <out-dir> <route>…');
  process.exit(2);
}
process.env.ASTRO_TELEMETRY_DISABLED = '1';
const server = await startPreview(path.resolve(dist));
const browser = await launchChromium();
const width = Number(process.env.WIDTH ?? 1280);
const page = await browser.newPage({
  viewport: { width, height: 900 },
  colorScheme: process.env.DARK ? 'dark' : 'light',
});
for (const [i, route] of routes.entries()) {
  await page.goto(`${server.url}${route}`);
  // A whole page's screenshot: what the browser would skip far from the screen is laid out too.
  await layOutEverything(page);
  if (process.env.OPEN_DETAILS)
    await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
  const file = path.join(outDir, `${i}-${route.replace(/[^a-z0-9]+/gi, '_')}.png`);
  await page.screenshot({ path: file, fullPage: true });
  console.log(file);
}
await browser.close();
await server.stop();
