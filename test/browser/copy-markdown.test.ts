import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, startPreview } from '../helpers/browser.ts';

const site = inject('site');
let server: Awaited<ReturnType<typeof startPreview>>;
let browser: Browser;

beforeAll(async () => {
  server = await startPreview(site.outDir);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe('the Copy Markdown button', () => {
  it('puts the week report on the clipboard, under the page CSP, with no console errors', async () => {
    const context = await browser.newContext({ permissions: ['clipboard-read', 'clipboard-write'] });
    const page = await context.newPage();
    const errors: string[] = [];
    // Script errors, CSP refusals and failed requests (the favicon is another page's business).
    page.on(
      'console',
      (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && errors.push(m.text()),
    );
    page.on('pageerror', (e) => errors.push(e.message));
    page.on(
      'response',
      (r) => r.status() >= 400 && !r.url().endsWith('/favicon.ico') && errors.push(`${r.status()} ${r.url()}`),
    );
    await page.goto(`${server.url}/weeks/2026-W10/`);
    const button = page.getByRole('button', { name: 'Copy Markdown' });
    await expect(button.isVisible()).resolves.toBe(true);
    await button.click();
    await expect.poll(() => page.locator('[data-copy-status]').textContent()).toBe('Copied.');
    const copied = await page.evaluate(() => navigator.clipboard.readText());
    const file = await fs.readFile(path.join(site.outDir, 'weeks', '2026-W10.md'), 'utf8');
    expect(copied).toBe(file);
    // "Show the Markdown" shows the same file's text, which the page itself does not carry.
    await expect(page.locator('pre[data-markdown]').textContent()).resolves.toBe('');
    await page.getByText('Show the Markdown').click();
    await expect.poll(() => page.locator('pre[data-markdown]').textContent()).toBe(file);
    expect(errors).toEqual([]);
    await context.close();
  });
});
