import { promises as fs } from 'node:fs';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { PAGE_MESSAGES, pageStarts } from '../../src/model/paging.ts';
import { pageLinks } from '../../src/transcript/session-view.ts';
import { RESULT_PAGE_CHARS } from '../../src/transcript/view-items.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';
import { appendPrompt, writeTurns } from '../helpers/transcripts.ts';

const SESSION_ID = 'abcdefab-0000-4000-8000-000000000001';
const TURNS = 200;
const BIG_OUTPUT = 'x'.repeat(50_000);

/** A long Claude Code session: TURNS × (prompt, Bash call, its 50 kB result, answer). */
async function writeLongSession(home: string): Promise<void> {
  const dir = path.join(home, '.claude', 'projects', '-home-bench-long');
  await fs.mkdir(dir, { recursive: true });
  const lines: string[] = [];
  const base = Date.parse('2026-04-01T00:00:00Z');
  const common = { cwd: '/home/bench/long', sessionId: SESSION_ID, version: '2.1.38', isSidechain: false };
  for (let t = 0; t < TURNS; t++) {
    const at = (s: number) => new Date(base + t * 60_000 + s * 1000).toISOString();
    const usage = { input_tokens: 1, output_tokens: 1 };
    lines.push(
      JSON.stringify({
        ...common,
        type: 'user',
        uuid: `u${t}`,
        timestamp: at(0),
        message: { role: 'user', content: `Question ${t}` },
      }),
      JSON.stringify({
        ...common,
        type: 'assistant',
        uuid: `a${t}`,
        timestamp: at(1),
        message: {
          id: `m${t}a`,
          role: 'assistant',
          model: 'm',
          content: [{ type: 'tool_use', id: `call${t}`, name: 'Bash', input: { command: `echo ${t}` } }],
          usage,
        },
      }),
      JSON.stringify({
        ...common,
        type: 'user',
        uuid: `r${t}`,
        timestamp: at(2),
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `call${t}`, content: `${t}:${BIG_OUTPUT}` }],
        },
      }),
      JSON.stringify({
        ...common,
        type: 'assistant',
        uuid: `b${t}`,
        timestamp: at(3),
        message: {
          id: `m${t}b`,
          role: 'assistant',
          model: 'm',
          content: [{ type: 'text', text: `Answer ${t}` }],
          usage,
        },
      }),
    );
  }
  await fs.writeFile(path.join(dir, `${SESSION_ID}.jsonl`), `${lines.join('\n')}\n`);
}

