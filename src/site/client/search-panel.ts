// The search box's panel (see search.ts): its filters, and the markup of the sessions found, each with its hits.
import { SOURCE_LABELS } from '../../model/labels.ts';
import type { BundlePage, RecordSection } from '../../transcript/page-record.ts';

export interface Hit {
  page: BundlePage;
  section: RecordSection;
  /** How much of the query the section holds (see scoredSections in search.ts). */
  score: number;
}

/** The box's panel of filters, status and results, hidden until a query. Made here, not in the page: every page
 * of the site carried the same 445 bytes of it, and without this script the box finds nothing anyway. */
export function addPanel(form: HTMLFormElement): {
  panel: HTMLElement;
  status: HTMLElement;
  list: HTMLOListElement;
  selects: HTMLSelectElement[];
} {
  const element = <K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    return node;
  };
  const panel = element('div', 'site-search-panel');
  panel.hidden = true;
  const filters = element('div', 'site-search-filters');
  const selects = (
    [
      ['source', 'Source', 'All sources'],
      ['project', 'Project', 'All projects'],
      ['month', 'Month', 'Any month'],
    ] as const
  ).map(([name, label, all]) => {
    const select = element('select');
    select.name = name;
    select.setAttribute('aria-label', label);
    select.append(new Option(all, ''));
    return select;
  });
  filters.append(...selects);
  const status = element('p', 'site-search-status');
  status.setAttribute('aria-live', 'polite');
  const list = element('ol', 'site-search-results');
  panel.append(filters, status, list);
  form.append(panel);
  return { panel, status, list, selects };
}

export function fillFilters(filters: Record<string, Record<string, number>>, selects: HTMLSelectElement[]): void {
  for (const select of selects) {
    // Filled again when the index was written again (serve --watch): the last index's values go, the choice stays.
    const chosen = select.value;
    for (const option of [...select.options]) if (option.value) option.remove();
    const values = Object.keys(filters[select.name] ?? {});
    values.sort((a, b) => (select.name === 'month' ? b.localeCompare(a) : a.localeCompare(b)));
    for (const value of values) {
      const option = document.createElement('option');
      option.value = value;
      option.textContent = select.name === 'source' ? (SOURCE_LABELS[value] ?? value) : value;
      select.append(option);
    }
    if (values.includes(chosen)) select.value = chosen;
  }
}

/** A session once, its hits under it: the first with the session's source, project and title. */
export function sessionItem(
  key: string,
  hits: Hit[],
  base: string,
  timeZone: string | undefined,
  terms: string[],
): HTMLLIElement {
  const item = document.createElement('li');
  item.dataset.session = key;
  for (const [i, { page, section }] of hits.entries()) {
    const link = document.createElement('a');
    const anchor = section.anchor ? `#${section.anchor}` : '';
    link.href = `${base}${page.url.replace(/^\/+/, '')}${anchor}`;
    const meta = document.createElement('span');
    meta.className = 'hit-meta';
    const source = SOURCE_LABELS[page.meta.source ?? ''] ?? page.meta.source ?? '';
    const about = i === 0 ? [source, page.meta.project] : [];
    meta.textContent = [...about, formatTime(section.timestamp, timeZone), section.kind].filter(Boolean).join(' · ');
    link.append(meta);
    if (i === 0) {
      const title = document.createElement('span');
      title.className = 'hit-title';
      title.textContent = page.meta.title ?? '';
      link.append(title);
    } else {
      link.className = 'hit-more';
    }
    const snippet = document.createElement('span');
    snippet.className = 'hit-snippet';
    snippet.append(...highlighted(section.text, terms));
    link.append(snippet);
    item.append(link);
  }
  return item;
}

/** One formatter per zone: making one costs more than formatting. */
const formatters = new Map<string | undefined, Intl.DateTimeFormat>();

function formatTime(iso: string | undefined, timeZone: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    });
    formatters.set(timeZone, formatter);
  }
  const parts = formatter.formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('year')}-${part('month')}-${part('day')} ${part('hour')}:${part('minute')}`;
}

/** The text around the first match, whitespace collapsed, each match in a <mark> (text nodes only). */
function highlighted(text: string, terms: string[]): Node[] {
  const words = [...new Set(terms.filter((t) => t.length > 0))].sort((a, b) => b.length - a.length);
  const flat = text.replace(/\s+/g, ' ').trim();
  if (words.length === 0) return [document.createTextNode(flat.slice(0, 200))];
  const pattern = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'giu');
  const first = pattern.exec(flat);
  const start = Math.max(0, (first?.index ?? 0) - 60);
  const end = Math.min(flat.length, start + 220);
  const window = flat.slice(start, end);
  const nodes: Node[] = [];
  if (start > 0) nodes.push(document.createTextNode('…'));
  let at = 0;
  pattern.lastIndex = 0;
  for (const match of window.matchAll(pattern)) {
    if (match.index > at) nodes.push(document.createTextNode(window.slice(at, match.index)));
    const mark = document.createElement('mark');
    mark.textContent = match[0];
    nodes.push(mark);
    at = match.index + match[0].length;
  }
  if (at < window.length) nodes.push(document.createTextNode(window.slice(at)));
  if (end < flat.length) nodes.push(document.createTextNode('…'));
  return nodes;
}
