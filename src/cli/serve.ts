import { PACKAGE_ROOT } from './build-site.ts';

/** Serves a built site with Astro's own static preview server, on localhost only. */
export async function serveSite(outDir: string, port: number, log: (text: string) => void): Promise<void> {
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  const { preview } = await import('astro');
  const server = await preview({ root: PACKAGE_ROOT, outDir, server: { port, host: '127.0.0.1' }, logLevel: 'warn' });
  log(`Serving ${outDir} at http://127.0.0.1:${server.port}/ (Ctrl-C to stop)\n`);
  await server.closed();
}
