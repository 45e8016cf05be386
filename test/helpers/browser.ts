import { chromium, type Browser, type Page } from 'playwright-core';

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

/** Types a query into the site's search box the way a person does: `/` to focus it, what it held cleared. */
export async function typeQuery(page: Page, query: string): Promise<void> {
  await page.keyboard.press('Escape');
  await page.keyboard.press('/');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await page.keyboard.type(query);
}

/** Lays out every part of the page, even those far from the screen that the site leaves to the browser to skip
 * (`content-visibility: auto`: a session's messages, a phone's table cards). A check of what fits the page sees
 * them all this way, and something too wide widens the page instead of being cut at the edge of its own box. */
export async function layOutEverything(page: Page): Promise<void> {
  // A constructed style sheet: the site's CSP (style-src 'self') refuses a <style> element.
  await page.evaluate(() => {
    const sheet = new CSSStyleSheet();
    sheet.replaceSync('* { content-visibility: visible !important; contain: none !important; }');
    document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
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