describe('long sessions', () => {
  it('splits pages before a prompt, within the bounds', () => {
    const messages = Array.from({ length: 1000 }, (_, i) => ({
      id: String(i),
      timestamp: '',
      role: 'user',
      source_type: 'message',
      segments: [],
      raw: { event_type: 'x', file_path: '', line_index: i },
      metadata: { kind: i % 4 === 0 ? 'prompt' : 'response' },
    })) as NormalizedMessage[];
    const starts = pageStarts(messages);
    expect(starts[0]).toBe(0);
    for (const [i, start] of starts.entries()) {
      expect(messages[start]!.metadata!.kind).toBe('prompt');
      const end = starts[i + 1] ?? messages.length;
      expect(end - start).toBeLessThanOrEqual(PAGE_MESSAGES);
    }
  });

  it('paginates a long session page in the built site and truncates big outputs with a note', async () => {
    const home = await tempDir('long');
    await writeLongSession(home);
    const out = path.join(home, 'dist');
    const run = await runCli(['build', '--home', home, '--data', path.join(home, 'data'), '--out', out, '--tz', 'UTC']);
    expect(run.code).toBe(0);
    const sessionDir = path.join(out, 'sessions', 'claude-code', SESSION_ID);
    const extra = (await fs.readdir(path.join(sessionDir, 'page'))).map(Number).sort((a, b) => a - b);
    expect(extra[0]).toBe(2);
    const pages = extra.length + 1;
    // Each turn is 4 messages; 50 kB outputs count 20 kB each against the ~1.5 MB bound: 75 turns a page at most.
    expect(pages).toBeGreaterThanOrEqual(Math.ceil((TURNS * 4) / PAGE_MESSAGES));

    const first = new JSDOM(await fs.readFile(path.join(sessionDir, 'index.html'), 'utf8')).window.document;
    expect(first.querySelector('nav.pages')!.textContent).toContain(`Page 1 of ${pages}`);
    expect(first.querySelector('a[rel=prev]')).toBeNull();
    expect(first.querySelector('a[rel=next]')!.getAttribute('href')).toBe(
      `/sessions/claude-code/${SESSION_ID}/page/2/`,
    );
    const shown = [...first.querySelector('details.tool .io-output')!.querySelectorAll('pre')];
    const output = shown.map((pre) => pre.textContent).join('');
    expect(output.length).toBe(RESULT_PAGE_CHARS);
    expect(first.querySelector('details.tool .note')!.textContent).toContain(
      `${(50_002 - RESULT_PAGE_CHARS).toLocaleString('en-US')} more characters not shown`,
    );

    // Every call on every page has its result on the same page, and every turn appears exactly once.
    const seen: string[] = [];
    for (let p = 1; p <= pages; p++) {
      const file =
        p === 1 ? path.join(sessionDir, 'index.html') : path.join(sessionDir, 'page', String(p), 'index.html');
      const doc = new JSDOM(await fs.readFile(file, 'utf8')).window.document;
      expect(doc.querySelectorAll('.status-unanswered').length).toBe(0);
      expect(doc.querySelector('nav.pages strong')!.textContent).toBe(String(p));
      if (p > 1)
        expect(doc.querySelector('a[rel=prev]')!.getAttribute('href')).toContain(
          p === 2 ? `${SESSION_ID}/` : `page/${p - 1}/`,
        );
      seen.push(...[...doc.querySelectorAll('.thread .prompt .plain')].map((e) => e.textContent!));
    }
    expect(seen).toEqual(Array.from({ length: TURNS }, (_, t) => `Question ${t}`));
  });

  it('after a long session grew, makes again only its first and last pages, the same bytes as a full build', async () => {
    const home = await tempDir('long-grows');
    // 700 turns of two short messages: several pages. A short session beside it, in the same project on the same day.
    const long = await writeTurns(home, SESSION_ID, 700, '2026-04-01T00:00:00Z', (t) => ({
      prompt: `Question ${t}`,
      answer: `Answer ${t}`,
    }));
    const SHORT_ID = 'abcdefab-0000-4000-8000-000000000002';
    const short = await writeTurns(home, SHORT_ID, 3, '2026-04-01T20:00:00Z', (t) => ({
      prompt: `Short ${t}`,
      answer: `Reply ${t}`,
    }));
    const dataDir = path.join(home, 'data');
    const build = async (out: string, ...more: string[]) => {
      const run = await runCli([
        'build',
        '--home',
        home,
        '--data',
        dataDir,
        '--out',
        out,
        '--tz',
        'UTC',
        '--verbose',
        ...more,
      ]);
      expect(run.code, run.stderr).toBe(0);
      return { ...run, rendered: Number(/Rendering: (\d+) of/.exec(run.stderr)?.[1] ?? 0) };
    };
    const out = path.join(home, 'dist');
    await build(out);
    const sessionDir = path.join(out, 'sessions', 'claude-code', SESSION_ID);
    const pageFile = (p: number) =>
      p === 1 ? path.join(sessionDir, 'index.html') : path.join(sessionDir, 'page', String(p), 'index.html');
    const pages = (await fs.readdir(path.join(sessionDir, 'page'))).length + 1;
    expect(pages).toBeGreaterThanOrEqual(4);
    const readPages = () =>
      Promise.all(
        Array.from({ length: pages }, async (_, i) => ({
          html: await fs.readFile(pageFile(i + 1), 'utf8'),
          mtimeMs: (await fs.stat(pageFile(i + 1))).mtimeMs,
        })),
      );
    const before = await readPages();

    // A later page shows the session's head and its own times, and leaves the session's totals to the first.
    const third = new JSDOM(before[2]!.html).window.document;
    expect([...third.querySelectorAll('.session-meta dt')].map((dt) => dt.textContent)).toEqual([
      'Source',
      'Project',
      'This page',
      'Session',
    ]);
    // Its first prompt's time: the turns are a minute apart.
    const prompt = Number(/Question (\d+)/.exec(third.querySelector('.thread .prompt .plain')!.textContent!)![1]);
    expect(prompt).toBeGreaterThan(0);
    expect(third.querySelector('.session-meta time')!.getAttribute('datetime')).toBe(
      new Date(Date.parse('2026-04-01T00:00:00Z') + prompt * 60_000).toISOString(),
    );
    expect(third.querySelector(`.note a[href="/sessions/claude-code/${SESSION_ID}/"]`)).not.toBeNull();
    expect(third.querySelector('ul.totals')).toBeNull();
    const first = new JSDOM(before[0]!.html).window.document;
    expect([...first.querySelectorAll('.session-meta dt')].map((dt) => dt.textContent)).toContain('Tokens');
    expect(first.querySelector('ul.totals')!.textContent).toContain('700');

    // What a short session's growth makes again: its page, its Markdown and the pages that list it.
    await appendPrompt(short, 'SHORT-MARKER', '2026-04-01T21:00:00.000Z');
    const shortGrown = await build(out);
    expect(shortGrown.rendered).toBeGreaterThan(2);

    await appendPrompt(long, 'GROWN-MARKER one more question', '2026-04-01T21:30:00.000Z');
    const grown = await build(out);
    expect((await fs.readdir(path.join(sessionDir, 'page'))).length + 1).toBe(pages);
    const after = await readPages();
    expect(after[pages - 1]!.html).toContain('GROWN-MARKER one more question');
    expect(new JSDOM(after[0]!.html).window.document.querySelector('ul.totals')!.textContent).toContain('701');
    // The long session's growth makes again the same kinds of files, and one page more (its first and last
    // pages, where the short one has one): the pages between are not made again, nor even rendered.
    expect(grown.rendered).toBe(shortGrown.rendered + 1);
    expect(grown.stderr).toContain(
      `Later pages of grown sessions: ${pages - 1} read to compare, ${pages - 2} the same (not rendered)`,
    );
    for (let p = 2; p < pages; p++) expect(after[p - 1], `page ${p}`).toEqual(before[p - 1]);
    expect((await build(out)).rendered).toBe(0);

    const full = path.join(home, 'full');
    await build(full, '--full');
    for (let p = 1; p <= pages; p++) {
      expect(await fs.readFile(pageFile(p).replace(out, full), 'utf8'), `page ${p}`).toBe(after[p - 1]!.html);
    }

    // An answer on a middle page rewritten in place (the transcript is not only appended to): that page is made
    // again, and still the same as a full build's.
    const middle = Math.ceil(pages / 2);
    const turn = Number(
      /Question (\d+)/.exec(
        new JSDOM(after[middle - 1]!.html).window.document.querySelector('.thread .prompt .plain')!.textContent!,
      )![1],
    );
    const text = await fs.readFile(long, 'utf8');
    await fs.writeFile(long, text.replace(`"Answer ${turn}"`, '"REWRITTEN-ANSWER"'));
    await build(out);
    const rewritten = await fs.readFile(pageFile(middle), 'utf8');
    expect(rewritten).toContain('REWRITTEN-ANSWER');
    await build(full, '--full');
    expect(await fs.readFile(pageFile(middle).replace(out, full), 'utf8')).toBe(rewritten);

    // Another time zone changes every page's inputs: the later pages are made again without being read first to
    // compare (that only cost time and memory: 20 s and 500 MB on the benchmark's history).
    const rezoned = await build(out, '--tz', 'Asia/Tokyo');
    expect(rezoned.stderr).not.toContain('Later pages of grown sessions');
    expect(rezoned.rendered).toBeGreaterThanOrEqual(pages + 1);
    expect(await fs.readFile(pageFile(pages), 'utf8')).toContain('data-tz="Asia/Tokyo"');
  });

  it('renders a later page whose body cannot be read when its digest is compared, saying so', async () => {
    const home = await tempDir('long-unreadable');
    await writeTurns(home, SESSION_ID, 700, '2026-04-01T00:00:00Z', (t) => ({
      prompt: `Question ${t}`,
      answer: `Answer ${t}`,
    }));
    const data = path.join(home, 'data');
    const out = path.join(home, 'dist');
    const build = () => runCli(['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC']);
    expect((await build()).code).toBe(0);
    // The body's header is damaged and the archive's index is newer: the later pages' first keys changed, and
    // their digests cannot be taken.
    await fs.writeFile(path.join(data, 'sessions', 'claude-code', `${SESSION_ID}.json`), '{');
    const index = path.join(data, 'index', 'sessions.json');
    await fs.utimes(index, new Date(), new Date(Date.now() + 5000));
    const run = await build();
    expect(run.code, run.stderr).toBe(0);
    const third = `sessions/claude-code/${SESSION_ID}/page/3/index.html`;
    expect(run.stderr).toContain(`${third}: the page of session claude-code/${SESSION_ID} could not be rendered`);
    expect(await fs.readFile(path.join(out, third), 'utf8')).toContain('This page could not be shown');
  });

  it('links every page of a short session, and only the ends and the neighbours of a long one', () => {
    expect(pageLinks(3, 9)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(pageLinks(1, 2234)).toEqual([1, 2, 3, null, 2234]);
    expect(pageLinks(1117, 2234)).toEqual([1, null, 1115, 1116, 1117, 1118, 1119, null, 2234]);
    expect(pageLinks(2234, 2234)).toEqual([1, null, 2232, 2233, 2234]);
    // A gap of one page shows the page instead of "…".
    expect(pageLinks(5, 12)).toEqual([1, 2, 3, 4, 5, 6, 7, null, 12]);
    expect(pageLinks(9, 12)).toEqual([1, null, 7, 8, 9, 10, 11, 12]);
  });
});
