import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { DataDir } from '../../src/archive/data-dir.ts';
import { bodyStamp } from '../../src/archive/stamps.ts';
import { buildSite } from '../../src/cli/build-site.ts';
import { isSelfSanitized, renderUnsanitized, sanitizeHtml } from '../../src/transcript/markdown.ts';
import { PageTextCache, readSessionTexts } from '../../src/transcript/page-texts.ts';
import { RenderCache } from '../../src/transcript/render-cache.ts';
import { markdownSegments } from '../../src/transcript/render-session.ts';
import { readStaleTexts } from '../../src/transcript/stale-texts.ts';
import { copyFixtureHome, SESSION, tempDir } from '../helpers/paths.ts';
import { writeTurns } from '../helpers/transcripts.ts';

async function run(home: string, dataDir: string) {
  return collect({ home, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } });
}

/** Appends one answer to a fixture transcript. */
async function answer(home: string, uuid: string, text: string): Promise<void> {
  const file = path.join(home, '.claude', 'projects', '-home-alice-work-webapp', `${SESSION.E}.jsonl`);
  const last = JSON.parse((await fs.readFile(file, 'utf8')).trim().split('\n').pop()!);
  const record = {
    ...last,
    type: 'assistant',
    uuid,
    parentUuid: last.uuid,
    timestamp: '2026-03-05T08:20:00.000Z',
    message: { ...last.message, role: 'assistant', id: `msg_${uuid}`, content: [{ type: 'text', text }] },
  };
  await fs.appendFile(file, `${JSON.stringify(record)}\n`);
}

/** Every Markdown text of the archive, read whole (the slow way, to check the fast one). */
async function markdownTexts(dataDir: string): Promise<string[]> {
  const data = new DataDir(dataDir);
  const texts: string[] = [];
  for (const summary of await data.readSummaries()) {
    const body = await data.readBody(summary.body);
    for (const segment of markdownSegments(body!.session)) texts.push(segment.text);
  }
  return texts;
}

const LONG_SESSION = 'cafe0000-0000-4000-8000-000000000029';

describe("a site build's search texts and sanitized HTML", { timeout: 300_000 }, () => {
  it('are gathered by the pages in a first build as the archive holds them, and read before the pages for a few changed sessions', async () => {
    const home = await copyFixtureHome();
    const root = await tempDir('stale-texts');
    const dataDir = path.join(root, 'data');
    const outDir = path.join(root, 'out');
    await answer(
      home,
      'pre-1',
      'Raw HTML: <details><summary>more</summary>hidden</details> and ![img](https://x.example/i.png)',
    );
    // A session of several pages: 800 messages.
    await writeTurns(home, LONG_SESSION, 400, '2026-03-06T09:00:00.000Z', (t) => ({
      prompt: `question ${t}`,
      answer: `answer ${t}`,
    }));
    await run(home, dataDir);
    const summaries = await new DataDir(dataDir).readSummaries();
    const long = summaries.find((s) => s.sessionId === LONG_SESSION)!;
    expect(long.pageStarts!.length).toBeGreaterThan(1);

    // No texts yet, for more sessions than are read before the pages: all are left to them.
    expect(readStaleTexts(dataDir, summaries)).toEqual({ read: 0, left: summaries.length });
    await buildSite({ dataDir, outDir, timeZone: 'UTC', onWarning: () => {} });

    const texts = new PageTextCache(dataDir, { readonly: true });
    try {
      for (const summary of summaries) {
        // Gathered by the session's Markdown export, page by page, and complete: at the body's stamp.
        expect(texts.stampOf(summary.id), summary.id).toBe(bodyStamp(dataDir, summary.body));
        const read = readSessionTexts(dataDir, summary);
        expect([...texts.mainRows(summary.id)].flat(), summary.id).toEqual(read.main.flat());
        expect(texts.subagentRows(summary.id), summary.id).toEqual(read.subagents);
      }
      expect(summaries.some((s) => texts.subagentRows(s.id).length > 0)).toBe(true);
      // Each page's rows anchored where the page puts its messages: turn t's prompt is message 2t.
      const rows = [...texts.mainRows(long.id)].flat();
      expect(rows.map((r) => [r.index, r.kind, r.text])).toEqual(
        Array.from({ length: 400 }, (_, t) => [
          [2 * t, 'prompt', `question ${t}`],
          [2 * t + 1, 'answer', `answer ${t}`],
        ]).flat(),
      );
    } finally {
      texts.close();
    }

    // The pages sanitized what needed it and kept it for the next build; Markdown marked renders safely is not kept.
    const markdown = await markdownTexts(dataDir);
    const needing = [...new Set(markdown.filter((t) => !isSelfSanitized(t)))];
    expect(needing.some((t) => t.includes('<details>'))).toBe(true);
    const rendered = new RenderCache(dataDir, { readonly: true });
    try {
      for (const text of needing) expect(rendered.get(text)).toBe(sanitizeHtml(renderUnsanitized(text)));
      expect(rendered.get(markdown.find(isSelfSanitized)!)).toBeUndefined();
      expect(rendered.get(needing.find((t) => t.includes('<details>'))!)).toContain('<details><summary>more</summary>');
    } finally {
      rendered.close();
    }

    // Nothing changed: nothing to read.
    expect(readStaleTexts(dataDir, summaries)).toEqual({ read: 0, left: 0 });

    // One session grew: it is read before the pages, with its new answer.
    await answer(home, 'pre-2', 'Another: <kbd>Ctrl</kbd>+<kbd>C</kbd>');
    await run(home, dataDir);
    const grown = await new DataDir(dataDir).readSummaries();
    expect(readStaleTexts(dataDir, grown)).toEqual({ read: 1, left: 0 });
    const after = new PageTextCache(dataDir, { readonly: true });
    try {
      const session = grown.find((s) => s.sessionId === SESSION.E)!;
      expect(after.stampOf(session.id)).toBe(bodyStamp(dataDir, session.body));
      expect([...after.mainRows(session.id)].flat().map((r) => r.text)).toContain(
        'Another: <kbd>Ctrl</kbd>+<kbd>C</kbd>',
      );
    } finally {
      after.close();
    }
  });
});
