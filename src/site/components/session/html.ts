/**
 * The markup of a conversation's parts as strings, for the thread of a session page (thread-html.ts), which is
 * most of a site's bytes. Astro renders the page around it; the thread's thousands of elements are made here
 * in one pass, at a fraction of the cost of one component call each. Attributes are escaped the way Astro's own
 * templates escape them; text only where HTML needs it (see `text`).
 */
import { escapeHtml, type FileDiff, diffHtml } from '../../../transcript/diff.ts';
import type { ResultView } from '../../../transcript/session-view.ts';
import type { ToolInputView } from '../../../transcript/tool-view.ts';
import { highlight } from '../../highlight.ts';
import { preText, splitLongText } from '../../long-text.ts';
import { byteSize } from '../../text-lang.ts';

const TEXT_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** A value in text, as an Astro expression shows it: a string escaped, a number as written (0 too), and
 * nothing for another false value. Unlike Astro, quotes stay as written: in text they mean nothing to HTML, and
 * as `&quot;` and `&#39;` they made a prompt's or an answer's quotes five or six bytes each. */
export function text(value: string | number | false | null | undefined): string {
  if (typeof value === 'number') return String(value);
  return value ? value.replace(/[&<>]/g, (c) => TEXT_ESCAPES[c]!) : '';
}

/** `cond && html` in a template: the HTML when `cond` holds, else `cond` itself as text (a 0 shows). */
export function and(cond: unknown, html: () => string): string {
  return cond ? html() : typeof cond === 'number' ? String(cond) : '';
}

/** ` name="value"`, escaped as Astro's addAttribute does; nothing for undefined or null, the bare name for ''
 * (and for a true `open`). Unlike Astro, which leaves an http URL holding `&` as it is, quotes and all, every
 * value is escaped. */
export function attr(name: string, value: string | boolean | undefined | null): string {
  if (value === undefined || value === null) return '';
  if (name === 'open') return value ? ' open' : '';
  if (value === '') return ` ${name}`;
  return ` ${name}="${String(value).replace(/&/g, '&#38;').replace(/"/g, '&#34;')}"`;
}

/** A file path that a narrow line breaks after a `/`, not inside a name. */
export function pathText(path: string): string {
  const parts = path.split('/');
  return parts.map((part, i) => (i < parts.length - 1 ? `${text(part)}/<wbr>` : text(part))).join('');
}

/** Text in a box; past a screenful, the first lines and "show all" for the rest (the whole text stays in the
 * page, each part once: the rest continues the first lines when opened). */
export function longText(value: string, className?: string): string {
  const split = splitLongText(value);
  if (!split)
    return `<div${attr('class', `code-block ${className ?? ''}`.trimEnd())} data-copy><pre>${preText(value || '(empty)')}</pre></div>`;
  const more = (split.lines - split.headLines).toLocaleString('en-US');
  return (
    `<div${attr('class', `long ${className ?? ''}`.trimEnd())} data-copy><pre class="preview">${preText(split.head)}</pre>` +
    `<details class="show-all"><summary>${text(more)} more lines (${text(split.lines.toLocaleString('en-US'))} in\n` +
    `          all)\n</summary><pre class="rest">${preText(split.rest)}</pre></details></div>`
  );
}

/** Code, highlighted when its language is known and it is not too long. */
export async function code(
  source: string,
  lang: string | undefined,
  o: { firstLine?: number; caption?: string } = {},
): Promise<string> {
  const { firstLine, caption } = o;
  const html = await highlight(source, lang);
  const head = and(
    caption || lang || (firstLine && firstLine > 1),
    () =>
      `<div class="code-caption"> ${text(caption)} ${and(lang, () => `<span class="code-lang">${text(lang)}</span>`)} ` +
      `${and(firstLine && firstLine > 1, () => `<span class="code-from">from line ${firstLine}</span>`)} </div>`,
  );
  const body = html !== undefined ? `<pre class="hl"><code>${html}</code></pre>` : `<pre>${text(source)}</pre>`;
  return `<div class="code-block" data-copy>${head}${body}</div>`;
}

const ACTIONS = { update: 'Edit', add: 'New file', delete: 'Delete', move: 'Move' } as const;

/** Each file's diff, with its action, path and counts. */
export function diff(files: FileDiff[]): string {
  const count = (f: FileDiff, op: '+' | '-') => f.lines.filter((l) => l.op === op).length;
  return files
    .map(
      (file) =>
        `<div class="diff code-block" data-copy><div class="diff-head"><span class="diff-action">${text(ACTIONS[file.action])}</span>` +
        `<span class="path">${file.path ? pathText(file.path) : '(file)'}${and(file.to, () => text(` → ${file.to}`))}</span>` +
        `<span class="diff-count"><span class="add">+${count(file, '+')}</span><span class="del">−${count(file, '-')}</span></span></div>` +
        `${and(file.lines.length > 0, () => `<pre class="diff-lines"><code>${diffHtml(file.lines)}</code></pre>`)}</div>`,
    )
    .join('');
}

