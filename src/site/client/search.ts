// The site search box (src/site/components/SearchBox.astro): Pagefind's JS API over the index that
// src/site/search/site-index.ts writes, in shards (pagefind/shards.json): the first is loaded, the others merged.
// Pagefind finds bundles of pages; which pages and messages of a bundle matched is found here, from its text file.
// Loaded as an external module (the CSP allows no inline script); Pagefind itself is fetched from the site's
// own /pagefind/ on first use and needs WebAssembly ('wasm-unsafe-eval').
import { hasCjk, indexQuery, queryWords } from '../../search/cjk.ts';
import {
  type BundlePage,
  bundlePage,
  bundlePages,
  type RecordSection,
  TEXT_MAP_FILE,
} from '../../transcript/page-record.ts';
import { SEARCH_INDEX_CHANGED } from './live-events.ts';
import { addPanel, fillFilters, type Hit, sessionItem } from './search-panel.ts';

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
  mergeIndex(url: string, options?: Record<string, unknown>): Promise<void>;
  search(term: string, options?: { filters?: Record<string, string> }): Promise<{ results: PagefindResult[] } | null>;
  preload(term: string): Promise<void>;
  filters(): Promise<Record<string, Record<string, number>>>;
  destroy(): Promise<void>;
}

/** A setup of Pagefind over the site's index, once begun: its promise, and Pagefind's module once imported. */
interface PagefindSetup {
  api: Promise<PagefindApi | undefined>;
  pagefind?: PagefindApi;
}

/** Sessions shown at most, bundles looked at to find them (hits are checked against the text), bundles whose
 * texts are fetched first and then at once while the list has room, and hits (messages) shown under one
 * session. A bundle holds pages of dozens of sessions: a common word fills the list from the first one, whose
 * text is all the first query of a visit waits for (each is ~60 kB gzipped, ~270 k characters to inflate and
 * parse, ~25 ms in Chromium: the first results of a query show 30–35 ms sooner than with two); then as many
 * as the sessions found per bundle so far say the list still needs, at most six, its first results shown
 * meanwhile. */
const SESSIONS_SHOWN = 10;
const EXAMINED = 24;
const FIRST_BATCH = 1;
const BATCH = 6;
const PER_SESSION = 3;

for (const form of document.querySelectorAll<HTMLFormElement>('form.site-search')) setUp(form);

