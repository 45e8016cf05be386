/**
 * A conversation's thread as HTML: every item of a session page (prompt, answer, tool call, notice…) and the
 * threads of the subagents its calls started. Made as a string in one pass (see session/html.ts for why), and
 * put into the page by SessionPage.astro.
 */
import { messageAnchor, promptAnchor } from '../../model/routes.ts';
import type { MessageSegment, TokenUsage } from '../../model/message.ts';
import { INLINE_IMAGE_MAX_BYTES, type ViewItem } from '../../transcript/session-view.ts';
import { compactNumber, datetimeToSecond, formatInZone, totalTokens } from '../format.ts';
import { byteSize, cjkLang } from '../text-lang.ts';
import { and, attr, longText, text, toolBody } from './session/html.ts';

type Item<K extends ViewItem['kind']> = Extract<ViewItem, { kind: K }>;

const inlineable = (size?: number) => size === undefined || size <= INLINE_IMAGE_MAX_BYTES;
const imageLabel = (media?: MessageSegment['media']) =>
  `[image${media?.media_type ? `: ${media.media_type}` : ''}${media?.size_bytes ? `, ${byteSize(media.size_bytes)}` : ''}${media?.omitted ? `: ${media.omitted}` : ''}]`;
const answerText = (item: Item<'answer'>) =>
  item.segments
    .filter((s) => s.format !== 'thinking')
    .map((s) => s.text ?? '')
    .join('\n');
const openTool = (item: Item<'tool'>) =>
  item.input.kind === 'todo' ||
  (item.input.kind === 'diff' && item.input.files.reduce((n, f) => n + f.lines.length, 0) <= 40);
// A file path headline is cut from the left when it does not fit, so the file name stays in view.
const pathHeadline = (item: Item<'tool'>) => {
  const input = item.input;
  const paths =
    input.kind === 'read' || input.kind === 'code'
      ? [input.path]
      : input.kind === 'diff'
        ? input.files.map((f) => f.path)
        : [];
  return paths.includes(item.headline) || (paths.length > 0 && /^\S*\/\S*$/.test(item.headline));
};

/**
 * A page's thread as UTF-8, encoded an item at a time. As one string, a long page's thread is a chain of
 * pieces that encoding first copies whole, to two bytes a character once it holds any CJK: a fresh allocation
 * of several hundred kB for every page, which the kernel hands out page by page (see the site build in
 * docs/decisions.md). Share builds show images only as placeholders.
 */
export async function threadBytes(items: ViewItem[], timeZone: string, share: boolean): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const item of items) parts.push(Buffer.from(await itemHtml(item, timeZone, share)));
  return Buffer.concat(parts);
}

/** The items of a thread as HTML (a subagent's, inside its call's item). */
export async function threadHtml(items: ViewItem[], timeZone: string, share: boolean): Promise<string> {
  let html = '';
  for (const item of items) html += await itemHtml(item, timeZone, share);
  return html;
}

async function itemHtml(item: ViewItem, timeZone: string, share: boolean): Promise<string> {
  let html =
    `<div${attr('class', `item item-${item.kind}`)}${attr('id', item.index !== undefined ? messageAnchor(item.index) : undefined)}` +
    `${attr('data-prompt', item.kind === 'prompt' ? '' : undefined)}>`;
  // The other messages merged into this item keep their anchors (search results and shared links name them), as
  // bare `<a id>` targets: a span with a class was a sixtieth of a page.
  if (item.more) for (const i of item.more) html += `<a${attr('id', messageAnchor(i))}></a>`;
  if (item.kind !== 'hidden' && item.timestamp) {
    // The date and zone come as a tooltip from public/session.js, made from `datetime`: written out for each
    // message they were a fiftieth of a long page. The clock is cut out of the full zoned time, which is worked out
    // once a minute (formatInZone's other patterns go through Intl on every call).
    html +=
      `<time${attr('datetime', datetimeToSecond(item.timestamp))}>` +
      `${text(formatInZone(item.timestamp, 'yyyy-MM-dd HH:mm:ss xxx', timeZone).slice(11, 19))}${item.estimated ? '*' : ''}</time>`;
  }
  switch (item.kind) {
    case 'prompt':
      html += promptHtml(item, share);
      break;
    case 'answer':
      html += answerHtml(item);
      break;
    case 'tool':
      html += await toolHtml(item, timeZone, share);
      break;
    case 'result':
      html +=
        `<details${attr('class', `tool status-${item.result.status}`)}><summary><span class="tool-name">Result</span>` +
        `<span class="headline">${text(item.result.name)}</span>` +
        `<span${attr('class', `status status-${item.result.status}`)}>${text(item.result.status)}</span></summary>` +
        `${longText(item.result.output)}</details>`;
      break;
    case 'command':
      html +=
        `<div class="command-block"><div class="notice tone-command"><span class="notice-label">Command</span>` +
        `<code>${text(item.command)}</code></div>` +
        and(
          item.expanded.length > 0,
          () =>
            `<details class="expanded"><summary>Text sent to the assistant</summary>` +
            `<div class="plain"${attr('lang', cjkLang(item.expanded.join('\n')))}>${text(item.expanded.join('\n\n'))}</div></details>`,
        ) +
        and(
          item.output.length > 0,
          () =>
            `<details class="expanded"><summary>Command output</summary>${longText(item.output.join('\n'))}</details>`,
        ) +
        `</div>`;
      break;
    case 'context':
      html +=
        `<details class="notice tone-injected context"><summary>Context the assistant added: ` +
        `${text([...new Set(item.parts.map((p) => p.label))].join(', '))}</summary>` +
        item.parts
          .map((p) => `<div class="context-part"><div class="io-label">${text(p.label)}</div>${longText(p.text)}</div>`)
          .join('') +
        `</details>`;
      break;
    case 'divider':
      html += `<div class="divider" role="separator"><span>${text(item.label)}</span>${and(item.detail, () => `<small>${text(item.detail)}</small>`)}</div>`;
      break;
    case 'notice':
      html += item.collapsed
        ? `<details${attr('class', `notice tone-${item.tone}`)}><summary>${text(item.label)}</summary>` +
          `${item.html ? `<div class="md">${item.html}</div>` : longText(item.text)}</details>`
        : `<div${attr('class', `notice tone-${item.tone}`)}><span class="notice-label">${text(item.label)}</span>` +
          `<code>${text(item.text)}</code></div>`;
      break;
    case 'hidden':
      html +=
        `<p class="note hidden-events">${item.count} log record${item.count === 1 ? '' : 's'} not shown as messages: ` +
        `${text(item.types.join(', '))}</p>`;
      break;
  }
  if (item.kind !== 'hidden' && item.background) {
    const { count, types } = item.background;
    html +=
      `<details class="background"><summary>\n+${count} log record${count === 1 ? '' : 's'} not shown as messages\n` +
      `</summary><p>${text(types.join(', '))}</p></details>`;
  }
  return `${html}</div>`;
}

