import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import {
  isSelfSanitized,
  mayNeedSanitizer,
  plainQuotes,
  renderMarkdown,
  renderUnsanitized,
  sanitizeHtml,
} from '../../src/transcript/markdown.ts';
import { XSS_PAYLOADS } from '../fixtures/xss-payloads.ts';

const dom = (html: string): string => new JSDOM(`<!doctype html><body>${html}</body>`).window.document.body.innerHTML;

/** Markdown of every construct marked knows, plain and tricky (the XSS corpus adds the hostile kind). */
const MARKDOWN = [
  '# Title\n\n## Sub *em* **strong** ~~del~~ `code`\n\nText\nnext line  \nhard break\\\nagain',
  '- a\n- b\n  - nested\n\n1. one\n2. two\n\n3) three\n\n- [ ] todo\n- [x] done',
  '| left | center | right |\n|:-----|:------:|------:|\n| 1 | `2` | **3** |\n| a \\| pipe | b | c |',
  '```ts\nconst x = "<b>" && 1 < 2;\n```\n\n```c++ extra words\nint a;\n```\n\n```\nplain & <raw>\n```\n\n    indented <code>',
  '> quote with [a link](https://example.com/a?b=1&c=2 "its \'title\' & \"more\"")\n>\n> > nested',
  'Autolinks: https://example.com/x_(y) www.example.com <https://example.com> <a@example.com> a@example.com',
  '[ref link][r] and [collapsed][] and [r]\n\n[r]: https://example.com/ref "Ref"\n[collapsed]: mailto:x@example.com',
  '[anchor](#section) [relative](docs/a.md) [ftp](ftp://example.com) [spaces](<https://example.com/a b>)',
  'Entities: &copy; &amp; &#60;tag&#62; &#x3C; &nbsp;x\u00a0y &unknown; AT&T 5 > 3 < 4 "quoted" \'single\'',
  'Escapes: \\*not em\\* \\<not html\\> \\[not link\\] \\` \\# \\&amp;',
  'Japanese: **重要**：ログイン画面を直す。`設定` ＜全角＞ 「引用」 — “curly”',
  'Controls: a\u0000b \u0007 \u000c \r\n c\rd \ud83d\ude00 \ufffd',
  '***\n\n___\n\nSetext\n===\n\nUnder\n---',
  '* [link **bold** `code`](https://example.com)\n* ![image](https://example.com/i.png)\n* <b>raw</b> <details><summary>s</summary>d</details>',
  '```javascript:alert(1)\nx\n```\n\n```"onmouseover="x\ny\n```\n\n```<script>\nz\n```',
];

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

  it('keeps task checkboxes, list starts and column alignment, with raw HTML beside them or not', () => {
    for (const tail of ['', '\n\n<kbd>Ctrl</kbd>']) {
      const html = renderMarkdown(`- [x] done\n- [ ] todo\n\n3. third\n\n| a |\n|--:|\n| 1 |${tail}`);
      expect(html).toContain('<input checked="" disabled="" type="checkbox">');
      expect(html).toContain('<input disabled="" type="checkbox">');
      expect(html).toContain('<ol start="3">');
      expect(html).toContain('<td align="right">1</td>');
    }
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
    // Raw HTML may be shown as escaped text; it never becomes a tag or an attribute.
    const tags =
      renderMarkdown(input)
        .toLowerCase()
        .match(/<[^>]*>/g) ?? [];
    expect(tags.filter((tag) => tag.includes(forbidden))).toEqual([]);
  });

  it('keeps http(s) and mailto links, opening outside the page without referrer', () => {
    const html = renderMarkdown('[docs](https://example.com/a) [mail](mailto:a@example.com)');
    expect(html).toContain('href="https://example.com/a"');
    expect(html).toContain('rel="nofollow noopener noreferrer"');
    expect(html).toContain('href="mailto:a@example.com"');
  });

  it('gives what marked + DOMPurify give, for Markdown it renders without the sanitizer', () => {
    const inputs = [...MARKDOWN, ...XSS_PAYLOADS];
    for (const markdown of inputs) {
      expect(dom(renderMarkdown(markdown)), markdown).toBe(dom(sanitizeHtml(renderUnsanitized(markdown))));
    }
    // Both paths are exercised: ordinary Markdown skips the sanitizer, raw HTML and images do not.
    expect(MARKDOWN.filter(isSelfSanitized).length).toBeGreaterThanOrEqual(10);
    expect(isSelfSanitized(MARKDOWN[0]!)).toBe(true);
    expect(isSelfSanitized('a <b>b</b>')).toBe(false);
    expect(isSelfSanitized('![x](https://example.com/x.png)')).toBe(false);
    expect(isSelfSanitized('[x](javascript:alert(1))')).toBe(false);
    expect(isSelfSanitized('```c#\nx\n```')).toBe(false);
    expect(XSS_PAYLOADS.filter(isSelfSanitized).length).toBeGreaterThan(0);
  });

  it('writes the quotes of text as they are, and escapes them only in attributes', () => {
    const html = renderMarkdown(`He said "hi", it's \`"x"\`\n\n\`\`\`js\nconst a = "b" + 'c';\n\`\`\``);
    expect(html).toContain(`<p>He said "hi", it's <code>"x"</code></p>`);
    expect(html).toContain(`<code class="language-js">const a = "b" + 'c';\n</code>`);
    // A title holding a quote and a `>`: still one attribute, with no tag or attribute made of it.
    for (const markdown of ['[a](https://example.com/ "x\\"><b onclick=1>")', "[a](https://example.com/ 'y\\'>')"]) {
      const link = new JSDOM(renderMarkdown(markdown)).window.document.querySelector('a')!;
      expect(link.getAttribute('title'), markdown).toMatch(/^[xy]["']>/);
      expect(link.getAttributeNames().sort(), markdown).toEqual(['href', 'rel', 'target', 'title']);
      expect(link.children.length, markdown).toBe(0);
    }
    // A quote in a code language goes to the sanitizer as an entity: no attribute is made of it.
    const fence = new JSDOM(renderMarkdown('```a"title="x\ny\n```')).window.document.querySelector('code')!;
    expect(fence.hasAttribute('title')).toBe(false);
    expect(fence.textContent).toBe('y\n');
    // Text between tags, with a link or without; an attribute keeps its entities.
    expect(plainQuotes('<p>&quot;a&quot; b&#39;s</p>\n')).toBe(`<p>"a" b's</p>\n`);
    expect(plainQuotes('<p><a href="https://e.com/?q=&quot;" title="&#39;t&#39;">&quot;x&quot;</a> &#39;</p>')).toBe(
      `<p><a href="https://e.com/?q=&quot;" title="&#39;t&#39;">"x"</a> '</p>`,
    );
    // No quote entity is left in text, on either path.
    for (const markdown of [...MARKDOWN, ...XSS_PAYLOADS]) {
      const text = renderMarkdown(markdown).replace(/<[^>]*>/g, '');
      expect(text, markdown).not.toMatch(/&(quot|#39|#34|apos);/);
    }
  });

  it('passes over only Markdown that cannot need the sanitizer (mayNeedSanitizer)', () => {
    // Every piece marked treats specially, alone and in random triples, line-separated or not.
    const tricky = [
      ...['ftp://example.com/a', 'FTP://x.org', 'xmpp:a@example.com', 'XMPP:b@c.d', 'mailto:a@b.c', 'a@b.com'],
      ...['www.example.com/x', 'https://example.com', 'javascript:alert(1)', 'data:text/html,x', '&lt;b&gt;'],
      ...['```  javascript:x', '~~~js~x', '```\u00a0javascript:x', '``` c#', '~~~ ts extra', '```js```', '``\\`x'],
      ...['```', '~~~', '```js', '    indented', '> quote', '- item', '1. one', '| a | b |\n|---|---|', '***'],
      ...['**b**', '_i_', '`c`', '\\', '\\<', '!', '(', ')', ']', ':', '"', "'", '&#60;', '\u0000', '日本語'],
    ];
    const pieces = [...MARKDOWN, ...XSS_PAYLOADS, ...tricky];
    let random = 7;
    const pick = (from: string[]) => from[(random = (random * 48271) % 2147483647) % from.length]!;
    const texts = [...pieces];
    for (let i = 0; i < 6000; i++) {
      const from = i % 3 === 0 ? pieces : tricky;
      texts.push([pick(from), pick(from), pick(pieces)].join(i % 2 ? '\n' : ' '));
    }
    const passed = texts.filter((t) => !mayNeedSanitizer(t));
    for (const text of passed) expect(isSelfSanitized(text), text).toBe(true);
    // The check is not vacuous: it passes over plain text, and not over what does need the sanitizer.
    expect(passed.length).toBeGreaterThan(200);
    for (const text of ['a <b>b</b>', '![x](y.png)', '[x](javascript:a)', '```c#\nx\n```', 'ftp://x.org', 'xmpp:a@b.c'])
      expect(mayNeedSanitizer(text), text).toBe(true);
  });

  it('drops images (a transcript must not make the page fetch anything)', () => {
    expect(renderMarkdown('![alt](https://example.com/t.png)')).not.toContain('<img');
  });
});

describe('loading the sanitizer', () => {
  it('loads jsdom only when some HTML must be sanitized, not with the module', async () => {
    const { execFile } = await import('node:child_process');
    const { promisify } = await import('node:util');
    const script = [
      "const { renderMarkdown } = await import('./src/transcript/markdown.ts');",
      "const { createRequire } = await import('node:module');",
      'const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((f) => /[\\\\/]jsdom[\\\\/]/.test(f));',
      "renderMarkdown('**plain** text with `code`');",
      'const before = loaded();',
      "const html = renderMarkdown('a <b>bold</b> word');",
      'process.stdout.write(JSON.stringify({ before, after: loaded(), html }));',
    ].join('\n');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      { cwd: new URL('../..', import.meta.url).pathname },
    );
    const { before, after, html } = JSON.parse(stdout) as { before: boolean; after: boolean; html: string };
    expect(before).toBe(false);
    expect(after).toBe(true);
    expect(html).toBe('<p>a <b>bold</b> word</p>\n');
  }, 60_000);
});