function setUp(form: HTMLFormElement): void {
  const base = form.dataset.base ?? '/';
  const timeZone = form.dataset.tz || undefined;
  const input = form.querySelector<HTMLInputElement>('input[name=q]')!;
  const { panel, status, list, selects } = addPanel(form);
  let setup: PagefindSetup | undefined;
  /** Each record's text file by the record's id, from every shard's TEXT_MAP_FILE (empty when unreadable). */
  let textMap: Promise<Map<string, string>> = Promise.resolve(new Map());
  let generation = 0;
  let timer: number | undefined;
  let filtersFilled: Promise<void> | undefined;
  /** How many setups were dropped because the index was written again (see SEARCH_INDEX_CHANGED). The next one
   * imports Pagefind's module under a URL of its own: `import()` of the same URL gives the same module, whose state
   * is its own, so the dropped setup's destroy, whenever that setup ends, would undo the new one's `options` and
   * `init`, and waiting for it would wait as long as a setup that never ends. */
  let dropped = 0;
  const loadFilters = (pagefind: PagefindApi): Promise<void> =>
    (filtersFilled ??= pagefind
      .filters()
      .then((filters) => fillFilters(filters, selects))
      .catch(() => {
        // Unreadable now (a dropped connection): asked again after the next query.
        filtersFilled = undefined;
      }));

  const load = (): Promise<PagefindApi | undefined> => {
    if (setup) return setup.api;
    const attempt: PagefindSetup = { api: Promise.resolve(undefined) };
    const instance = dropped;
    let begun = false;
    attempt.api = (async () => {
      const root = `${base}pagefind/`;
      const response = await fetch(`${root}shards.json`);
      if (!response.ok) throw new Error(`${root}shards.json: ${response.status}`);
      const shards = (await response.json()) as string[];
      if (shards.length === 0) return undefined;
      const texts: Promise<Map<string, string>> = Promise.all(
        shards.map((shard) =>
          fetch(`${root}${shard}/${TEXT_MAP_FILE}`)
            .then((r) => (r.ok ? (r.json() as Promise<Record<string, string>>) : {}))
            .catch(() => ({})),
        ),
      ).then((maps) => new Map(maps.flatMap((map) => Object.entries(map))));
      if (setup === attempt) textMap = texts;
      begun = true;
      const module = `${root}${shards[0]}/pagefind.js${instance ? `?setup=${instance}` : ''}`;
      const pagefind = (await import(/* @vite-ignore */ module)) as PagefindApi;
      attempt.pagefind = pagefind;
      await pagefind.options({ excerptLength: 0 });
      await pagefind.init();
      await Promise.all(shards.slice(1).map((shard) => pagefind.mergeIndex(`${root}${shard}/`)));
      // The filters' values (three files a shard) come now when the index was loaded while the page sat idle.
      // When someone is already in the box, they come after the query's results: fetched at once, they kept the
      // index chunks of a query typed as the page opened waiting behind them in Pagefind's queue.
      if (setup === attempt && document.activeElement !== input && !input.value) void loadFilters(pagefind);
      return pagefind;
    })().catch((error: unknown) => {
      // The list unreadable (the site being rebuilt, a dropped connection): the next query asks again. Once
      // Pagefind's module is set up, setting it up again without destroying it would merge its shards twice.
      if (setup === attempt && !begun) setup = undefined;
      throw error;
    });
    setup = attempt;
    return attempt.api;
  };

  const run = async () => {
    const mine = ++generation;
    const query = input.value.trim();
    if (!query) {
      list.replaceChildren();
      status.textContent = '';
      delete list.dataset.query;
      delete list.dataset.first;
      return;
    }
    status.textContent = 'Searching…';
    let pagefind: PagefindApi | undefined;
    try {
      pagefind = await load();
    } catch {
      status.textContent = 'The search index could not be loaded (was the site built with agent-logbook build?).';
      return;
    }
    if (!pagefind) {
      status.textContent = 'Nothing to search yet: the site has no sessions.';
      return;
    }
    const { words, runs } = queryWords(query);
    const filters: Record<string, string> = {};
    for (const select of selects) if (select.value) filters[select.name] = select.value;
    try {
      await showFound(mine, query, pagefind, words, runs, filters);
    } catch {
      // Pagefind's files changed under it (the site rebuilt while this page was open): a newer query, or the
      // setup again after SEARCH_INDEX_CHANGED, answers instead.
      if (mine === generation) status.textContent = 'The search index changed while searching: type again.';
    }
  };

  const showFound = async (
    mine: number,
    query: string,
    pagefind: PagefindApi,
    words: string[],
    runs: string[],
    filters: Record<string, string>,
  ) => {
    const found = await pagefind.search(indexQuery(words), { filters });
    if (mine !== generation || !found) return;
    // A bundle holds the pages of many sessions: the pages that hold the query (and pass the filters) are
    // gathered under their session, batch by batch of the bundles Pagefind ranks first, so one long session
    // cannot fill the list.
    const sessions = new Map<string, Hit[]>();
    const typed = words.filter((word) => !hasCjk(word));
    let shown = 0;
    const show = (complete: boolean) => {
      if (!complete && sessions.size === shown) return;
      shown = sessions.size;
      list.replaceChildren(
        ...[...sessions].map(([key, hits]) => sessionItem(key, bestHits(hits), base, timeZone, [...runs, ...typed])),
      );
      // What the list shows (for scripts and tests that wait for a query's results): its first results, then all.
      list.dataset.first = query;
      if (!complete) {
        delete list.dataset.query;
        return;
      }
      status.textContent = sessions.size === 0 ? 'No match.' : '';
      list.dataset.query = query;
      list.dataset.filters = JSON.stringify(filters);
    };
    const texts = await textMap;
    if (mine !== generation) return;
    for (
      let i = 0, size = FIRST_BATCH;
      i < found.results.length && i < EXAMINED && sessions.size < SESSIONS_SHOWN;
      i += size, size = nextBatch(i, sessions.size)
    ) {
      // The sessions found so far are shown while more bundles are fetched: a query of several words may need
      // three rounds of them, and the first results are what someone reads first.
      if (i > 0) show(false);
      // Each bundle's text is fetched at once; a record missing from the map (a shard of an older build) names
      // its text file in its fragment.
      const batch = await Promise.all(
        found.results.slice(i, Math.min(i + size, EXAMINED)).map((r) => {
          const file = texts.get(r.id);
          return file ? bundleOf(base, file) : r.data().then((data) => bundleOf(base, data.meta.text ?? ''));
        }),
      );
      if (mine !== generation) return;
      // The batch's pages that hold the most of the query first, the newest first among equals.
      const matching = batch
        .flatMap((pages) => matchingPages(pages, runs, typed, filters))
        .sort((a, b) => b.best - a.best || (b.page.meta.date ?? '').localeCompare(a.page.meta.date ?? ''));
      for (const { page, scored } of matching) {
        const key = sessionKey(page.url);
        let hits = sessions.get(key);
        if (!hits) {
          if (sessions.size >= SESSIONS_SHOWN) continue;
          sessions.set(key, (hits = []));
        }
        for (const { section, score } of scored) hits.push({ page, section, score });
      }
    }
    show(true);
    void loadFilters(pagefind);
  };

  // `serve --watch` writes the search index after the pages, which reload before it: an index this page loaded
  // meanwhile would ask for files the new one replaced. Its reload script says when the new one is there.
  window.addEventListener(SEARCH_INDEX_CHANGED, () => {
    const previous = setup;
    setup = undefined;
    dropped += 1;
    generation += 1;
    filtersFilled = undefined;
    textMap = Promise.resolve(new Map());
    textFiles.clear();
    // Destroyed once it has ended, set up or failed (a failed setup may have merged some shards already), to free
    // what it loaded.
    void previous?.api
      .catch(ignore)
      .then(() => previous.pagefind?.destroy())
      .catch(ignore);
    // A query in the box is asked again of the new index.
    if (input.value.trim()) void run();
  });

  input.addEventListener('focus', () => {
    panel.hidden = false;
    void load().catch(ignore);
  });
  // Loaded as the page opens, so that a query typed at once finds the index (about 0.2 MB, kept by the browser's
  // cache) on its way instead of waiting for every shard; not when the connection asks to save data.
  if (!(navigator as Navigator & { connection?: { saveData?: boolean } }).connection?.saveData) {
    void load().catch(ignore);
  }
  input.addEventListener('input', () => {
    panel.hidden = false;
    window.clearTimeout(timer);
    // The index chunks of what is typed load while the box waits for the typing to pause.
    const query = input.value.trim();
    if (query)
      void load()
        .then((pagefind) => pagefind?.preload(indexQuery(queryWords(query).words)))
        .catch(ignore);
    timer = window.setTimeout(() => void run(), 80);
  });
  for (const select of selects) {
    select.addEventListener('change', () => void run());
    // Opened before any query: its values are fetched now.
    for (const type of ['pointerdown', 'focus'])
      select.addEventListener(
        type,
        () =>
          void load()
            .then((pagefind) => pagefind && loadFilters(pagefind))
            .catch(ignore),
      );
  }
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

/** Bundles to fetch next, `examined` looked at and `found` sessions found in them: as many as the list's room
 * needs at the rate found so far (one more for a common word whose first bundle filled half of it), at most BATCH. */
function nextBatch(examined: number, found: number): number {
  if (found === 0) return BATCH;
  return Math.min(BATCH, Math.max(1, Math.ceil((examined * (SESSIONS_SHOWN - found)) / found)));
}

/** For a load or preload whose failure the next query reports (it loads again). */
function ignore(): undefined {
  return undefined;
}

/** The text files fetched so far (by file), kept while the page is open. */
const textFiles = new Map<string, Promise<BundlePage[]>>();

/** A found bundle's pages, from the gzip text file beside the shard that holds them (none when it cannot be
 * read). */
async function bundleOf(base: string, file: string): Promise<BundlePage[]> {
  let pages = textFiles.get(file);
  if (!pages) {
    pages = (async () => {
      try {
        const response = await fetch(`${base}pagefind/${file}`);
        if (!response.ok || !response.body) return [];
        const plain = response.body.pipeThrough(new DecompressionStream('gzip'));
        return bundlePages(await new Response(plain).text())
          .map(bundlePage)
          .filter((page): page is BundlePage => page !== undefined);
      } catch {
        return [];
      }
    })();
    textFiles.set(file, pages);
  }
  return pages;
}

/**
 * The pages of a found bundle that hold the query, with their best section's score: each filter's value among the page's own, every
 * typed word somewhere on the page (as typed, or a form of it: Pagefind matches stems), and a message that
 * holds every CJK run of the query as typed (Pagefind matched their bigrams, which may lie apart).
 */
function matchingPages(
  pages: BundlePage[],
  runs: string[],
  typed: string[],
  filters: Record<string, string>,
): { page: BundlePage; scored: { section: RecordSection; score: number }[]; best: number }[] {
  const forms = typed.map((w) => wordForms(w.toLowerCase()));
  const matching: { page: BundlePage; scored: { section: RecordSection; score: number }[]; best: number }[] = [];
  for (const page of pages) {
    if (!Object.entries(filters).every(([name, value]) => page.filters[name]?.includes(value))) continue;
    const lowered = page.sections.map(lowerText);
    if (!forms.every((f) => lowered.some((text) => f.some((form) => text.includes(form))))) continue;
    const scored = scoredSections(page.sections, runs, typed);
    if (scored.length === 0) continue;
    matching.push({ page, scored, best: Math.max(...scored.map((s) => s.score)) });
  }
  return matching;
}

/** Sections' texts in lower case, made once per section while its text file is kept. */
const lowered = new WeakMap<RecordSection, string>();

function lowerText(section: RecordSection): string {
  let text = lowered.get(section);
  if (text === undefined) lowered.set(section, (text = section.text.toLowerCase()));
  return text;
}

/** A word and its stem's likely spellings: Pagefind finds "tests" for "testing"; the stem must keep three
 * letters. */
function wordForms(word: string): string[] {
  const stem = word.replace(/(ing|ed|es|er|ly|ion|ions|s)$/, '');
  return stem.length >= 3 && stem !== word ? [word, stem] : [word];
}

/** A found page's session: its URL without the page part (`page/<N>/`). */
function sessionKey(url: string): string {
  return url.replace(/^\/+/, '').replace(/page\/\d+\/?$/, '');
}

/**
 * The messages of a found page that may be shown, with how well each matches: a section must hold each CJK
 * run of the query as typed (Pagefind matched its bigrams, which may lie apart), and the more typed words it
 * holds, the better.
 */
function scoredSections(
  sections: RecordSection[],
  runs: string[],
  typed: string[],
): { section: RecordSection; score: number }[] {
  const lowered = typed.map((w) => w.toLowerCase());
  const scored: { section: RecordSection; score: number }[] = [];
  for (const section of sections) {
    if (!runs.every((run) => section.text.includes(run))) continue;
    const text = lowerText(section);
    scored.push({ section, score: runs.length + lowered.filter((w) => text.includes(w)).length });
  }
  return scored;
}

/**
 * A session's hits to show, in the order of its pages and messages: those that hold the most of the query.
 * A page may hold the query only in a form of a word (a stem) no section holds literally: the session's first
 * message then stands for it.
 */
function bestHits(hits: Hit[]): Hit[] {
  const best = Math.max(...hits.map((h) => h.score));
  if (best === 0) return [hits.find((h) => h.section.kind !== 'session') ?? hits[0]!];
  return hits.filter((h) => h.score === best).slice(0, PER_SESSION);
}
