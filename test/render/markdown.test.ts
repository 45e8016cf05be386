import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../src/render/markdown.ts';

describe('renderMarkdown', () => {
  it('renders GitHub-flavoured Markdown', () => {
    const html = renderMarkdown(
      '# Title\n\n- **bold** and `code`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```ts\nconst x = 1;\n```',
    );
    expect(html).toContain('<h1>Title</h1>');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<td>1</td>');
    expect(html).toContain('<pre><code class="language-ts">const x = 1;\n</code></pre>');
  });

  it('keeps Japanese text intact', () => {
    expect(renderMarkdown('**重要**：ログイン画面を直す。')).toBe(
      '<p><strong>重要</strong>：ログイン画面を直す。</p>\n',
    );
  });

  it.each([
    ['<script>window.x=1</script>hi', '<script'],
    ['<img src=x onerror="window.x=1">', 'onerror'],
    ['[click](javascript:alert(1))', 'javascript:'],
    ['<a href="data:text/html,<script>1</script>">x</a>', 'data:'],
    ['<svg><script>1</script></svg>', '<svg'],
    ['<iframe src="https://evil.example"></iframe>', '<iframe'],
    ['<form action="https://evil.example"><input name=a></form>', '<form'],
    ['<base href="https://evil.example/">', '<base'],
    ['<meta http-equiv="refresh" content="0;url=https://evil.example">', '<meta'],
    ['<p style="background:url(https://evil.example)">x</p>', 'style='],
    ['<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>', 'onerror'],
  ])('removes %s', (input, forbidden) => {
    expect(renderMarkdown(input).toLowerCase()).not.toContain(forbidden);
  });

  it('keeps http(s) and mailto links, opening outside the page without referrer', () => {
    const html = renderMarkdown('[docs](https://example.com/a) [mail](mailto:a@example.com)');
    expect(html).toContain('href="https://example.com/a"');
    expect(html).toContain('rel="nofollow noopener noreferrer"');
    expect(html).toContain('href="mailto:a@example.com"');
  });

  it('drops images (a transcript must not make the page fetch anything)', () => {
    expect(renderMarkdown('![alt](https://example.com/t.png)')).not.toContain('<img');
  });
});