function promptHtml(item: Item<'prompt'>, share: boolean): string {
  const ordinal = item.ordinal;
  const number = and(
    ordinal !== undefined,
    () => `<a class="prompt-no"${attr('href', `#${promptAnchor(ordinal!)}`)}>\n#${ordinal}</a>`,
  );
  const images = item.images
    .map((img) =>
      !share && img.media?.data_uri?.startsWith('data:image/') && inlineable(img.media.size_bytes)
        ? `<figure class="image"><img${attr('src', img.media.data_uri)} alt="Image attached to the prompt" loading="lazy">` +
          `<figcaption class="note">${text(imageLabel(img.media))}</figcaption></figure>`
        : `<p class="note image-note">${text(imageLabel(img.media))}</p>`,
    )
    .join('');
  return (
    `<section class="bubble prompt"${attr('id', ordinal !== undefined ? promptAnchor(ordinal) : undefined)}${attr('lang', cjkLang(item.text))}>` +
    `<div class="who">${number} \nYou${item.queued ? ' (typed while the agent worked)' : ''}</div>` +
    `<div class="plain">${text(item.text)}</div>${images}</section>`
  );
}

/** An answer's tokens as `input output cacheRead cacheWrite`: public/session.js makes its tooltip of them (as
 * tokenTitle writes it) when the pointer comes over it; written out for each answer, it was a fortieth of a page. */
function usageNumbers(usage: TokenUsage): string {
  return `${usage.input} ${usage.output} ${usage.cacheRead} ${usage.cacheCreation}`;
}

function answerHtml(item: Item<'answer'>): string {
  const usage = item.usage;
  const tokens = and(
    usage,
    () =>
      `<span class="tokens"${attr('data-usage', usageNumbers(usage!))}>${text(compactNumber(totalTokens(usage!)))} tokens\n</span>`,
  );
  const segments = item.segments
    .map((seg) =>
      seg.format === 'thinking'
        ? `<details class="thinking"><summary>Thinking</summary>` +
          `${seg.html ? `<div class="md">${seg.html}</div>` : `<div class="plain">${text(seg.text)}</div>`}</details>`
        : seg.format === 'redacted_thinking'
          ? `<p class="note">Thinking (encrypted, not shown)</p>`
          : seg.type === 'image'
            ? `<p class="note image-note">${text(imageLabel(seg.media))}</p>`
            : seg.html !== undefined
              ? `<div class="md">${seg.html}</div>`
              : `<div class="plain">${text(seg.text)}</div>`,
    )
    .join('');
  return (
    `<section class="bubble answer"${attr('lang', cjkLang(answerText(item)))}><div class="who">\n` +
    `Assistant${and(item.model, () => `<span class="model">${text(item.model)}</span>`)}${tokens}</div>${segments}</section>`
  );
}

async function toolHtml(item: Item<'tool'>, timeZone: string, share: boolean): Promise<string> {
  const status = item.result?.status ?? item.call.status;
  const headline = pathHeadline(item)
    ? `<span class="headline headline-path"${attr('title', item.headline)}><span dir="ltr">${text(item.headline)}</span></span>`
    : `<span class="headline">${text(item.headline)}</span>`;
  let html =
    `<details${attr('class', `tool tool-${item.input.kind} status-${status}`)}${attr('open', openTool(item) || undefined)}>` +
    `<summary><span class="tool-name">${text(item.call.name)}</span>${headline}` +
    `<span${attr('class', `status status-${status}`)}>${text(status)}</span></summary>` +
    (await toolBody(item.input, item.inputTruncated, item.result)) +
    and(
      !item.result && item.call.call_id,
      () => `<p class="note">No result recorded (interrupted, or still running).</p>`,
    );
  for (const agent of item.subagents)
    html +=
      `<section class="subagent"${attr('aria-label', agent.label)}><div class="subagent-head">${text(agent.label)}` +
      `${and(agent.description, () => `<span class="headline">${text(agent.description)}</span>`)}</div>` +
      `${await threadHtml(agent.items, timeZone, share)}</section>`;
  return `${html}</details>`;
}
