import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { readBodyFileSync, type SessionBody } from '../collect/data-dir.ts';
import { renderMarkdown } from '../render/markdown.ts';
import { RenderCache } from '../render/render-cache.ts';
import { attachHtml } from '../render/render-session.ts';
import { shareBody, shareHistory, shareSettings, shareSummaries } from './share-mode.ts';
import type { HistoryPrompt, SessionSummary } from '../model/session.ts';
import { SOURCE_IDS } from '../model/message.ts';
import type { WeekStart } from '../stats/calendar.ts';

/** The site's only input: the data directory the CLI points it at. Unset (as under `astro check`),
 * the site is empty. */
export function dataDir(): string | undefined {
  return process.env.AGENT_LOGBOOK_DATA || undefined;
}

export interface SiteOptions {
  timeZone: string;
  weekStart: WeekStart;
  since?: string;
  until?: string;
}

/** Build options the CLI passes through the environment (see src/cli/build-site.ts). */
export function siteOptions(): SiteOptions {
  const env = process.env;
  return {
    timeZone: env.AGENT_LOGBOOK_TZ || Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC',
    weekStart: env.AGENT_LOGBOOK_WEEK_START === 'sunday' ? 'sunday' : 'monday',
    since: env.AGENT_LOGBOOK_SINCE || undefined,
    until: env.AGENT_LOGBOOK_UNTIL || undefined,
  };
}

function readJson<T>(relative: string, fallback: T): T {
  const root = dataDir();
  if (!root) return fallback;
  const file = path.join(root, relative);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fallback;
    throw new Error(`${file}: ${(error as Error).message}`);
  }
}

/** Whether a data file holds more than an empty list, without reading it. */
function nonEmpty(relative: string): boolean {
  const root = dataDir();
  if (!root) return false;
  try {
    return statSync(path.join(root, relative)).size > 2;
  } catch {
    return false;
  }
}

export function hasSummaries(): boolean {
  return nonEmpty(path.join('index', 'sessions.json'));
}

export function hasHistoryPrompts(): boolean {
  return SOURCE_IDS.some((source) => nonEmpty(path.join('prompts', `${source}.json`)));
}

export function loadSummaries(): SessionSummary[] {
  const summaries = readJson<SessionSummary[]>(path.join('index', 'sessions.json'), []);
  const share = shareSettings();
  // In a share build nothing unredacted reaches Astro's content store, let alone a page.
  return share ? shareSummaries(share, summaries) : summaries;
}

export function loadHistoryPrompts(): HistoryPrompt[] {
  const history = SOURCE_IDS.flatMap((source) => readJson<HistoryPrompt[]>(path.join('prompts', `${source}.json`), []));
  const share = shareSettings();
  return share ? shareHistory(share, history) : history;
}

let cache: { root: string | undefined; value: RenderCache | undefined } | undefined;
let lastBody: { key: string; body: SessionBody } | undefined;

function renderCache(): RenderCache | undefined {
  const root = dataDir();
  if (cache?.root !== root) {
    cache?.value?.close();
    let value: RenderCache | undefined;
    try {
      value = root ? new RenderCache(root, { readonly: true }) : undefined;
    } catch {
      value = undefined; // no cache yet (e.g. a build without `agent-logbook build`): render on demand
    }
    cache = { root, value };
    return value;
  }
  return cache?.value;
}

/** A session's full body, its Markdown already rendered: read when its page renders, never loaded into the
 * content store. Markdown that needs the sanitizer comes sanitized from the render cache the CLI fills
 * before the build; the rest marked renders here. */
export function loadSessionBody(relative: string): SessionBody {
  // The pages of a long session are built one after another: parse its body once for all of them.
  const key = `${dataDir()}\u0000${process.env.AGENT_LOGBOOK_SHARE ?? ''}\u0000${relative}`;
  if (lastBody?.key === key) return lastBody.body;
  const root = dataDir();
  const body = root ? readBodyFileSync(root, relative) : undefined;
  if (!body) throw new Error(`missing session body ${relative} in ${dataDir()}`);
  const rendered = renderCache();
  const store = rendered && { get: (markdown: string) => rendered.get(markdown) };
  attachHtml(body.session, (text) => renderMarkdown(text, store));
  const share = shareSettings();
  if (share) body.session = shareBody(share, body.session);
  lastBody = { key, body };
  return body;
}
