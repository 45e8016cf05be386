import { type BundledLanguage, type BundledTheme, createHighlighter, type HighlighterGeneric } from 'shiki';

/**
 * Build-time syntax highlighting with shiki, emitting class names instead of inline colours (the CSP forbids
 * inline styles): a theme whose every colour is a code for a class, so the page's stylesheet picks the real
 * colours, light and dark. One highlighter for the whole build; languages load on first use.
 */

const CLASSES = ['c', 's', 'k', 'n', 'f', 't', 'v', 'a', 'r', 'i', 'd', 'h'] as const;
const code = (i: number) => `#0000${(i + 1).toString(16).padStart(2, '0')}`;
const SCOPES: Record<(typeof CLASSES)[number], string[]> = {
  c: ['comment', 'punctuation.definition.comment'],
  s: ['string', 'string.quoted', 'string.template', 'markup.inline.raw'],
  k: ['keyword', 'storage', 'keyword.operator.new', 'keyword.control'],
  n: ['constant.numeric', 'constant.language', 'constant.character', 'support.constant'],
  f: ['entity.name.function', 'support.function', 'meta.function-call entity.name.function'],
  t: ['entity.name.type', 'entity.name.class', 'support.type', 'support.class', 'storage.type.primitive'],
  v: ['variable.parameter', 'variable.other.property', 'meta.object-literal.key', 'support.variable'],
  a: ['entity.name.tag', 'entity.other.attribute-name', 'meta.tag'],
  r: ['string.regexp'],
  i: ['markup.inserted'],
  d: ['markup.deleted', 'invalid'],
  h: ['markup.heading', 'entity.name.section', 'markup.bold'],
};

const THEME = {
  name: 'logbook-classes',
  type: 'light' as const,
  fg: '#000000',
  bg: '#ffffff',
  settings: [
    { settings: { foreground: '#000000' } },
    ...CLASSES.map((cls, i) => ({ scope: SCOPES[cls], settings: { foreground: code(i) } })),
  ],
};
const CLASS_OF = new Map(CLASSES.map((cls, i) => [code(i), `hl-${cls}`]));

/** Bigger blocks are shown as plain text: highlighting costs about 0.1-0.5 ms a line once warm (more for dense code). */
export const HIGHLIGHT_MAX_CHARS = 20_000;
export const HIGHLIGHT_MAX_LINES = 500;

let highlighter: Promise<HighlighterGeneric<BundledLanguage, BundledTheme>> | undefined;
const failed = new Set<string>();
let spentMs = 0;

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Time spent highlighting in this process (for the build's cost, reported by tests and the bench). */
export function highlightMilliseconds(): number {
  return spentMs;
}

/**
 * The HTML of `text` highlighted as `lang`: escaped text in `<span class="hl-…">`, one `<span class="line">` a
 * line. Undefined when there is nothing to highlight (unknown language, too big): the caller shows plain text.
 */
export async function highlight(text: string, lang: string | undefined): Promise<string | undefined> {
  if (!lang || failed.has(lang) || text.length > HIGHLIGHT_MAX_CHARS) return undefined;
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && lines <= HIGHLIGHT_MAX_LINES; i = text.indexOf('\n', i + 1)) lines++;
  if (lines > HIGHLIGHT_MAX_LINES) return undefined;
  const started = performance.now();
  try {
    highlighter ??= createHighlighter({ themes: [THEME], langs: [] });
    const h = await highlighter;
    if (!h.getLoadedLanguages().includes(lang)) await h.loadLanguage(lang as BundledLanguage);
    // No time limit per line: shiki's default (500 ms) counts the grammar's first compile too, so on a loaded
    // machine the same line came out tokenized in one build and cut short in the next; the size caps above bound
    // the work instead, and a page's bytes depend only on its input.
    const tokens = h.codeToTokensBase(text, {
      lang: lang as BundledLanguage,
      theme: THEME.name as BundledTheme,
      tokenizeTimeLimit: 0,
    });
    return tokens
      .map(
        (line) =>
          `<span class="line">${line
            .map((t) => {
              const cls = t.color ? CLASS_OF.get(t.color.toLowerCase()) : undefined;
              return cls ? `<span class="${cls}">${escape(t.content)}</span>` : escape(t.content);
            })
            .join('')}</span>`,
      )
      .join('\n');
  } catch {
    failed.add(lang);
    return undefined;
  } finally {
    spentMs += performance.now() - started;
  }
}
