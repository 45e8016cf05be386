import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchChromium, startPreview } from '../helpers/browser.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';

const CHATTY = 'c4a77700-0000-4000-8000-000000000001';
const QUIET = [
  'a1000000-0000-4000-8000-00000000000a',
  'a2000000-0000-4000-8000-00000000000b',
  'a3000000-0000-4000-8000-00000000000c',
];
/** Over 300 messages a page: the chatty session's record is cut into three pages, each found by "deploy". */
const EXCHANGES = 400;
const ANSWER = (step: number) =>
  `### Deploy step ${step}\n\n**Deployed** the \`api\` service to _staging_:\n\n- see [the log](https://ci.example.com/${step})\n` +
  `- next: \`make deploy\`\n\n| env | result |\n| --- | --- |\n| staging | **ok** |`;
const QUIET_ANSWER =
  '## Result\n\n**Deployed** `web` to _production_, see [the log](https://ci.example.com/run/1).\n\n' +
  '```sh\nmake deploy ENV=production # **not bold** in code\n```\n\n> Rollback with `make rollback`.';

function session(id: string, project: string, exchanges: [string, string][]): string {
  const common = { cwd: `/home/dana/work/${project}`, sessionId: id, isSidechain: false, version: '2.1.38' };
  const records = exchanges.flatMap(([prompt, answer], i) => {
    const at = (second: number) => new Date(Date.UTC(2026, 4, 4, 9, 0, 0) + (i * 10 + second) * 1000).toISOString();
    return [
      { type: 'user', uuid: `${id}-u${i}`, timestamp: at(0), message: { role: 'user', content: prompt } },
      {
        type: 'assistant',
        uuid: `${id}-a${i}`,
        timestamp: at(5),
        message: {
          id: `${id}-m${i}`,
          role: 'assistant',
          model: 'm',
          usage: { input_tokens: 10, output_tokens: 5 },
          content: [{ type: 'text', text: answer }],
        },
      },
    ];
  });
  return `${records.map((r) => JSON.stringify({ ...common, ...r })).join('\n')}\n`;
}

/** Sessions of another project, each a bundle of the index of its own (over 250,000 characters), every one
 * found by "kumquat": the search box reads the bundles Pagefind ranks first in three rounds before it has ten. */
const ORCHARD = Array.from({ length: 14 }, (_, i) => `b${String(i).padStart(7, '0')}-0000-4000-8000-000000000001`);
const ORCHARD_EXCHANGES = 120;
const orchardAnswer = (session: number, step: number) =>
  `Picked row ${step} of orchard ${session}: the kumquat trees ${'bear fruit along the terrace wall, '.repeat(60)}done.`;

let out: string;
let browser: Browser;
let server: { url: string; stop: () => Promise<void> };

