import createDOMPurify, { type DOMPurify } from 'dompurify';
import { JSDOM } from 'jsdom';
import { Marked } from 'marked';

const ALLOWED_TAGS = [
  'p',
  'br',
  'hr',
  'pre',
  'code',
  'strong',
  'em',
  'del',
  'b',
  'i',
  's',
  'sub',
  'sup',
  'kbd',
  'ul',
  'ol',
  'li',
  'a',
  'blockquote',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'table',
  'thead',
  'tbody',
  'tr',
  'th',
  'td',
  'input',
  'details',
  'summary',
];
const ALLOWED_ATTR = ['href', 'title', 'align', 'start', 'type', 'checked', 'disabled', 'class'];
const SAFE_URL = /^(?:https?:|mailto:|#)/i;

let purifier: DOMPurify | undefined;

/** One DOMPurify on one jsdom window for the whole process: creating a window costs ~100 ms. */
function getPurifier(): DOMPurify {
  if (purifier) return purifier;
  const { window } = new JSDOM('');
  const instance = createDOMPurify(window as unknown as Parameters<typeof createDOMPurify>[0]);
  instance.addHook('afterSanitizeAttributes', (node) => {
    if (node.nodeName === 'A') {
      const href = node.getAttribute('href') ?? '';
      if (!SAFE_URL.test(href.trim())) node.removeAttribute('href');
      else if (!href.startsWith('#')) {
        node.setAttribute('rel', 'nofollow noopener noreferrer');
        node.setAttribute('target', '_blank');
      }
    }
    if (node.nodeName === 'INPUT' && node.getAttribute('type') !== 'checkbox') node.remove();
    if (node.hasAttribute('class') && !/^language-[\w+-]+$/.test(node.getAttribute('class') ?? '')) {
      node.removeAttribute('class');
    }
  });
  purifier = instance;
  return instance;
}

const marked = new Marked({ gfm: true, breaks: false, async: false });

/** Sanitizes an HTML string with the project's allow-list (no script, no handlers, no styles, no media). */
export function sanitizeHtml(html: string): string {
  return getPurifier().sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: SAFE_URL,
    ADD_ATTR: ['target', 'rel'],
  });
}

const cache = new Map<string, string>();
const CACHE_LIMIT = 5000;

/** Markdown → sanitized HTML. Raw HTML inside the Markdown goes through the same sanitizer. */
export function renderMarkdown(markdown: string): string {
  const hit = cache.get(markdown);
  if (hit !== undefined) return hit;
  const html = sanitizeHtml(marked.parse(markdown) as string);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(markdown, html);
  return html;
}
