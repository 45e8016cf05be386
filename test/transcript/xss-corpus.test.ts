import { JSDOM } from 'jsdom';
import { describe, expect, it } from 'vitest';
import { renderMarkdown, sanitizeHtml } from '../../src/transcript/markdown.ts';
import { XSS_PAYLOADS } from '../fixtures/xss-payloads.ts';

// The policy the rendered HTML must satisfy (the browser half of the corpus runs in Chromium).
const ALLOWED_ELEMENTS = new Set(
  'p br hr pre code strong em del b i s sub sup kbd ul ol li a blockquote h1 h2 h3 h4 h5 h6 table thead tbody tr th td input details summary'.split(
    ' ',
  ),
);
const ALLOWED_ATTRIBUTES = new Set([
  'href',
  'title',
  'align',
  'start',
  'type',
  'checked',
  'disabled',
  'class',
  'target',
  'rel',
]);
const URL_ATTRIBUTES = ['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'srcdoc', 'background', 'poster'];
const DANGEROUS_SCHEME = /^(?:javascript|data|vbscript):/;

/** What a URL attribute means to a browser: entities decoded (the parser did that), then whitespace
 * and control characters ignored, case folded. */
const normalizeUrl = (value: string): string => value.replace(/[\u0000-\u0020\u007f-\u009f]/g, '').toLowerCase();

function violations(html: string): string[] {
  const found: string[] = [];
  if (html.toLowerCase().includes('<script')) found.push('<script in the HTML text');
  const { document } = new JSDOM(`<!doctype html><body>${html}</body>`).window;
  // The whole document: a stray `<body onload>` lands its attributes on the real body.
  for (const el of document.querySelectorAll('*')) {
    const tag = el.tagName.toLowerCase();
    if (['html', 'head', 'body'].includes(tag)) {
      if (el.attributes.length > 0) found.push(`attributes on <${tag}>`);
      continue;
    }
    if (!ALLOWED_ELEMENTS.has(tag)) found.push(`element <${tag}>`);
    if (tag === 'input' && el.getAttribute('type') !== 'checkbox') found.push('input that is not a checkbox');
    for (const attr of el.attributes) {
      const name = attr.name.toLowerCase();
      if (name.startsWith('on')) found.push(`handler ${name} on <${tag}>`);
      if (!ALLOWED_ATTRIBUTES.has(name)) found.push(`attribute ${name} on <${tag}>`);
      if (URL_ATTRIBUTES.includes(name) && DANGEROUS_SCHEME.test(normalizeUrl(attr.value))) {
        found.push(`${name}=${attr.value} on <${tag}>`);
      }
      if (name === 'href' && !/^(?:https?:|mailto:|#)/i.test(attr.value.trim())) found.push(`href=${attr.value}`);
    }
  }
  return found;
}

const reparse = (html: string): string =>
  new JSDOM(`<!doctype html><body>${html}</body>`).window.document.body.innerHTML;

describe('XSS corpus through renderMarkdown', () => {
  it('has at least 100 distinct payloads, each setting its own flag', () => {
    expect(XSS_PAYLOADS.length).toBeGreaterThanOrEqual(100);
    expect(new Set(XSS_PAYLOADS).size).toBe(XSS_PAYLOADS.length);
    expect(XSS_PAYLOADS[0]).toBe("<script>window.__xss='1'</script>");
  });

  it.each(XSS_PAYLOADS.map((payload, i) => [i + 1, payload] as const))('payload %i is defused', (_n, payload) => {
    const html = renderMarkdown(payload);
    expect(violations(html)).toEqual([]);
    // The DOM a browser builds from the HTML, once serialized, parses back to itself: there is no mutation
    // left to exploit. And the sanitizer would leave it as it is (whichever path rendered it).
    const dom = reparse(html);
    expect(reparse(dom)).toBe(dom);
    expect(reparse(sanitizeHtml(html))).toBe(dom);
  });

  it('runs none of them in a DOM that executes scripts', () => {
    const html = XSS_PAYLOADS.map((p) => `<section>${renderMarkdown(p)}</section>`).join('\n');
    const { window } = new JSDOM(`<!doctype html><body>${html}</body>`, { runScripts: 'dangerously' });
    for (const el of window.document.querySelectorAll('a, summary, details, input, p, code, li, td')) {
      (el as HTMLElement).click();
    }
    expect((window as unknown as { __xss?: string }).__xss).toBeUndefined();
    window.close();
  });

  it('the policy check flags the raw payloads (it is not vacuous)', () => {
    const html = XSS_PAYLOADS.filter((p) => p.startsWith('<') && !/^<(?:javascript|https?):/.test(p));
    const missed = html.filter((p) => violations(p).length === 0);
    // Inside a body the parser drops `<frameset>` outright: inert even unsanitized.
    expect(missed).toEqual([XSS_PAYLOADS.find((p) => p.startsWith('<frameset'))]);
    expect(html.length).toBeGreaterThanOrEqual(100);
  });

  it('would notice a payload that ran (the check is live)', () => {
    const { window } = new JSDOM(`<!doctype html><body>${XSS_PAYLOADS[0]}</body>`, { runScripts: 'dangerously' });
    expect((window as unknown as { __xss?: string }).__xss).toBe('1');
    window.close();
  });

  it('keeps the harmless text of a payload readable', () => {
    expect(renderMarkdown('[x](javascript:alert(1)) and <b>bold</b>')).toBe('<p><a>x</a> and <b>bold</b></p>\n');
    expect(renderMarkdown('`<img src=x onerror=alert(1)>`')).toBe(
      '<p><code>&lt;img src=x onerror=alert(1)&gt;</code></p>\n',
    );
  });
});
