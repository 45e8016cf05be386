// The site search box (src/components/SearchBox.astro): Pagefind's JS API over the index that
// src/search/site-index.ts writes. Loaded as an external module (the CSP allows no inline script); Pagefind
// itself is fetched from the site's own /pagefind/ on first use and needs WebAssembly ('wasm-unsafe-eval').
import { BIGRAM_MARK, queryWords } from '../search/cjk.ts';

interface PagefindResultData {
  url: string;
  content: string;
  meta: Record<string, string>;
}
interface PagefindResult {
  id: string;
  data(): Promise<PagefindResultData>;
}
interface PagefindApi {
  options(options: Record<string, unknown>): Promise<void>;
  init(): Promise<void>;
  search(term: string, options?: { filters?: Record<string, string> }): Promise<{ results: PagefindResult[] } | null>;
  filters(): Promise<Record<string, Record<string, number>>>;
}

/** Hits shown at most, and results looked at to find them (CJK hits are checked against the text). */
const SHOWN = 12;
const EXAMINED = 60;
const SOURCE_LABELS: Record<string, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex CLI',
  'amazon-q': 'Amazon Q',
};

for (const form of document.querySelectorAll<HTMLFormElement>('form.site-search')) setUp(form);

function setUp(form: HTMLFormElement): void {
  const base = form.dataset.base ?? '/';
  const timeZone = form.dataset.tz || undefined;
  const input = form.querySelector<HTMLInputElement>('input[name=q]')!;
  const panel = form.querySelector<HTMLElement>('.site-search-panel')!;
  const status = form.querySelector<HTMLElement>('.site-search-status')!;
  const list = form.querySelector<HTMLOListElement>('.site-search-results')!;
  const selects = [...form.querySelectorAll<HTMLSelectElement>('select')];
  let api: Promise<PagefindApi> | undefined;
  let generation = 0;
  let timer: number | undefined;

  const load = (): Promise<PagefindApi> => {
    api ??= (async () => {
      const url = `${base}pagefind/pagefind.js`;
      const pagefind = (await import(/* @vite-ignore */ url)) as PagefindApi;
      await pagefind.options({ excerptLength: 0 });
      await pagefind.init();
      fillFilters(await pagefind.filters(), selects);
      return pagefind;
    })();
    return api;
  };

  const run = async () => {
    const mine = ++generation;
    const query = input.value.trim();
    if (!query) {
      list.replaceChildren();
      status.textContent = '';
      delete list.dataset.query;
      return;
    }
    status.textContent = 'Searching…';
    let pagefind: PagefindApi;
    try {
      pagefind = await load();
    } catch {
      status.textContent = 'The search index could not be loaded (was the site built with agent-logbook build?).';
      return;
    }
    const { words, runs } = queryWords(query);
    const filters: Record<string, string> = {};
    for (const select of selects) if (select.value) filters[select.name] = select.value;
    const found = await pagefind.search(words.join(' '), { filters });
    if (mine !== generation || !found) return;
    const hits: PagefindResultData[] = [];
    for (let i = 0; i < found.results.length && i < EXAMINED && hits.length < SHOWN; i += SHOWN) {
      const batch = await Promise.all(found.results.slice(i, i + SHOWN).map((r) => r.data()));
      if (mine !== generation) return;
      // Bigrams can match apart from each other: a CJK hit must hold each run of the query as typed.
      for (const data of batch) if (hits.length < SHOWN && holdsRuns(data, runs)) hits.push(data);
    }
    list.replaceChildren(...hits.map((hit) => resultItem(hit, base, timeZone, [...runs, ...words])));
    status.textContent = hits.length === 0 ? 'No match.' : '';
    // What the list shows (for scripts and tests that wait for a query's results).
    list.dataset.query = query;
    list.dataset.filters = JSON.stringify(filters);
  };

  input.addEventListener('focus', () => {
    panel.hidden = false;
    void load().catch(() => undefined);
  });
  input.addEventListener('input', () => {
    panel.hidden = false;
    window.clearTimeout(timer);
    timer = window.setTimeout(() => void run(), 80);
  });
  for (const select of selects) select.addEventListener('change', () => void run());
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    list.querySelector('a')?.click();
  });
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      panel.hidden = true;
      input.blur();
    }
  });
  document.addEventListener('click', (event) => {
    if (!form.contains(event.target as Node)) panel.hidden = true;
  });
  document.addEventListener('keydown', (event) => {
    if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement | null;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) return;
    event.preventDefault();
    input.focus();
    input.select();
  });
}

function fillFilters(filters: Record<string, Record<string, number>>, selects: HTMLSelectElement[]): void {
  for (const select of selects) {
    const values = Object.keys(filters[select.name] ?? {});
    values.sort((a, b) => (select.name === 'month' ? b.localeCompare(a) : a.localeCompare(b)));
    for (const value of values) {
      const option = document.createElement('option');
      option.value = value;
      option.textContent = select.name === 'source' ? (SOURCE_LABELS[value] ?? value) : value;
      select.append(option);
    }
  }
}

function textOf(data: PagefindResultData): string {
  const cut = data.content.indexOf(BIGRAM_MARK);
  return cut === -1 ? data.content : data.content.slice(0, cut);
}

function holdsRuns(data: PagefindResultData, runs: string[]): boolean {
  const text = `${textOf(data)}\n${data.meta.title ?? ''}`;
  return runs.every((run) => text.includes(run));
}

function resultItem(
  data: PagefindResultData,
  base: string,
  timeZone: string | undefined,
  terms: string[],
): HTMLLIElement {
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.href = `${base}${data.url.replace(/^\/+/, '')}`;
  const meta = document.createElement('span');
  meta.className = 'hit-meta';
  const source = SOURCE_LABELS[data.meta.source ?? ''] ?? data.meta.source ?? '';
  meta.textContent = [source, data.meta.project, formatTime(data.meta.date, timeZone), data.meta.kind]
    .filter(Boolean)
    .join(' · ');
  const title = document.createElement('span');
  title.className = 'hit-title';
  title.textContent = data.meta.title ?? '';
  const snippet = document.createElement('span');
  snippet.className = 'hit-snippet';
  snippet.append(...highlighted(textOf(data), terms));
  link.append(meta, title, snippet);
  item.append(link);
  return item;
}

function formatTime(iso: string | undefined, timeZone: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(date);
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
