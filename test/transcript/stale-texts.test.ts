import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DataDir } from '../../src/archive/data-dir.ts';
import { bodyStamp } from '../../src/archive/stamps.ts';
import { buildSite } from '../../src/cli/build-site.ts';
import { isSelfSanitized, renderUnsanitized, sanitizeHtml } from '../../src/transcript/markdown.ts';
import { PageTextCache, readSessionTexts } from '../../src/transcript/page-texts.ts';
import { RenderCache } from '../../src/transcript/render-cache.ts';
import { readStaleTexts } from '../../src/transcript/stale-texts.ts';
import { searchIndexPath } from '../../src/search/store.ts';
import { ensureSearchIndex } from '../../src/search/sync.ts';
import { fixtureBuild, SESSION } from '../helpers/paths.ts';
import { appendAnswer, collectHome, markdownTexts } from '../helpers/markdown-home.ts';
import { writeSubagent, writeTurns } from '../helpers/transcripts.ts';

const LONG_SESSION = 'cafe0000-0000-4000-8000-000000000029';
const AGENT = 'b0b0b0b0b0b0b0b0b';

describe("a site build's search texts and sanitized HTML", { timeout: 300_000 }, () => {
  it('are gathered by the pages in a first build as the archive holds them, and read before the pages for a few changed sessions', async () => {
    const { home, data: dataDir, out: outDir } = await fixtureBuild('stale-texts');
    await appendAnswer(
      home,
      'pre-1',
      'Raw HTML: <details><summary>more</summary>hidden</details> and ![img](https://x.example/i.png)',
    );
    // A session of several pages: 800 messages, and a subagent whose call is on none of them.
    const transcript = await writeTurns(home, LONG_SESSION, 400, '2026-03-06T09:00:00.000Z', (t) => ({
      prompt: `question ${t}`,
      answer: `answer ${t}`,
    }));
    await writeSubagent(transcript, {
      id: AGENT,
      callId: 'toolu_on_no_page',
      task: 'subagent task: look around',
      answer: 'subagent answer: nothing there',
    });
    await collectHome(home, dataDir);
    const summaries = await new DataDir(dataDir).readSummaries();
    const long = summaries.find((s) => s.sessionId === LONG_SESSION)!;
    expect(long.pageStarts!.length).toBeGreaterThan(1);

    // No texts yet, for more sessions than are read before the pages: all are left to them.
    const before = readStaleTexts(dataDir, summaries);
    expect([before.read, before.left.map((s) => s.id).sort()]).toEqual([0, summaries.map((s) => s.id).sort()]);
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
      // The subagent no page shows is found too, anchored to no message, as the command line's index has it.
      expect(texts.subagentRows(long.id).map((r) => [r.index, r.kind, r.text])).toEqual([
        [null, 'prompt', 'subagent task: look around'],
        [null, 'answer', 'subagent answer: nothing there'],
      ]);
      // Each page's rows anchored where the page puts its messages: turn t's prompt is message 2t.
      const rows = [...texts.mainRows(long.id)].flat();
      expect(rows.map((r) => [r.index, r.kind, r.text])).toEqual(
        Array.from({ length: 400 }, (_, t) => [
          [2 * t, 'prompt', `question ${t}`],
          [2 * t + 1, 'answer', `answer ${t}`],
        ]).flat(),
      );
      // And they are what the command line's search index holds, which is made another way (whole bodies).
      await ensureSearchIndex(dataDir);
      const db = new Database(searchIndexPath(dataDir), { readonly: true });
      try {
        const indexed = db.prepare(
          'SELECT m.ts, m.kind, m.message_index AS i, m.text FROM messages m JOIN sessions s ON s.id = m.session ' +
            "WHERE s.key = ? AND m.kind IN ('prompt', 'answer')",
        );
        for (const summary of summaries) {
          const rows = [...[...texts.mainRows(summary.id)].flat(), ...texts.subagentRows(summary.id)];
          const gathered = rows.map((r) => `${r.ts || summary.startedAt}|${r.kind}|${r.index}|${r.text}`).sort();
          const fromIndex = (indexed.all(summary.id) as { ts: string; kind: string; i: number | null; text: string }[])
            .map((r) => `${r.ts}|${r.kind}|${r.i}|${r.text}`)
            .sort();
          expect(gathered, summary.id).toEqual(fromIndex);
        }
      } finally {
        db.close();
      }
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
    expect(readStaleTexts(dataDir, summaries)).toEqual({ read: 0, left: [] });

    // One session grew: it is read before the pages, with its new answer.
    await appendAnswer(home, 'pre-2', 'Another: <kbd>Ctrl</kbd>+<kbd>C</kbd>');
    await collectHome(home, dataDir);
    const grown = await new DataDir(dataDir).readSummaries();
    expect(readStaleTexts(dataDir, grown)).toEqual({ read: 1, left: [] });
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
