import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { DataDir } from '../../src/archive/data-dir.ts';
import { isSelfSanitized, renderUnsanitized, sanitizeHtml } from '../../src/transcript/markdown.ts';
import { prerender } from '../../src/transcript/prerender.ts';
import { RenderCache } from '../../src/transcript/render-cache.ts';
import { markdownSegments } from '../../src/transcript/render-session.ts';
import { copyFixtureHome, SESSION, tempDir } from '../helpers/paths.ts';

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

describe('prerender', () => {
  it('keeps sanitized HTML of exactly the Markdown that needs the sanitizer, and reads a session again only once it changed', async () => {
    const home = await copyFixtureHome();
    const dataDir = path.join(await tempDir('prerender'), 'data');
    await answer(
      home,
      'pre-1',
      'Raw HTML: <details><summary>more</summary>hidden</details> and ![img](https://x.example/i.png)',
    );
    const first = await run(home, dataDir);

    const texts = await markdownTexts(dataDir);
    const needing = [...new Set(texts.filter((t) => !isSelfSanitized(t)))];
    expect(needing.some((t) => t.includes('<details>'))).toBe(true);
    const report = await prerender(dataDir, 2);
    expect(report.sessions).toBe(first.totalSessions);
    // Only lines that may hold such Markdown are parsed: every one that does, and not every line.
    expect(report.segments).toBeGreaterThanOrEqual(needing.length);
    expect(report.segments).toBeLessThan(texts.length);
    expect(report.sanitized).toBe(needing.length);

    const cache = new RenderCache(dataDir, { readonly: true });
    try {
      for (const text of needing) expect(cache.get(text)).toBe(sanitizeHtml(renderUnsanitized(text)));
      // Markdown that marked renders safely on its own is not kept.
      const plain = texts.find(isSelfSanitized)!;
      expect(cache.get(plain)).toBeUndefined();
      expect(cache.get(needing.find((t) => t.includes('<details>'))!)).toContain('<details><summary>more</summary>');
    } finally {
      cache.close();
    }

    // Nothing changed: no session is read again.
    expect(await prerender(dataDir, 2)).toMatchObject({ sessions: 0, segments: 0, sanitized: 0 });

    // One session grew by an answer with HTML: only it is read, only the new text sanitized.
    await answer(home, 'pre-2', 'Another: <kbd>Ctrl</kbd>+<kbd>C</kbd>');
    await run(home, dataDir);
    const again = await prerender(dataDir, 2);
    expect(again.sessions).toBe(1);
    expect(again.sanitized).toBe(1);
  });
});
