/**
 * An answer's Markdown as the plain text a reader sees on its page, for the site search (its index and its
 * snippets): heading, list, quote and table marks, emphasis, inline-code ticks and fences taken off, a link as
 * its text (and its address, so it is still found by it). Code stays as written: inside a fence or backticks
 * nothing is taken off (`__init__`, `# a shell comment`). Imports nothing: the search box uses it too.
 */
export function markdownAsPlainText(markdown: string): string {
  const out: string[] = [];
  let fence: string | undefined;
  for (const line of markdown.split('\n')) {
    const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker)
        fence = undefined;
      else out.push(line);
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    out.push(plainLine(line));
  }
  return out.join('\n');
}

/** Where a line may hold a block mark: at its start, a table's bars, a closing `#`. */
const MAY_HOLD_BLOCK_MARK = /^\s*(?:[-#>*+_|]|\d)|\||#\s*$/;
/** What an inline mark starts with; most lines of prose hold none. */
const MAY_HOLD_INLINE_MARK = /[`\\![<*_~]/;

function plainLine(line: string): string {
  if (!MAY_HOLD_BLOCK_MARK.test(line)) return inlinePlain(line);
  // A table's separator row, a horizontal rule.
  if (line.includes('|') && line.includes('---') && /^[\s|:-]+$/.test(line)) return '';
  if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) return '';
  let text = line
    .replace(/^\s{0,3}#{1,6}(\s+|$)/, '')
    .replace(/\s+#+\s*$/, '')
    .replace(/^\s*(>\s?)+/, '')
    .replace(/^\s*([-*+]|\d{1,9}[.)])\s+(\[[ xX]\]\s+)?/, '');
  if (/^\s*\|.*\|\s*$/.test(text))
    text = text
      .trim()
      .slice(1, -1)
      .split('|')
      .map((cell) => cell.trim())
      .join(' · ');
  return inlinePlain(text);
}

/** Inline marks off outside code spans; a code span keeps its text, without its ticks. */
function inlinePlain(text: string): string {
  if (!MAY_HOLD_INLINE_MARK.test(text)) return text;
  let result = '';
  let at = 0;
  for (const span of text.matchAll(/(`+)([^`]|[^`][\s\S]*?[^`])\1(?!`)/g)) {
    result += inlineMarks(text.slice(at, span.index)) + span[2]!.trim();
    at = span.index + span[0].length;
  }
  return result + inlineMarks(text.slice(at));
}

/** An escaped punctuation mark (`\*`) stands in the Private Use Area while the marks are taken off. */
const ESCAPED = 0xe000;

function inlineMarks(text: string): string {
  return text
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~<])/g, (_, mark: string) => String.fromCharCode(ESCAPED + mark.charCodeAt(0)))
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]+)\]\(\s*<?([^)\s>]+)>?(\s+"[^"]*")?\s*\)/g, (_, label: string, url: string) =>
      label === url ? url : `${label} (${url})`,
    )
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/<((?:https?|mailto):[^>\s]+)>/g, '$1')
    .replace(/(\*\*|__)(?=\S)([\s\S]*?\S)\1/g, '$2')
    .replace(/~~(?=\S)([\s\S]*?\S)~~/g, '$1')
    .replace(/(^|[^\w*])\*(?=[^\s*])([^*]*?[^\s*])\*(?![\w*])/g, '$1$2')
    .replace(/(^|[^\w])_(?=[^\s_])([^_]*?[^\s_])_(?!\w)/g, '$1$2')
    .replace(/[\ue000-\ue07f]/g, (mark) => String.fromCharCode(mark.charCodeAt(0) - ESCAPED));
}
