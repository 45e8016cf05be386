import type { SessionSummary, SessionThreads } from '../model/session.ts';
import { SOURCE_LABELS } from '../model/labels.ts';
import { type ThreadPlace, type ViewItem, buildSessionView } from './session-view.ts';
import type { ToolInputView } from './tool-view.ts';
import { plainTitle } from '../model/title.ts';
import { zonedSecond } from '../stats/calendar.ts';

/**
 * A session as Markdown (the `.md` beside its page): prompts, answers, tools as diffs, commands and
 * checklists, a page of the session at a time so a session of any size is written in pieces. Pure: the
 * Astro endpoint and a build outside Astro call the same function.
 */

export interface SessionMarkdownOptions {
  timeZone: string;
}

function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  return `${ticks}${lang}\n${text.replace(/\n$/, '')}\n${ticks}`;
}

/** Tool output in the Markdown: its first lines only, as far as the page shows it (the archive and `export` keep all). */
export const MARKDOWN_OUTPUT_LINES = 12;
export const MARKDOWN_OUTPUT_CHARS = 1000;

/** The first lines of a tool's output, and a line saying how much more there is. */
function outputExcerpt(text: string): string {
  const lines = text.replace(/\n$/, '').split('\n');
  let shown = lines.slice(0, MARKDOWN_OUTPUT_LINES).join('\n');
  if (shown.length > MARKDOWN_OUTPUT_CHARS)
    shown = shown.slice(0, MARKDOWN_OUTPUT_CHARS).replace(/[\uD800-\uDBFF]$/, '');
  if (shown.length === lines.join('\n').length) return shown;
  const shownLines = shown.split('\n').length;
  const more = lines.length - shownLines;
  return `${shown}\n… ${more > 0 ? `${more.toLocaleString('en-US')} more line${more === 1 ? '' : 's'}` : 'the rest of the line'} on the session page`;
}

/** Parts of the calendar's `yyyy-MM-dd HH:mm:ss xxx`: `HH:mm:ss`, `yyyy-MM-dd HH:mm`, `yyyy-MM-dd`, `HH:mm`. */
const TIME_PARTS = { second: [11, 19], minute: [0, 16], day: [0, 10], clock: [11, 16] } as const;

/** A time in the zone, through the calendar's once-a-minute cache (every message's, and every page's header). */
function when(iso: string, timeZone: string, part: keyof typeof TIME_PARTS = 'second'): string {
  if (!iso) return '';
  return zonedSecond(iso, timeZone).slice(...TIME_PARTS[part]);
}

function quote(text: string): string {
  return text
    .split('\n')
    .map((l) => (l ? `> ${l}` : '>'))
    .join('\n');
}

function inputMarkdown(input: ToolInputView): string {
  switch (input.kind) {
    case 'diff':
      return input.files
        .map(
          (f) =>
            `${f.action === 'add' ? 'New file' : f.action === 'delete' ? 'Delete' : 'Edit'} \`${f.path}\`${f.to ? ` → \`${f.to}\`` : ''}\n\n${fence(
              f.lines.map((l) => (l.op === '@' ? `@@ ${l.text} @@` : `${l.op}${l.text}`)).join('\n'),
              'diff',
            )}`,
        )
        .join('\n\n');
    case 'code':
      return `${input.caption} \`${input.path ?? ''}\`\n\n${fence(input.code, input.lang ?? '')}`;
    case 'shell':
      return fence(`$ ${input.command}`, 'sh');
    case 'todo':
      return input.items
        .map(
          (t) =>
            `- [${t.status === 'completed' ? 'x' : ' '}] ${t.text}${t.status === 'in_progress' ? ' (in progress)' : ''}`,
        )
        .join('\n');
    case 'web':
      return [input.url, input.query && `Search: ${input.query}`].filter(Boolean).join('\n');
    case 'task':
      return input.prompt ? quote(input.prompt) : '';
    case 'read':
      return `\`${input.path}\`${input.range ? ` ${input.range}` : ''}`;
    default:
      return input.text ? fence(input.text, 'json') : '';
  }
}

