import { escapeHtml } from '../transcript/diff.ts';

/** Lines shown before "show all". */
export const PREVIEW_LINES = 24;
/** Characters shown at most before "show all" (a few very long lines). */
export const PREVIEW_CHARS = 3000;

export interface LongTextSplit {
  /** The first lines, with the line break that ends them. */
  head: string;
  /** Everything after `head`: `head + rest` is the text. */
  rest: string;
  lines: number;
  /** Lines in `head` (a line cut in two counts there). */
  headLines: number;
}

/** A text past a screenful split into the lines shown and the rest; undefined when it is shown whole. */
export function splitLongText(text: string): LongTextSplit | undefined {
  let lines = 1;
  let cut = -1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) {
    if (lines === PREVIEW_LINES) cut = at + 1;
    lines += 1;
  }
  if (lines <= PREVIEW_LINES + 6 && text.length <= 6000) return undefined;
  if (cut === -1 || cut > PREVIEW_CHARS) cut = PREVIEW_CHARS;
  // Never between the two halves of a surrogate pair.
  if (/[\uD800-\uDBFF]/.test(text[cut - 1] ?? '')) cut -= 1;
  const head = text.slice(0, cut);
  const headLines = head.split('\n').length - (head.endsWith('\n') ? 1 : 0);
  return { head, rest: text.slice(cut), lines, headLines };
}

/**
 * A text as the HTML of a `<pre>`: only `&`, `<` and `>` escaped (quotes are plain text outside attributes,
 * and tool output is full of them). A leading line break is doubled, because HTML drops the first one after
 * `<pre>`.
 */
export function preText(text: string): string {
  const html = escapeHtml(text);
  return html.startsWith('\n') ? `\n${html}` : html;
}