beforeAll(async () => {
  const root = await tempDir('search-sessions');
  const home = path.join(root, 'home');
  const dir = path.join(home, '.claude', 'projects', '-home-dana-work-ops');
  await fs.mkdir(dir, { recursive: true });
  const chatty = Array.from({ length: EXCHANGES }, (_, i): [string, string] => [
    `Run deploy step ${i + 1}.`,
    ANSWER(i + 1),
  ]);
  await fs.writeFile(path.join(dir, `${CHATTY}.jsonl`), session(CHATTY, 'ops', chatty));
  for (const [i, id] of QUIET.entries())
    await fs.writeFile(
      path.join(dir, `${id}.jsonl`),
      session(id, 'ops', [[`Ship web release ${i + 1}, then deploy it.`, QUIET_ANSWER]]),
    );
  const orchard = path.join(home, '.claude', 'projects', '-home-dana-work-orchard');
  await fs.mkdir(orchard, { recursive: true });
  for (const [n, id] of ORCHARD.entries()) {
    const exchanges = Array.from({ length: ORCHARD_EXCHANGES }, (_, i): [string, string] => [
      `Pick row ${i + 1} of orchard ${n + 1}.`,
      orchardAnswer(n + 1, i + 1),
    ]);
    await fs.writeFile(path.join(orchard, `${id}.jsonl`), session(id, 'orchard', exchanges));
  }
  const data = path.join(root, 'data');
  out = path.join(root, 'dist');
  const args = ['--home', home, '--data', data, '--assistants', 'claude-code'];
  const collected = await runCli(['collect', ...args]);
  expect(collected.code, collected.stderr).toBe(0);
  // The page templates are compiled once per template hash: the global build's renderer spares this build that.
  const renderer = path.join(inject('site').dataDir, 'cache', 'renderer');
  if (existsSync(renderer)) await fs.cp(renderer, path.join(data, 'cache', 'renderer'), { recursive: true });
  const built = await runCli(['build', ...args, '--tz', 'UTC', '--out', out]);
  expect(built.code, built.stderr).toBe(0);
  server = await startPreview(out);
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function search(page: Page, query: string) {
  await page.fill('input[name=q]', query);
  await page.waitForFunction(
    (q) => document.querySelector<HTMLElement>('.site-search-results')?.dataset.query === q,
    query,
    {
      timeout: 20_000,
    },
  );
  return page.$$eval('.site-search-results > li', (items) =>
    items.map((li) => ({
      session: (li as HTMLElement).dataset.session!,
      links: [...li.querySelectorAll('a')].map((a) => new URL(a.href).pathname + new URL(a.href).hash),
      titles: [...li.querySelectorAll('.hit-title')].map((t) => t.textContent),
      metas: [...li.querySelectorAll('.hit-meta')].map((t) => t.textContent),
      snippets: [...li.querySelectorAll('.hit-snippet')].map((t) => t.textContent!),
    })),
  );
}

describe('site search over a chatty session', () => {
  it('lists each session once: the chatty one’s three pages do not crowd out the others', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    // The chatty session has a page 2 and 3, each a record of the index that "deploy" finds.
    expect(existsSync(path.join(out, 'sessions', 'claude-code', CHATTY, 'page', '3', 'index.html'))).toBe(true);
    const groups = await search(page, 'deploy');
    expect(groups.map((g) => g.session).sort()).toEqual(
      [CHATTY, ...QUIET].map((id) => `sessions/claude-code/${id}/`).sort(),
    );
    const chatty = groups.find((g) => g.session.includes(CHATTY))!;
    expect(chatty.links).toHaveLength(3);
    for (const link of chatty.links)
      expect(link).toMatch(new RegExp(`^/sessions/claude-code/${CHATTY}/(page/\\d+/)?#m\\d+$`));
    expect(chatty.titles).toEqual(['Run deploy step 1.']);
    // The session's source and project once, on its first hit; the others say when and what.
    expect(chatty.metas[0]).toMatch(/^Claude Code · ops · 2026-05-04 \d\d:\d\d · (prompt|answer)$/);
    for (const meta of chatty.metas.slice(1)) expect(meta).toMatch(/^2026-05-04 \d\d:\d\d · (prompt|answer)$/);
    await page.close();
  });

  it('shows answers as plain text, the Markdown marks taken off', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    const quiet = (await search(page, 'production')).filter((g) => QUIET.some((id) => g.session.includes(id)));
    expect(quiet).toHaveLength(3);
    for (const group of quiet)
      expect(group.snippets).toContain(
        'Result Deployed web to production, see the log (https://ci.example.com/run/1). ' +
          'make deploy ENV=production # **not bold** in code Rollback with make rollback.',
      );
    const steps = await search(page, 'staging');
    const snippets = steps.flatMap((g) => g.snippets);
    expect(snippets.length).toBeGreaterThan(0);
    for (const text of snippets) {
      expect(text).toMatch(
        /^(…)?.*Deployed the api service to staging: see the log \(https:\/\/ci\.example\.com\/\d+\)/,
      );
      expect(text).not.toMatch(/###|\*\*|`|_staging_|\]\(|\| /);
    }
    await page.close();
  });

  it('shows the first sessions it finds while it reads more of the index, then all of them, in the same order', async () => {
    const page = await browser.newPage();
    await page.goto(`${server.url}/`);
    await page.waitForSelector('.site-search-results', { state: 'attached' });
    // Every state the list goes through: which query its first results and its complete results are of.
    await page.evaluate(() => {
      const list = document.querySelector<HTMLElement>('.site-search-results')!;
      const states: { first?: string; query?: string; sessions: string[] }[] = [];
      (window as unknown as { states: typeof states }).states = states;
      new MutationObserver(() =>
        states.push({
          first: list.dataset.first,
          query: list.dataset.query,
          sessions: [...list.children].map((li) => (li as HTMLElement).dataset.session!),
        }),
      ).observe(list, { childList: true, attributes: true });
    });
    const groups = (await search(page, 'kumquat')).map((g) => g.session);
    expect(groups).toHaveLength(10);
    for (const session of groups) expect(session).toMatch(/^sessions\/claude-code\/b\d{7}-/);
    const states = await page.evaluate(
      () => (window as unknown as { states: { first?: string; query?: string; sessions: string[] }[] }).states,
    );
    const early = states.filter((s) => s.first === 'kumquat' && s.query !== 'kumquat' && s.sessions.length > 0);
    expect(early.length).toBeGreaterThan(0);
    expect(early[0]!.sessions.length).toBeLessThan(groups.length);
    for (const state of early) expect(groups.slice(0, state.sessions.length)).toEqual(state.sessions);
    await page.close();
  });
});
