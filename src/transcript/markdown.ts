import type createDOMPurifyType from 'dompurify';
import type { DOMPurify } from 'dompurify';
import type { JSDOM as JSDOMType } from 'jsdom';
import { createRequire } from 'node:module';
import { Marked, Renderer, type Token, type Tokens } from 'marked';

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

/**
 * One DOMPurify on one jsdom window for the whole process: creating a window costs ~100 ms. jsdom is loaded here,
 * on the first HTML to sanitize, not with this module: loading it costs ~2 s of CPU, and a site build's page
 * workers find their HTML sanitized in the render cache.
 */
function getPurifier(): DOMPurify {
  if (purifier) return purifier;
  const require = createRequire(import.meta.url);
  const { JSDOM } = require('jsdom') as { JSDOM: typeof JSDOMType };
  const createDOMPurify = require('dompurify') as typeof createDOMPurifyType;
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

const LINK_ATTRIBUTES = 'rel="nofollow noopener noreferrer" target="_blank"';
const SAFE_LANGUAGE = /^[\w+-]*$/;

/** Raw HTML tags kept as formatting when they carry no attributes; any other raw HTML is shown as text. */
const HARMLESS_TAGS = new Set([
  'b',
  'i',
  'em',
  'strong',
  'u',
  'br',
  'code',
  'kbd',
  'sub',
  'sup',
  'del',
  's',
  'p',
  'hr',
  'pre',
  'ul',
  'ol',
  'li',
  'blockquote',
  'details',
  'summary',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
]);

function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Whether raw HTML is only attribute-less formatting tags (and text between them). */
function harmlessHtml(html: string): boolean {
  const tags = html.match(/<[^>]*>?/g) ?? [];
  return tags.every((tag) => {
    const m = /^<\/?([a-z][a-z0-9]*)\s*\/?>$/i.exec(tag);
    return m !== null && HARMLESS_TAGS.has(m[1]!.toLowerCase());
  });
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    // Raw HTML in a message is shown as the text it is, unless it is plain formatting (the sanitizer still runs).
    html(token: Tokens.HTML | Tokens.Tag): string {
      if (harmlessHtml(token.text)) return token.text;
      const text = escapeText(token.text);
      return 'block' in token && token.block ? `<pre><code>${text}</code></pre>\n` : `<code>${text}</code>`;
    },
    // Images are never loaded from a transcript: a placeholder says one was there.
    image(token: Tokens.Image): string {
      const alt = token.text ? `: ${token.text}` : '';
      return `<code>[image${escapeText(alt)} ${escapeText(token.href)}]</code>`;
    },
    // What the sanitizer's hook does to a link, done by marked for the links it writes itself.
    link(token: Tokens.Link): string {
      const html = Renderer.prototype.link.call(this, token);
      const href = token.href.trim();
      if (!html.startsWith('<a href="') || href.startsWith('#') || !SAFE_URL.test(href)) return html;
      return html.replace('>', ` ${LINK_ATTRIBUTES}>`);
    },
  },
});

/**
 * Token types whose HTML from marked stays within the allow-list by construction: marked's own tags and
 * attributes around escaped text. Raw HTML (`html`), images and anything unknown are not among them.
 */
const SELF_SANITIZED = new Set([
  'space',
  'code',
  'heading',
  'table',
  'hr',
  'blockquote',
  'list',
  'list_item',
  'checkbox',
  'paragraph',
  'text',
  'def',
  'escape',
  'strong',
  'em',
  'codespan',
  'br',
  'del',
  'link',
]);

/** Whether renderMarkdown leaves this Markdown to marked alone (for tests: both paths must agree). */
export function isSelfSanitized(markdown: string): boolean {
  return selfSanitized(marked.lexer(markdown));
}

/**
 * Whether marked may make a token from this Markdown that needs the sanitizer. When not, the text is
 * self-sanitized without lexing it: raw HTML and `<…>` autolinks need `<`; images, links and definitions need
 * `[`; a code block's language must be safe, so each word after a fence is; and of the links marked finds in
 * bare text only `ftp:` and `xmpp:` ones have an href the sanitizer would drop (`https:`, `www.`, addresses are
 * safe).
 */