const TODO_MARK = { completed: '☑', in_progress: '◐', pending: '☐', cancelled: '☒' } as const;

async function toolInput(input: ToolInputView): Promise<string> {
  switch (input.kind) {
    case 'diff':
      return diff(input.files);
    case 'code':
      return code(input.code, input.lang, { caption: `${input.caption} ${input.path ?? ''}`.trim() });
    case 'shell': {
      const caption = and(
        input.description || input.cwd,
        () =>
          `<div class="code-caption"> ${text(input.description)} ` +
          `${and(input.cwd, () => `<span class="path">  \nin ${pathText(input.cwd!)} </span>`)} </div>`,
      );
      const command = `<code><span class="prompt-sign" aria-hidden="true">$ </span>${escapeHtml(input.command)}</code>`;
      return `<div class="shell code-block" data-copy> ${caption} <pre class="command">${command}</pre> </div>`;
    }
    case 'todo': {
      const items = input.items
        .map(
          (t) =>
            `<li${attr('class', `todo-${t.status}`)}> <span class="mark" aria-hidden="true"> ${text(TODO_MARK[t.status])} </span>  ` +
            `<span class="todo-text">${text(t.text)}</span> <span class="visually-hidden"> (${text(t.status.replace('_', ' '))})</span> </li>`,
        )
        .join('');
      return `<div class="todo"> ${and(input.explanation, () => `<p>${text(input.explanation)}</p>`)} <ul class="checklist"> ${items} </ul> </div>`;
    }
    case 'web': {
      const url = and(
        input.url,
        () =>
          `<a${attr('href', /^https?:\/\//i.test(input.url!) ? input.url : undefined)} rel="nofollow noopener noreferrer" class="url"> ${text(input.url)} </a>`,
      );
      const query = and(input.query, () => `<span class="query">\nSearch: <q>${text(input.query)}</q> </span>`);
      const prompt = and(input.prompt, () => `<span class="web-prompt">${text(input.prompt)}</span>`);
      return `<p class="web"> ${url} ${query} ${prompt} </p>`;
    }
    case 'task':
      return and(
        input.prompt,
        () =>
          `<details class="task-prompt"> <summary>Instructions${and(input.agentType, () => text(` to ${input.agentType}`))}</summary> ` +
          `${longText(input.prompt)} </details>`,
      );
    case 'read':
      return (
        `<p class="read-path"> <span class="path"> ${pathText(input.path)} </span> ` +
        `${and(input.range, () => `<span class="note"> ${text(input.range)}</span>`)} </p>`
      );
    default:
      return input.text.trim() ? `<div class="io-label">Input</div>${longText(input.text)}` : '';
  }
}

async function toolOutput(result: ResultView): Promise<string> {
  const out = result.view;
  const label = result.status === 'rejected' ? 'Refused by the user' : result.status === 'error' ? 'Error' : 'Output';
  const shell = out.kind === 'shell' ? out : undefined;
  const exit = and(
    shell?.exitCode !== undefined,
    () =>
      `<span${attr('class', `exit ${shell!.exitCode === 0 ? 'exit-ok' : 'exit-fail'}`)}>exit ${shell!.exitCode}</span>`,
  );
  const interrupted = and(shell?.interrupted, () => '<span class="exit exit-fail">interrupted</span>');
  let body: string;
  if (out.kind === 'code') body = await code(out.code, out.lang, { firstLine: out.firstLine });
  else if (out.kind === 'shell')
    body =
      longText(out.stdout, 'shell-out') +
      and(out.stderr, () => `<div class="io-label">stderr</div>${longText(out.stderr!, 'shell-err')}`);
  else body = longText(out.text);
  const images = result.images
    .map(
      (img) =>
        `<p class="note image-note">\n[image${and(img.media?.media_type, () => text(`: ${img.media!.media_type}`))} ` +
        `${img.media?.size_bytes ? text(`, ${byteSize(img.media.size_bytes)}`) : ''} ` +
        `${img.media?.omitted ? text(`: ${img.media.omitted}`) : ''}]\n</p>`,
    )
    .join('');
  const truncated = and(
    result.truncated > 0,
    () =>
      `<p class="note">… ${text(result.truncated.toLocaleString('en-US'))} more characters not shown (kept in the data).</p>`,
  );
  return (
    `<div class="io io-output"><div class="io-label">${text(label)}${and(exit, () => ` ${exit}`)}` +
    `${and(interrupted, () => ` ${interrupted}`)}</div>${body}${images}${truncated}</div>`
  );
}

/** A tool call's input, and its output when it has one. */
export async function toolBody(input: ToolInputView, inputTruncated?: number, result?: ResultView): Promise<string> {
  const cut = inputTruncated
    ? `<p class="note">… ${text(inputTruncated.toLocaleString('en-US'))} more characters not shown (kept in the data).</p>`
    : '';
  const output = result?.view ? await toolOutput(result) : '';
  return `<div class="io io-input">${await toolInput(input)}${cut}</div>${output}`;
}
