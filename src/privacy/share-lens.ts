import os from 'node:os';
import { DataDir } from '../archive/data-dir.ts';
import { SOURCE_IDS, type NormalizedMessage } from '../model/message.ts';
import { projectSlug } from '../model/project.ts';
import type { HistoryPrompt, Session, SessionPageContent, SessionSummary } from '../model/session.ts';
import { homesIn, shareOptions, type ShareSettings } from './share-mode.ts';
import {
  shareHistoryPrompt,
  shareOneMessage,
  sharePageContent,
  shareSession,
  shareSummary,
  shareText,
  type OmitPart,
  type ShareOptions,
} from './share.ts';

/**
 * The one way a share output (`build --share`, `share`, `export --share`, `mcp --share`) sees the archive: every
 * record it reads comes out of here redacted and anonymized, every field of it (summaries with their statistics
 * and the files each activity slot edited, bodies, prompt history, any other text). The day, week and project
 * indexes and the reports are made from what it returns, never from the raw records.
 */
export interface ShareLens {
  readonly settings: ShareSettings;
  /** The redactor and anonymizer, for a writer that cleans a message at a time (export). */
  readonly options: ShareOptions;
  /** The summaries of the shared sessions (all, or the ones the settings name), cleaned. */
  summaries(list: readonly SessionSummary[]): SessionSummary[];
  /** Prompt history: only prompts of shared sessions when sessions were chosen. */
  history(list: readonly HistoryPrompt[]): HistoryPrompt[];
  session(session: Session): Session;
  /** One page of a session as its page reads it (see loadSessionPage). */
  page(content: SessionPageContent): SessionPageContent;
  message(message: NormalizedMessage): NormalizedMessage;
  /** Any other text (a search snippet, a message of our own that quotes a path). */
  text(value: string): string;
  /** The archive's summaries and prompt history, read and cleaned. */
  read(dataDir: string): Promise<{ summaries: SessionSummary[]; history: HistoryPrompt[] }>;
}

// Keyed by the settings: several builds can run in one process, and Node keeps a bundled module loaded.
let last: { key: string; lens: ShareLens } | undefined;

export function shareLens(settings: ShareSettings): ShareLens {
  const key = JSON.stringify(settings);
  if (last?.key !== key) last = { key, lens: makeLens(settings) };
  return last.lens;
}

function makeLens(settings: ShareSettings): ShareLens {
  const options = shareOptions(settings);
  const wanted = settings.sessions ? new Set(settings.sessions) : undefined;
  const lens: ShareLens = {
    settings,
    options,
    summaries: (list) =>
      list
        .filter((s) => !wanted || wanted.has(s.id))
        .map((s) => {
          const shared = shareSummary(s, options).summary;
          shared.project = projectSlug(shared.cwd);
          if (settings.single) {
            delete shared.pageStarts;
            delete shared.pagePrompts;
          }
          return shared;
        }),
    history: (list) =>
      list
        .filter((p) => !wanted || (p.sessionId !== undefined && wanted.has(`${p.source}/${p.sessionId}`)))
        .map((p) => shareHistoryPrompt(p, options)),
    session: (session) => shareSession(session, options).session,
    page: (content) => sharePageContent(content, options),
    message: (message) => shareOneMessage(message, options),
    text: (value) => shareText(value, options),
    async read(dataDir) {
      const raw = await readRaw(dataDir);
      return { summaries: lens.summaries(raw.summaries), history: lens.history(raw.history) };
    },
  };
  return lens;
}

async function readRaw(dataDir: string): Promise<{ summaries: SessionSummary[]; history: HistoryPrompt[] }> {
  const data = new DataDir(dataDir);
  const summaries = await data.readSummaries();
  const history = (await Promise.all(SOURCE_IDS.map((s) => data.readPrompts(s)))).flat();
  return { summaries, history };
}

/** The home directories an archive mentions (its working directories, its history's projects): another
 * machine's or another account's, hidden as well as this one. */
function homesOf(summaries: readonly SessionSummary[], history: readonly HistoryPrompt[]): string[] {
  return homesIn([...summaries.map((s) => s.cwd), ...history.flatMap((p) => p.project ?? [])]).sort();
}

/** Share settings for this machine and an archive: the user's home, name and host, and every other home the
 * archive mentions. `sessions` are `<source>/<id>` keys. */
export async function shareSettingsFor(
  dataDir: string,
  options: { home: string; sessions?: string[]; omit?: OmitPart[]; single?: boolean },
): Promise<ShareSettings> {
  const { summaries, history } = await readRaw(dataDir);
  const settings: ShareSettings = {
    omit: options.omit ?? [],
    home: options.home,
    userName: userName(),
    hostName: os.hostname(),
    extraHomes: homesOf(summaries, history),
  };
  if (options.sessions) settings.sessions = options.sessions;
  if (options.single) settings.single = true;
  return settings;
}

/** `mcp --share`: a lens over an archive that grows while the server runs, so the homes it hides are learned
 * again from each read. */
export function createShareLens(options: { home: string; extraHomes?: string[] }): ShareLens {
  const settingsWith = (homes: string[]): ShareSettings => ({
    omit: [],
    home: options.home,
    userName: userName(),
    hostName: os.hostname(),
    extraHomes: [...new Set([...(options.extraHomes ?? []), ...homes])].sort(),
  });
  let current = shareLens(settingsWith([]));
  return {
    get settings() {
      return current.settings;
    },
    get options() {
      return current.options;
    },
    summaries: (list) => current.summaries(list),
    history: (list) => current.history(list),
    session: (session) => current.session(session),
    page: (content) => current.page(content),
    message: (message) => current.message(message),
    text: (value) => current.text(value),
    async read(dataDir) {
      const raw = await readRaw(dataDir);
      current = shareLens(settingsWith(homesOf(raw.summaries, raw.history)));
      return { summaries: current.summaries(raw.summaries), history: current.history(raw.history) };
    },
  };
}

function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '';
  }
}
