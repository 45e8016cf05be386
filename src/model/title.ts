/** Markdown markers taken off one line: heading and list marks, emphasis, links (their text kept), tags. */
function plainLine(line: string): string {
  return line
    .trim()
    .replace(/^#{1,6}\s+/, '')
    .replace(/^[-*+>]\s+/, '')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/(^|[\s(])[*_]([^*_\s][^*_]*?)[*_](?=$|[\s).,!?:;])/g, '$1$2')
    .replace(/<\/?[a-z][^>]*>/gi, '');
}

/** A text as plain words on one line (a title made from a prompt): Markdown markers off, whitespace folded. */
export function plainText(text: string): string {
  return text.split('\n').map(plainLine).join(' ').replace(/\s+/g, ' ').trim();
}

/** A title as plain text: the first non-empty line, Markdown markers taken off, at most `max` characters. */
export function plainTitle(text: string, max = 120): string {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? '';
  const plain = plainLine(line).replace(/\s+/g, ' ').trim();
  return plain.length > max ? `${plain.slice(0, max - 1)}…` : plain;
}
