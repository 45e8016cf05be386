import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isSelfSanitized, renderUnsanitized, sanitizeHtml } from '../../src/transcript/markdown.ts';
import { prerender } from '../../src/transcript/prerender.ts';
import { RenderCache } from '../../src/transcript/render-cache.ts';
import { copyFixtureHome, tempDir } from '../helpers/paths.ts';
import { appendAnswer, collectHome, markdownTexts } from '../helpers/markdown-home.ts';

describe('prerender', () => {
  it('keeps sanitized HTML of exactly the Markdown that needs the sanitizer, and reads a session again only once it changed', async () => {
    const home = await copyFixtureHome();
    const dataDir = path.join(await tempDir('prerender'), 'data');
    await appendAnswer(
      home,
      'pre-1',
      'Raw HTML: <details><summary>more</summary>hidden</details> and ![img](https://x.example/i.png)',
    );
    const first = await collectHome(home, dataDir);

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
    await appendAnswer(home, 'pre-2', 'Another: <kbd>Ctrl</kbd>+<kbd>C</kbd>');
    await collectHome(home, dataDir);
    const again = await prerender(dataDir, 2);
    expect(again.sessions).toBe(1);
    expect(again.sanitized).toBe(1);
  });
});