export function mayNeedSanitizer(markdown: string): boolean {
  if (MAY_NEED_SANITIZER.test(markdown)) return true;
  for (const [, language] of markdown.matchAll(FENCE_LANGUAGE)) if (!SAFE_LANGUAGE.test(language!)) return true;
  return false;
}
const MAY_NEED_SANITIZER = /[<[]|ftp:|xmpp:/i;
/** The word after a run of backticks or tildes (a fence's language, as marked takes it from the same line). */
const FENCE_LANGUAGE = /(?:`{3,}|~{3,})[^\S\n]*(\S*)/g;

/** Markdown → HTML by marked alone, as renderMarkdown's own path would have it before sanitizing. */
export function renderUnsanitized(markdown: string): string {
  return marked.parse(markdown) as string;
}

const QUOTE_ENTITY = /&(?:quot|#39);/;
/** A run of text between tags (or before the first). */
const TEXT_RUN = /(^|>)([^<]+)/g;

/**
 * marked's HTML with the quotes of its text as written: marked escapes `"` and `'` everywhere, but only an
 * attribute needs it, and a code block's quotes took six bytes each (`&quot;`), ~2 % of a site. Of the tags marked
 * writes here only a link's carries text in attributes (its href and title; an image is a placeholder), so
 * without one every quote is text. With one, a run between `>` and `<` is text: marked escapes `>` in text and
 * in attribute values alike. DOMPurify's HTML has its text's quotes as written already.
 */
export function plainQuotes(html: string): string {
  if (!QUOTE_ENTITY.test(html)) return html;
  if (!html.includes('<a ')) return unquote(html);
  return html.replace(TEXT_RUN, (run, open: string, text: string) =>
    QUOTE_ENTITY.test(text) ? open + unquote(text) : run,
  );
}

const unquote = (text: string) => text.replaceAll('&quot;', '"').replaceAll('&#39;', "'");

/** Whether marked's HTML for these tokens is already what the sanitizer would leave of it. */
function selfSanitized(tokens: Token[]): boolean {
  let safe = true;
  marked.walkTokens(tokens, (token) => {
    if (!safe) return;
    if (!SELF_SANITIZED.has(token.type)) safe = false;
    else if (token.type === 'link' && !SAFE_URL.test((token as Tokens.Link).href.trim())) safe = false;
    else if (token.type === 'code' && !SAFE_LANGUAGE.test(/^\S*/.exec((token as Tokens.Code).lang ?? '')![0])) {
      safe = false;
    }
  });
  return safe;
}

/** Sanitizes an HTML string with the project's allow-list (no script, no handlers, no styles, no media). */
export function sanitizeHtml(html: string): string {
  return getPurifier().sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOW_DATA_ATTR: false,
    ALLOW_ARIA_ATTR: false,
    ALLOWED_URI_REGEXP: SAFE_URL,
    // DOMPurify holds every attribute it does not know to be URI-safe to ALLOWED_URI_REGEXP, which would
    // drop a list's start, a cell's align and a task item's checkbox.
    ADD_URI_SAFE_ATTR: ['start', 'align', 'type', 'checked', 'disabled'],
    ADD_ATTR: ['target', 'rel'],
  });
}

// Bounded by characters, not entries: a worker renders the pages of a session of any size, whose messages
// may each be long, under a heap of a few hundred MB.
const cache = new Map<string, string>();
const CACHE_LIMIT = 5000;
const CACHE_CHARS = 4_000_000;
let cachedChars = 0;

/** Sanitized HTML kept between runs (the render cache), for Markdown that needs the sanitizer. */
export interface SanitizedStore {
  get(markdown: string): string | undefined;
  put?(markdown: string, html: string): void;
}

/**
 * Markdown → sanitized HTML. Markdown with raw HTML, images or unsafe links goes through DOMPurify (or
 * comes from `store`, where an earlier run left it); the rest, nearly every message, is only marked's own
 * escaped output, which DOMPurify on jsdom would hand back unchanged at 25 times marked's cost, so it is
 * used as it is (test/render/markdown.test.ts checks that both paths agree).
 */
export function renderMarkdown(markdown: string, store?: SanitizedStore): string {
  const hit = cache.get(markdown);
  if (hit !== undefined) return hit;
  const tokens = marked.lexer(markdown);
  let html = marked.parser(tokens);
  // Only marked's own HTML: an unsafe code language can hold a quote, which must stay an entity for DOMPurify.
  if (!mayNeedSanitizer(markdown) || selfSanitized(tokens)) html = plainQuotes(html);
  else {
    const stored = store?.get(markdown);
    if (stored !== undefined) html = stored;
    else {
      html = sanitizeHtml(html);
      store?.put?.(markdown, html);
    }
  }
  if (cache.size >= CACHE_LIMIT || cachedChars >= CACHE_CHARS) {
    cache.clear();
    cachedChars = 0;
  }
  cache.set(markdown, html);
  cachedChars += markdown.length + html.length;
  return html;
}
