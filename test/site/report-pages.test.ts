import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { describe, expect, inject, it } from 'vitest';

// The fixture site built by test/global-setup.ts (--tz Asia/Tokyo).
const site = inject('site');

async function page(route: string): Promise<Document> {
  const file = path.join(site.outDir, route, 'index.html');
  return new JSDOM(await fs.readFile(file, 'utf8')).window.document;
}
const texts = (doc: ParentNode, selector: string) =>
  [...doc.querySelectorAll(selector)].map((e) => e.textContent!.replace(/\s+/g, ' ').trim());

describe('report content on the day and week pages', () => {
  it('shows each project with its sessions, prompts and changed files, and the Markdown to copy', async () => {
    const doc = await page('days/2026-03-03');
    expect(texts(doc, '.report-project h3')).toEqual(['webapp', '(unknown project)', 'old-project']);
    const first = doc.querySelector('.report-sessions > li')!;
    expect(first.querySelector('.report-session-head a')!.textContent).toBe('Add rate limiting to login endpoint');
    expect(first.querySelector('.report-session-head a')!.getAttribute('href')).toBe(
      '/sessions/claude-code/22222222-2222-4222-8222-222222222222/',
    );
    expect(texts(first, '.report-prompts li')[0]).toBe(
      '08:50 Add rate limiting to the /login endpoint: at most 5 attempts per minute per IP.',
    );
    expect(texts(first, '.report-files code')).toEqual([
      'src/middleware/loginLimiter.ts',
      'src/server.ts',
      'test/rate-limit.test.ts',
    ]);
    // "1 prompt", not "1 prompts".
    expect(texts(doc, '.report-facts').some((t) => t.includes('1 prompt ·'))).toBe(true);
    expect(texts(doc, '.report-facts').join(' ')).not.toMatch(/\b1 (prompts|entries|tool uses)\b/);
    // The old-project prompts have no transcript, so no project page to link to.
    expect(doc.querySelector('.report-project h3 a[href*="old-project"]')).toBeNull();

    // The page does not carry the Markdown: its copy button and "Show the Markdown" read the .md file beside it,
    // and the copy button's script is an external file of the site.
    const markdown = await fs.readFile(path.join(site.outDir, 'days', '2026-03-03.md'), 'utf8');
    expect(markdown).toContain('Add rate limiting to the /login endpoint');
    expect(doc.querySelector('pre[data-markdown]')!.textContent).toBe('');
    expect(doc.body.textContent).not.toContain('## Projects');
    expect(doc.querySelector('button[data-copy-markdown]')!.getAttribute('data-copy-markdown')).toBe(
      '/days/2026-03-03.md',
    );
    expect(doc.querySelector('details[data-markdown-from]')!.getAttribute('data-markdown-from')).toBe(
      '/days/2026-03-03.md',
    );
    const scripts = [...doc.querySelectorAll('script')];
    expect(scripts.map((s) => s.getAttribute('src'))).toEqual(['/search.js', '/copy-markdown.js']);
    expect(scripts.every((s) => s.textContent === '')).toBe(true);
    expect(existsSync(path.join(site.outDir, 'copy-markdown.js'))).toBe(true);
  });

  it("shows each of the day's prompts once: under its session in its project", async () => {
    const doc = await page('days/2026-03-03');
    const lines = texts(doc, '.report-prompts li .plain');
    expect(lines).toContain('migrate the cron jobs to systemd timers'); // only in the prompt history
    const total = texts(doc, '.totals li').find((t) => / prompts?$/.test(t))!;
    expect(lines.length).toBe(parseInt(total, 10));
    // Once as a prompt (a session's first prompt is also its title, as a link); no second list of them.
    const plain = texts(doc, '.plain');
    for (const line of lines)
      expect(
        plain.filter((t) => t === line),
        line,
      ).toHaveLength(1);
    expect(doc.querySelector('ol.prompts, .prompt-text')).toBeNull();
  });

  it('gives the week the top projects, per-day rows and each session with its day', async () => {
    const doc = await page('weeks/2026-W10');
    expect(texts(doc, 'table.projects tbody td:first-child')[0]).toBe('webapp');
    expect(texts(doc, '.report-session-head .time')[0]).toBe('03-02 18:00–18:19');
    expect(doc.querySelector('button[data-copy-markdown]')!.getAttribute('data-copy-markdown')).toBe(
      '/weeks/2026-W10.md',
    );
    expect(await fs.readFile(path.join(site.outDir, 'weeks', '2026-W10.md'), 'utf8')).toMatch(/^# Week 2026-W10 /);
  });
});

describe('project pages', () => {
  it('list the folders and branches sessions ran on', async () => {
    const index = await page('');
    const href = index.querySelector('table.projects a')!.getAttribute('href')!;
    const doc = await page(href);
    expect(texts(doc, 'table.worktrees td:nth-child(2) code').sort()).toEqual(['feat/rate-limit', 'fix/login', 'main']);
    expect(texts(doc, 'table.worktrees td.path')).toEqual(['/home/alice/work/webapp (main)']);
  });
});

describe('charts', () => {
  it('label the calendar with weekdays and months, give it a legend and a table of the active days', async () => {
    const doc = await page('');
    const calendar = doc.querySelector('figure.calendar')!;
    const labels = texts(calendar, 'svg text');
    expect(labels.slice(0, 3)).toEqual(['Mon', 'Wed', 'Fri']);
    expect(labels).toEqual(expect.arrayContaining(['Jun', 'Dec', 'Mar']));
    expect(texts(calendar, '.calendar-legend > span').slice(0, 2)).toEqual(['Less', 'More']);
    expect(calendar.querySelectorAll('.calendar-legend rect').length).toBe(5);
    expect(texts(calendar, 'table tbody th')).toEqual([
      '2026-03-20',
      '2026-03-14',
      '2026-03-12',
      '2026-03-10',
      '2026-03-06',
      '2026-03-05',
      '2026-03-04',
      '2026-03-03',
      '2026-03-02',
      '2025-05-20',
    ]);
  });

  it('give the bar charts a value axis and the token chart month labels, axis and legend', async () => {
    const doc = await page('stats');
    const patterns = doc.querySelector('figure.chart')!;
    // A value axis under the bars, and the category axis drawn beside each of the four bars.
    expect(patterns.querySelectorAll('svg.bar-axis line.chart-axis').length).toBe(1);
    expect(patterns.querySelectorAll('svg.bar-track line.chart-axis').length).toBe(4);
    expect(texts(patterns, 'text.axis-title')).toEqual(['sessions']);
    // Integer ticks for counts.
    const ticks = texts(patterns, 'text.tick');
    expect(ticks.length).toBeGreaterThan(2);
    expect(ticks.every((t) => /^\d+$/.test(t))).toBe(true);
    const tokens = [...doc.querySelectorAll('figure.chart')].find((f) => f.textContent!.includes('Tokens per day'))!;
    expect(texts(tokens, '.legend li')).toEqual(['Input', 'Output', 'Cache read', 'Cache write']);
    expect(texts(tokens, 'text.month-label')[0]).toBe('Mar 2026');
    expect(texts(doc, 'table.tool-errors tbody th')).toEqual(expect.arrayContaining(['fs_write', 'Bash']));
    // Every chart is also a table.
    for (const figure of doc.querySelectorAll('figure.chart')) expect(figure.querySelector('table')).not.toBeNull();
  });
});
