import { PACKAGE_ROOT, siteAndBase } from './build-site.ts';

/** Serves a built site with Astro's own static preview server, on localhost only, under the site's base path. */
export async function serveSite(
  outDir: string,
  port: number,
  log: (text: string) => void,
  siteUrl?: string,
): Promise<void> {
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  const { preview } = await import('astro');
  const { base } = siteAndBase(siteUrl);
  const server = await preview({
    root: PACKAGE_ROOT,
    outDir,
    base,
    server: { port, host: '127.0.0.1' },
    logLevel: 'warn',
  });
  log(`Serving ${outDir} at http://127.0.0.1:${server.port}${base} (Ctrl-C to stop)\n`);
  await server.closed();
}
