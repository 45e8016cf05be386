import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's Chromium, headless, with the flags this machine's closed network needs. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** Serves a built site with agent-logbook's own static server (the one `serve` runs) on a free loopback port. */
export async function startPreview(outDir: string): Promise<{ url: string; stop: () => Promise<void> }> {
  const { startStaticServer } = await import('../../src/site/serve/static-server.ts');
  const server = await startStaticServer({ root: outDir, port: await freePort() });
  return { url: server.url.replace(/\/$/, ''), stop: () => server.close() };
}

async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as import('node:net').AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}
