import { addAttribute, escapeHTML } from 'astro/runtime/server/index.js';
import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { attr, longText, pathText, text, toolBody } from '../../src/site/components/session/html.ts';
import { threadBytes, threadHtml } from '../../src/site/components/thread-html.ts';
import type { ViewItem } from '../../src/transcript/session-view.ts';
import { XSS_PAYLOADS } from '../fixtures/xss-payloads.ts';

// The thread's markup is made as strings (src/site/components/thread-html.ts): attributes escaped as Astro's
// templates escape them, text as they do but with its quotes as written.

const STRINGS = [...XSS_PAYLOADS, '', ' ', 'a & b', "it's", '"q"', '<>', '&amp;', '日本語 & <タグ>', '0'];

describe('text and attributes, escaped as Astro escapes them', () => {
  it('text as an Astro expression shows it, with its quotes as written', () => {
    for (const s of STRINGS) {
      expect(text(s), s).toBe(String(escapeHTML(s)).replaceAll('&quot;', '"').replaceAll('&#39;', "'"));
      const element = new JSDOM(`<div>${text(s)}</div>`).window.document.querySelector('div')!;
      // The parser drops a NUL in text, as a browser does.
      expect(element.textContent, s).toBe(s.replaceAll('\0', ''));
      expect(element.children.length, s).toBe(0);
    }
    expect(text(`it's "quoted"`)).toBe(`it's "quoted"`);
    expect(text(0)).toBe('0');
    expect(text(12)).toBe('12');
    expect(text(undefined)).toBe('');
    expect(text(false)).toBe('');
  });

  it('attributes as addAttribute writes them, and always escaped', () => {
    for (const s of STRINGS)
      for (const name of ['title', 'class', 'data-prompt']) {
        const astro = String(addAttribute(s, name));
        // Astro leaves an http URL with an `&` unescaped, quotes and all; here every value is escaped.
        if (s.includes('&') && /^https?:/i.test(s)) continue;
        expect(attr(name, s), `${name}=${s}`).toBe(astro);
      }
    expect(attr('title', undefined)).toBe('');
    expect(attr('open', true)).toBe(' open');
    expect(attr('open', undefined)).toBe('');
    const hostile = 'https://example.com/?a=1&b="onmouseover="alert(1)';
    const element = new JSDOM(`<span${attr('title', hostile)}></span>`).window.document.querySelector('span')!;
    expect(element.getAttribute('title')).toBe(hostile);
    expect(element.hasAttribute('onmouseover')).toBe(false);
  });
});

describe('the thread', () => {
  const item = (fields: Partial<ViewItem> & Pick<ViewItem, 'kind'>): ViewItem =>
    ({ id: 'x', timestamp: '2026-01-02T03:04:05.000Z', estimated: false, ...fields }) as ViewItem;

  it('shows every string of every kind of item as text, never as markup', async () => {
    const payload = '<img src=x onerror="window.__xss=1">';
    const items: ViewItem[] = [
      item({ kind: 'prompt', ordinal: 1, text: payload, images: [], queued: true, index: 0, more: [1] }),
      item({
        kind: 'answer',
        segments: [{ channel: 'output', type: 'text', format: 'text', text: payload }],
        model: payload,
        index: 2,
      }),
      item({
        kind: 'tool',
        call: { call_id: 'c1', name: payload, arguments: '', status: 'completed' },
        input: { kind: 'shell', command: payload, cwd: `/home/${payload}`, description: payload },
        headline: payload,
        subagents: [{ agentId: 'a', label: payload, description: payload, items: [] }],
        result: {
          id: 'r1',
          status: 'error',
          name: payload,
          output: payload,
          truncated: 1200,
          images: [],
          view: { kind: 'shell', stdout: payload, stderr: payload, exitCode: 2 },
        },
      }),
      item({ kind: 'divider', label: payload, detail: payload }),
      item({ kind: 'notice', tone: 'error', label: payload, text: payload, collapsed: false }),
      item({ kind: 'command', command: payload, expanded: [payload], output: [payload] }),
      item({ kind: 'context', parts: [{ label: payload, text: payload }] }),
      item({ kind: 'hidden', count: 2, types: [payload] }),
    ];
    const html = await threadHtml(items, 'UTC', false);
    const document = new JSDOM(`<body>${html}</body>`).window.document;
    expect(document.querySelectorAll('img')).toHaveLength(0);
    expect(document.querySelectorAll('[onerror]')).toHaveLength(0);
    // Each kind's strings are there as text: the prompt, answer, tool (name, command, headline, subagent, output).
    expect(document.body.textContent!.split(payload).length - 1).toBeGreaterThanOrEqual(16);
    expect(document.querySelector('.item-prompt')!.id).toBe('m0');
    expect(document.querySelector('.item-prompt .who')!.textContent).toBe('\n#1 \nYou (typed while the agent worked)');
    expect(document.querySelector('.item > a[id]:not([href])')!.id).toBe('m1');
    expect(document.querySelector('time')!.textContent).toBe('03:04:05');
    // A message's time to the second, as shown: the tooltip made of it shows no finer.
    expect(document.querySelector('time')!.getAttribute('datetime')).toMatch(/T\d\d:\d\d:\d\d(Z|[+-]\d\d:\d\d)$/);
    expect(document.querySelector('.io-output .exit')!.textContent).toBe('exit 2');
    expect(document.querySelector('.io-output .note')!.textContent).toContain('1,200 more characters');
    expect(document.querySelector('.hidden-events')!.textContent).toBe(
      `2 log records not shown as messages: ${payload}`,
    );
  });

  it('as bytes, an item at a time: the UTF-8 of the thread as one string', async () => {
    const items: ViewItem[] = [
      item({ kind: 'prompt', ordinal: 1, text: 'ログイン画面を直して <b>', images: [], index: 0 }),
      item({
        kind: 'answer',
        segments: [{ channel: 'output', type: 'text', format: 'text', text: '直しました 🎉 "done"' }],
        index: 1,
      }),
      item({ kind: 'notice', tone: 'error', label: 'エラー', text: 'x & y', collapsed: false }),
    ];
    const html = await threadHtml(items, 'Asia/Tokyo', false);
    const bytes = await threadBytes(items, 'Asia/Tokyo', false);
    expect(bytes.toString('utf8')).toBe(html);
    expect(bytes.equals(Buffer.from(html))).toBe(true);
    expect(html).toContain('ログイン画面を直して &lt;b&gt;');
    expect((await threadBytes([], 'UTC', false)).length).toBe(0);
  });

  it('a long text: the first lines, and the rest behind "show all"', () => {
    const value = Array.from({ length: 100 }, (_, i) => `line ${i} <b>`).join('\n');
    const document = new JSDOM(`<body>${longText(value, 'shell-out')}</body>`).window.document;
    const shown =
      document.querySelector('pre.preview')!.textContent! + document.querySelector('pre.rest')!.textContent!;
    expect(shown).toBe(value);
    expect(document.querySelector('summary')!.textContent).toContain('more lines (100 in');
    expect(document.querySelector('div')!.className).toBe('long shell-out');
  });

  it('paths break after each slash, and a tool without output has only its input', async () => {
    expect(pathText('/home/a&b/x.ts')).toBe('/<wbr>home/<wbr>a&amp;b/<wbr>x.ts');
    const html = await toolBody({ kind: 'read', path: '/a/b.ts', range: 'lines 1–5' });
    expect(html).toBe(
      '<div class="io io-input"><p class="read-path"> <span class="path"> /<wbr>a/<wbr>b.ts </span> ' +
        '<span class="note"> lines 1–5</span> </p></div>',
    );
  });
});
