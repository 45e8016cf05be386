import { promises as fs } from 'node:fs';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { beforeAll, describe, expect, it } from 'vitest';
import { timeSpan } from '../../src/report/time-span.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';

const SESSION_ID = 'abcdefab-0000-4000-8000-000000000001';

/** A Claude Code session from 23:11 to 00:05 the next day (UTC): a prompt on each side of midnight. */
async function writeMidnightSession(home: string): Promise<void> {
  const dir = path.join(home, '.claude', 'projects', '-home-night-owl');
  await fs.mkdir(dir, { recursive: true });
  const common = { cwd: '/home/night/owl', sessionId: SESSION_ID, version: '2.1.38', isSidechain: false };
  const usage = { input_tokens: 1, output_tokens: 1 };
  const turn = (n: number, asked: string, answered: string) => [
    { ...common, type: 'user', uuid: `u${n}`, timestamp: asked, message: { role: 'user', content: `Question ${n}` } },
    {
      ...common,
      type: 'assistant',
      uuid: `a${n}`,
      timestamp: answered,
      message: { id: `m${n}`, role: 'assistant', model: 'm', content: [{ type: 'text', text: `Answer ${n}` }], usage },
    },
  ];
  const lines = [
    ...turn(1, '2026-04-01T23:11:00.000Z', '2026-04-01T23:12:00.000Z'),
    ...turn(2, '2026-04-02T00:02:00.000Z', '2026-04-02T00:05:00.000Z'),
  ];
  await fs.writeFile(path.join(dir, `${SESSION_ID}.jsonl`), `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`);
}

const texts = (doc: ParentNode, selector: string) =>
  [...doc.querySelectorAll(selector)].map((e) => e.textContent!.replace(/\s+/g, ' ').trim());

describe('a session that crosses midnight', () => {
  let out = '';
  const page = async (route: string) =>
    new JSDOM(await fs.readFile(path.join(out, route, 'index.html'), 'utf8')).window.document;

  beforeAll(async () => {
    const home = await tempDir('midnight');
    await writeMidnightSession(home);
    out = path.join(home, 'dist');
    const run = await runCli(['build', '--home', home, '--data', path.join(home, 'data'), '--out', out, '--tz', 'UTC']);
    expect(run.code).toBe(0);
  }, 120_000);

  it('reads the same real span in the day table, the report section and the Markdown of its first day', async () => {
    const doc = await page('days/2026-04-01');
    expect(texts(doc, 'table.sessions td.time')).toEqual(['23:11 – 00:05 (next day)']);
    expect(texts(doc, '.report-session-head .time')).toEqual(['23:11 – 00:05 (next day)']);
    const markdown = await fs.readFile(path.join(out, 'days', '2026-04-01.md'), 'utf8');
    expect(markdown).toContain('- **23:11 – 00:05 (next day)** ');
    expect(doc.querySelector('details[data-markdown-from]')!.getAttribute('data-markdown-from')).toBe(
      '/days/2026-04-01.md',
    );
  });

  it('says where it began on the next day, in each place the same', async () => {
    const doc = await page('days/2026-04-02');
    expect(texts(doc, 'table.sessions td.time')).toEqual(['23:11 (previous day) – 00:05']);
    expect(texts(doc, '.report-session-head .time')).toEqual(['23:11 (previous day) – 00:05']);
    const markdown = await fs.readFile(path.join(out, 'days', '2026-04-02.md'), 'utf8');
    expect(markdown).toContain('- **23:11 (previous day) – 00:05** ');
  });

  it('gives a week its start date and a project page the full date', async () => {
    const week = await page('weeks/2026-W14');
    expect(texts(week, '.report-session-head .time')).toEqual(['04-01 23:11 – 00:05 (next day)']);
    const day = await page('days/2026-04-01');
    const projectPath = day.querySelector('table.sessions td.project a')!.getAttribute('href')!;
    const project = await page(projectPath.slice(1));
    expect(texts(project, 'table.sessions td.time')).toEqual(['2026-04-01 23:11 – 00:05 (next day)']);
  });
});

describe('time spans', () => {
  const at = (t: string) => `2026-04-0${t}:00.000Z`;
  it('names the day of a time that is not on the day listed', () => {
    expect(timeSpan(at('1T09:12'), at('1T10:40'), 'UTC')).toBe('09:12–10:40');
    expect(timeSpan(at('1T09:12'), at('1T09:12'), 'UTC')).toBe('09:12');
    expect(timeSpan(at('1T23:11'), at('4T01:00'), 'UTC')).toBe('23:11 – 01:00 (3 days later)');
    expect(timeSpan(at('1T23:11'), at('4T01:00'), 'UTC', { day: '2026-04-03' })).toBe(
      '23:11 (2 days earlier) – 01:00 (next day)',
    );
    // The same instants in Tokyo (UTC+9) are on one day.
    expect(timeSpan(at('1T23:11'), at('2T00:05'), 'Asia/Tokyo')).toBe('08:11–09:05');
    expect(timeSpan('', at('2T00:05'), 'UTC')).toBe('');
  });
});
