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