function itemMarkdown(item: ViewItem, o: SessionMarkdownOptions, depth: number): string {
  const time = when(item.timestamp, o.timeZone);
  const h = '#'.repeat(Math.min(6, 2 + depth));
  switch (item.kind) {
    case 'prompt':
      return `${h} ${item.ordinal !== undefined ? `Prompt ${item.ordinal}` : 'Prompt'} · ${time}\n\n${quote(item.text)}`;
    case 'answer':
      return `**Assistant** · ${time}${item.model ? ` · ${item.model}` : ''}\n\n${item.segments
        .filter((s) => s.type === 'text' && s.format !== 'thinking' && s.format !== 'redacted_thinking')
        .map((s) => s.text ?? '')
        .join('\n\n')}`;
    case 'tool': {
      const status = item.result?.status ?? item.call.status;
      const head = `**${item.call.name}**${item.headline ? ` ${item.headline.replace(/\n/g, ' ')}` : ''} · ${time}${status !== 'completed' ? ` · ${status === 'rejected' ? 'refused' : status}` : ''}`;
      const parts = [head, inputMarkdown(item.input)];
      const out = item.result?.view;
      if (out && item.input.kind !== 'todo') {
        const text = out.kind === 'code' ? out.code : out.kind === 'shell' ? out.stdout : out.text;
        const exit = out.kind === 'shell' && out.exitCode !== undefined ? ` (exit ${out.exitCode})` : '';
        if (text.trim())
          parts.push(
            `<details><summary>Output${exit}</summary>\n\n${fence(outputExcerpt(text), out.kind === 'code' ? (out.lang ?? '') : '')}\n\n</details>`,
          );
      }
      for (const agent of item.subagents)
        parts.push(
          `${'#'.repeat(Math.min(6, 3 + depth))} ${agent.label}${agent.description ? `: ${agent.description}` : ''}`,
          ...agent.items.map((i) => itemMarkdown(i, o, depth + 1)).filter(Boolean),
        );
      return parts.filter(Boolean).join('\n\n');
    }
    case 'result':
      return `**Result** · ${time}\n\n${fence(item.result.output)}`;
    case 'command':
      return `**Command** \`${item.command}\` · ${time}${item.expanded.length ? `\n\n<details><summary>Text sent</summary>\n\n${fence(item.expanded.join('\n\n'))}\n\n</details>` : ''}`;
    case 'divider':
      return `---\n\n*${item.label}${item.detail ? ` (${item.detail})` : ''}*\n\n---`;
    case 'notice':
      return `*${item.label}*${item.text.trim() ? `: ${item.collapsed ? `\n\n${fence(item.text)}` : item.text}` : ''}`;
    case 'context':
    case 'hidden':
      return '';
  }
}

/** The header of a session's Markdown. */
export function sessionMarkdownHeader(summary: SessionSummary, o: SessionMarkdownOptions): string {
  const title = plainTitle(summary.title) || summary.sessionId;
  const start = when(summary.startedAt, o.timeZone, 'minute');
  const end = when(
    summary.endedAt,
    o.timeZone,
    start.slice(0, 10) === when(summary.endedAt, o.timeZone, 'day') ? 'clock' : 'minute',
  );
  return [
    `# ${title}`,
    '',
    `- Source: ${SOURCE_LABELS[summary.source]}${summary.cliVersion ? ` ${summary.cliVersion}` : ''}`,
    `- Project: \`${summary.cwd}\`${summary.gitBranch ? ` (${summary.gitBranch})` : ''}`,
    `- Time: ${start} – ${end} (${o.timeZone})`,
    ...(summary.models.length ? [`- Models: ${summary.models.join(', ')}`] : []),
    `- Session: \`${summary.sessionId}\``,
  ].join('\n');
}

/** The Markdown of one page of a session (its slice of the main thread, placed in the session), an item each. */
export function sessionPageMarkdown(session: SessionThreads, place: ThreadPlace, o: SessionMarkdownOptions): string[] {
  return pageItemsMarkdown(buildSessionView(session, place), o);
}

/** The Markdown of a page's items, as its page shows them (buildSessionView): an item each, joined by a blank
 * line. Kept apart, so that a long page is never one string (see sessionMarkdown). */
export function pageItemsMarkdown(items: ViewItem[], o: SessionMarkdownOptions): string[] {
  return items.map((item) => itemMarkdown(item, o, 0)).filter(Boolean);
}

/**
 * A whole session as Markdown, from the items' Markdown of its pages in order (sessionPageMarkdown), in pieces
 * no bigger than an item's: joined into one string, a long session's text would be copied whole before it is
 * encoded (see threadBytes in site/components/thread-html.ts).
 */
export function* sessionMarkdown(
  summary: SessionSummary,
  pages: Iterable<string[]>,
  o: SessionMarkdownOptions,
): Generator<string> {
  yield `${sessionMarkdownHeader(summary, o)}\n`;
  for (const page of pages) {
    yield '\n';
    for (const [i, item] of page.entries()) yield i === 0 ? item : `\n\n${item}`;
    yield '\n';
  }
}
