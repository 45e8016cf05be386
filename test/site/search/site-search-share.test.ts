import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, startPreview } from '../../helpers/browser.ts';
import { runCli } from '../../helpers/cli.ts';
import { tempDir } from '../../helpers/paths.ts';

const JUNE = 'c0ffee00-0000-4000-8000-0000000000a6';
const JULY = 'c0ffee00-0000-4000-8000-0000000000a7';
// Assembled at run time so that no secret-shaped string sits in the repository.
const SECRETS = {
  aws: ['AKIA', 'Z7QW3ERT5YU2IOPA'].join(''),
  github: ['ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join(''),
  anthropic: ['sk-ant-api03-', 'Xy9'.repeat(30), 'AA'].join(''),
};
const HOME = '/home/carol';
const EMAIL = ['carol.smith', '@example.org'].join('');

async function writeHome(home: string): Promise<void> {
  const dir = path.join(home, '.claude', 'projects', '-home-carol-work-shop');
  await fs.mkdir(dir, { recursive: true });
  const usage = { input_tokens: 10, output_tokens: 5 };
  const session = (id: string, at: string, prompt: string, answer: string) => {
    const common = { cwd: `${HOME}/work/shop`, sessionId: id, isSidechain: false, version: '2.1.38' };
    return [
      { type: 'custom-title', customTitle: `鍵の更新 ${SECRETS.aws}`, sessionId: id },
      { ...common, type: 'user', uuid: `${id}u`, timestamp: at, message: { role: 'user', content: prompt } },
      {
        ...common,
        type: 'assistant',
        uuid: `${id}a`,
        timestamp: at.replace(':00.000Z', ':05.000Z'),
        message: { id: `${id}m`, role: 'assistant', model: 'm', usage, content: [{ type: 'text', text: answer }] },
      },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n');
  };
  await fs.writeFile(
    path.join(dir, `${JUNE}.jsonl`),
    `${session(
      JUNE,
      '2026-06-01T10:00:00.000Z',
      `鍵 ${SECRETS.aws} をローテーションしたい。メールは ${EMAIL}、リポジトリは ${HOME}/work/shop`,
      `\`ANTHROPIC_API_KEY=${SECRETS.anthropic}\` と \`${SECRETS.github}\` を \`${HOME}/.env\` から消してください。`,
    )}\n`,
  );
  await fs.writeFile(
    path.join(dir, `${JULY}.jsonl`),
    `${session(JULY, '2026-07-15T10:00:00.000Z', '月次のローテーション手順を書いて', 'ローテーション手順です。')}\n`,
  );
}

/** Every file of the site's search bundle, decompressed where it is gzip (Pagefind's index and fragments). */
async function searchBundleText(out: string): Promise<string> {
  let text = '';
  const dir = path.join(out, 'pagefind');
  for (const rel of await fs.readdir(dir, { recursive: true })) {
    const full = path.join(dir, rel);
    if (!(await fs.stat(full)).isFile()) continue;
    const bytes = await fs.readFile(full);
    let plain: Buffer;
    try {
      plain = gunzipSync(bytes);
    } catch {
      plain = bytes;
    }
    text += `\n${rel}\n${plain.toString('utf8')}`;
  }
  return text;
}

let home: string;
let data: string;
let browser: Browser | undefined;

beforeAll(async () => {
  home = await tempDir('search-share');
  data = path.join(home, 'data');
  await writeHome(home);
});
afterAll(async () => {
  await browser?.close();
});

describe('site search of share builds', () => {
  it('indexes only redacted, anonymized text (checked in the decompressed fragments)', async () => {
    const personal = path.join(home, 'personal');
    expect((await runCli(['build', '--home', home, '--data', data, '--out', personal, '--tz', 'UTC'])).code).toBe(0);
    const plain = await searchBundleText(personal);
    // The personal index holds the text as it is: what the share build must not.
    expect(plain).toContain(SECRETS.aws);
    expect(plain).toContain(SECRETS.anthropic);
    expect(plain).toContain(`${HOME}/work/shop`);
    expect(plain).toContain('ローテーション');

    const shared = path.join(home, 'shared');
    const run = await runCli(['build', '--share', '--home', home, '--data', data, '--out', shared, '--tz', 'UTC']);
    expect(run.code, run.stderr).toBe(0);
    const text = await searchBundleText(shared);
    expect(text).toContain('ローテーション');
    expect(text).toContain('[REDACTED:aws-access-key]');
    expect(text).toContain('[REDACTED:anthropic-api-key]');
    for (const [name, secret] of Object.entries(SECRETS)) expect(text.includes(secret), name).toBe(false);
    expect(text).not.toContain(HOME);
    expect(text).not.toMatch(/carol/i);
    expect(text).not.toContain(EMAIL);
  });

  it('filters by month in Chromium', async () => {
    const out = path.join(home, 'personal');
    const server = await startPreview(out);
    try {
      browser = await launchChromium();
      const page = await browser.newPage();
      await page.goto(`${server.url}/`);
      const search = async (query: string) => {
        await page.fill('input[name=q]', query);
        await page.waitForFunction(
          (q) => {
            const list = document.querySelector<HTMLElement>('.site-search-results');
            const month = document.querySelector<HTMLSelectElement>('select[name=month]')!.value;
            return list?.dataset.query === q && list.dataset.filters === JSON.stringify(month ? { month } : {});
          },
          query,
          { timeout: 20_000 },
        );
        return page.$$eval('.site-search-results a', (links) =>
          links.map((a) => new URL((a as HTMLAnchorElement).href).pathname),
        );
      };
      const both = await search('ローテーション');
      expect(new Set(both)).toEqual(new Set([`/sessions/claude-code/${JUNE}/`, `/sessions/claude-code/${JULY}/`]));
      await page.selectOption('select[name=month]', '2026-07');
      expect(new Set(await search('ローテーション'))).toEqual(new Set([`/sessions/claude-code/${JULY}/`]));
      await page.fill('input[name=q]', '');
      await page.selectOption('select[name=month]', '2026-06');
      expect(new Set(await search('ローテーション'))).toEqual(new Set([`/sessions/claude-code/${JUNE}/`]));
    } finally {
      await server.stop();
    }
  });
});
