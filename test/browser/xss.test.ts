import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startPreview } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';
import { XSS_PAYLOADS } from '../fixtures/xss-payloads.ts';

const SESSION_ID = 'f0f0f0f0-0000-4000-8000-00000000000f';

/** A Claude Code session carrying every payload in every place a transcript can put text. */
async function writeHostileHome(home: string): Promise<void> {
  const dir = path.join(home, '.claude', 'projects', '-home-mallory-evil');
  await fs.mkdir(dir, { recursive: true });
  const common = {
    cwd: '/home/mallory/evil<img src=x onerror=window.__xss=1>',
    sessionId: SESSION_ID,
    isSidechain: false,
  };
  const lines: unknown[] = [{ type: 'custom-title', customTitle: XSS_PAYLOADS[0], sessionId: SESSION_ID }];
  XSS_PAYLOADS.forEach((payload, i) => {
    const at = new Date(Date.parse('2026-05-01T00:00:00Z') + i * 10_000).toISOString();
    const usage = { input_tokens: 1, output_tokens: 1 };
    lines.push(
      { ...common, type: 'user', uuid: `u${i}`, timestamp: at, message: { role: 'user', content: payload } },
      {
        ...common,
        type: 'assistant',
        uuid: `a${i}`,
        timestamp: at,
        message: {
          id: `m${i}`,
          role: 'assistant',
          model: 'm',
          usage,
          content: [
            { type: 'thinking', thinking: payload, signature: 's' },
            { type: 'text', text: `Payload ${i + 1}:\n\n${payload}\n\n[link](${payload})` },
            { type: 'tool_use', id: `call${i}`, name: payload.slice(0, 40), input: { command: payload } },
          ],
        },
      },
      {
        ...common,
        type: 'user',
        uuid: `r${i}`,
        timestamp: at,
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `call${i}`, content: payload }] },
      },
    );
  });
  await fs.writeFile(path.join(dir, `${SESSION_ID}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
  await fs.writeFile(
    path.join(home, '.claude', 'history.jsonl'),
    `${XSS_PAYLOADS.map((p, i) => JSON.stringify({ display: p, timestamp: Date.parse('2026-05-01T00:00:00Z') + i, project: common.cwd, sessionId: SESSION_ID })).join('\n')}\n`,
  );
}

let browser: Browser;
let server: { url: string; stop: () => Promise<void> };
let outDir: string;

beforeAll(async () => {
  const home = await tempDir('xss');
  await writeHostileHome(home);
  outDir = path.join(home, 'dist');
  const run = await runCli([
    'build',
    '--home',
    home,
    '--data',
    path.join(home, 'data'),
    '--out',
    outDir,
    '--tz',
    'UTC',
  ]);
  if (run.code !== 0) throw new Error(run.stderr);
  server = await startPreview(outDir);
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

describe(`${XSS_PAYLOADS.length} XSS payloads in a transcript, opened in Chromium`, () => {
  it('has at least 100 payloads', () => {
    expect(XSS_PAYLOADS.length).toBeGreaterThanOrEqual(100);
  });

  it('runs none of them on any page, and makes no request off the site', async () => {
    const pages = ['/', '/days/2026-05-01/', `/sessions/claude-code/${SESSION_ID}/`, '/stats/'];
    const projects = await fs.readdir(path.join(outDir, 'projects'));
    pages.push(...projects.map((p) => `/projects/${p}/`));
    for (const route of pages) {
      const page = await browser.newPage();
      const foreign: string[] = [];
      const dialogs: string[] = [];
      page.on('request', (req) => {
        if (!req.url().startsWith(server.url) && !req.url().startsWith('data:')) foreign.push(req.url());
      });
      page.on('dialog', (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await page.goto(`${server.url}${route}`, { waitUntil: 'load' });
      // Open every <details> so lazily shown content is in the live DOM too.
      await page.evaluate(() => document.querySelectorAll('details').forEach((d) => (d.open = true)));
      await page.waitForTimeout(300);
      const flag = await page.evaluate(() => (window as unknown as { __xss?: string }).__xss);
      expect({ route, flag, dialogs, foreign }).toEqual({ route, flag: undefined, dialogs: [], foreign: [] });
      await page.close();
    }
  });

  it('shows the payloads as text', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/sessions/claude-code/${SESSION_ID}/`);
    const prompts = await page.locator('.thread .prompt .plain').allTextContents();
    expect(prompts).toContain(XSS_PAYLOADS[0]);
    // No script but the site's own files (the session page's keyboard/copy script, the search box's).
    expect(await page.locator('script:not([src="/session.js"]):not([src="/search.js"])').count()).toBe(0);
    await page.close();
  });
});
