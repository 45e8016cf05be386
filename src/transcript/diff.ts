/** Unified diffs for the session page: a line diff of an edit, and Codex `apply_patch` envelopes parsed into files. */

export interface DiffLine {
  /** `+` added, `-` removed, ` ` context, `@` a hunk header or a gap. */
  op: '+' | '-' | ' ' | '@';
  text: string;
}

export interface FileDiff {
  path: string;
  /** `update`, `add`, `delete`, or `move` (with `to`). */
  action: 'update' | 'add' | 'delete' | 'move';
  to?: string;
  lines: DiffLine[];
}

/** Past this many line pairs the diff is shown as all-removed then all-added (no quadratic table). */
const MAX_CELLS = 4_000_000;
const CONTEXT = 3;

function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** The line diff of `before` → `after`, with up to three lines of context around each change. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const ops: DiffLine[] = a.slice(0, head).map((text) => ({ op: ' ', text }));
  if (midA.length * midB.length > MAX_CELLS) {
    ops.push(...midA.map((text) => ({ op: '-' as const, text })), ...midB.map((text) => ({ op: '+' as const, text })));
  } else {
    // Longest common subsequence, table from the end so the walk goes forward.
    const n = midA.length;
    const m = midB.length;
    const table = new Uint32Array((n + 1) * (m + 1));
    for (let i = n - 1; i >= 0; i--)
      for (let j = m - 1; j >= 0; j--)
        table[i * (m + 1) + j] =
          midA[i] === midB[j]
            ? table[(i + 1) * (m + 1) + j + 1]! + 1
            : Math.max(table[(i + 1) * (m + 1) + j]!, table[i * (m + 1) + j + 1]!);
    let i = 0;
    let j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        ops.push({ op: ' ', text: midA[i]! });
        i++;
        j++;
      } else if (i < n && (j === m || table[(i + 1) * (m + 1) + j]! >= table[i * (m + 1) + j + 1]!)) {
        ops.push({ op: '-', text: midA[i++]! });
      } else ops.push({ op: '+', text: midB[j++]! });
    }
  }
  ops.push(...a.slice(a.length - tail).map((text) => ({ op: ' ' as const, text })));
  return withContext(ops);
}

/** Keeps CONTEXT lines around changes; longer unchanged runs become one `@` gap line. */
function withContext(ops: DiffLine[]): DiffLine[] {
  const keep = new Uint8Array(ops.length);
  ops.forEach((line, i) => {
    if (line.op === ' ') return;
    for (let k = Math.max(0, i - CONTEXT); k <= Math.min(ops.length - 1, i + CONTEXT); k++) keep[k] = 1;
  });
  const out: DiffLine[] = [];
  let skipped = 0;
  ops.forEach((line, i) => {
    if (keep[i]) {
      if (skipped) out.push({ op: '@', text: `… ${skipped} unchanged line${skipped === 1 ? '' : 's'}` });
      skipped = 0;
      out.push(line);
    } else skipped++;
  });
  if (skipped && out.length) out.push({ op: '@', text: `… ${skipped} unchanged line${skipped === 1 ? '' : 's'}` });
  return out;
}

/** Whether a text is a Codex `apply_patch` envelope. */
export function isPatchEnvelope(text: string): boolean {
  return text.trimStart().startsWith('*** Begin Patch');
}

/** Codex `apply_patch` (`*** Begin Patch` … `*** End Patch`) as files with their +/- lines. */
export function parsePatchEnvelope(text: string): FileDiff[] {
  const files: FileDiff[] = [];
  let current: FileDiff | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '');
    const header = /^\*\*\* (Update|Add|Delete) File: (.*)$/.exec(line);
    if (header) {
      const action = header[1] === 'Add' ? 'add' : header[1] === 'Delete' ? 'delete' : 'update';
      current = { path: header[2]!.trim(), action, lines: [] };
      files.push(current);
      continue;
    }
    const move = /^\*\*\* Move to: (.*)$/.exec(line);
    if (move && current) {
      current.action = 'move';
      current.to = move[1]!.trim();
      continue;
    }
    if (line.startsWith('*** ') || !current) continue;
    if (line.startsWith('@@')) current.lines.push({ op: '@', text: line });
    else if (line.startsWith('+')) current.lines.push({ op: '+', text: line.slice(1) });
    else if (line.startsWith('-')) current.lines.push({ op: '-', text: line.slice(1) });
    else current.lines.push({ op: ' ', text: line.startsWith(' ') ? line.slice(1) : line });
  }
  return files;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const LINE_CLASS = { '+': 'dl dl-add', '-': 'dl dl-del', '@': 'dl dl-hunk', ' ': 'dl' } as const;

/** The lines of a diff as escaped HTML for a `<pre>`: one span a line, coloured by class. */
export function diffHtml(lines: DiffLine[]): string {
  return lines
    .map((l) => `<span class="${LINE_CLASS[l.op]}">${escapeHtml(l.op === '@' ? l.text : `${l.op}${l.text}`)}</span>`)
    .join('');
}
