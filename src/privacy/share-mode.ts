import { projectSlug } from '../model/project.ts';
import type { HistoryPrompt, Session, SessionSummary } from '../model/session.ts';
import { createAnonymizer } from './anonymize.ts';
import { createRedactor } from './redact.ts';
import { shareSession, shareSummary, type OmitPart, type ShareOptions } from './share.ts';

/** A share build: every page redacted and anonymized (set by `build --share` and `share`). */
export interface ShareSettings {
  /** `<source>/<id>` keys to include; all sessions when absent. */
  sessions?: string[];
  omit: OmitPart[];
  home: string;
  userName: string;
  hostName: string;
  /** Other home directories the histories mention (another machine's, another account's): hidden too. */
  extraHomes: string[];
  /** One self-contained page: no pagination, no links to other pages. */
  single?: boolean;
}

export function shareSettings(): ShareSettings | undefined {
  const raw = process.env.AGENT_LOGBOOK_SHARE;
  return raw ? (JSON.parse(raw) as ShareSettings) : undefined;
}

const HOME_PREFIX = /^(\/home\/[^/]+|\/Users\/[^/]+|[A-Za-z]:[\\/]Users[\\/][^\\/]+)/;

/** Home directories named by working directories, e.g. `/home/alice` for `/home/alice/work/app`. */
export function homesIn(paths: string[]): string[] {
  return [...new Set(paths.flatMap((p) => HOME_PREFIX.exec(p)?.[1] ?? []))];
}

// Keyed by the settings: several builds can run in one process, and Node keeps a bundled module loaded.
let options: { key: string; value: ShareOptions } | undefined;

export function shareOptions(settings: ShareSettings): ShareOptions {
  const key = JSON.stringify(settings);
  if (options?.key !== key) {
    options = {
      key,
      value: {
        redactor: createRedactor(),
        anonymizer: createAnonymizer({
          home: settings.home,
          userName: settings.userName,
          hostName: settings.hostName,
          extraHomes: settings.extraHomes,
        }),
        omit: new Set(settings.omit),
      },
    };
  }
  return options.value;
}

export function shareSummaries(settings: ShareSettings, summaries: SessionSummary[]): SessionSummary[] {
  const wanted = settings.sessions ? new Set(settings.sessions) : undefined;
  const chosen = summaries.filter((s) => !wanted || wanted.has(s.id));
  const opts = shareOptions(settings);
  return chosen.map((s) => {
    const shared = shareSummary(s, opts).summary;
    shared.project = projectSlug(shared.cwd);
    if (settings.single) {
      delete shared.pageStarts;
      delete shared.pagePrompts;
    }
    return shared;
  });
}

/** Prompt history in a share build: only prompts of shared sessions when sessions were chosen. */
export function shareHistory(settings: ShareSettings, history: HistoryPrompt[]): HistoryPrompt[] {
  const wanted = settings.sessions ? new Set(settings.sessions) : undefined;
  const opts = shareOptions(settings);
  const clean = (text: string) => opts.anonymizer.anonymize(opts.redactor.redact(text).text);
  return history
    .filter((p) => !wanted || (p.sessionId !== undefined && wanted.has(`${p.source}/${p.sessionId}`)))
    .map((p) => ({ ...p, text: clean(p.text), ...(p.project ? { project: clean(p.project) } : {}) }));
}

export function shareBody(settings: ShareSettings, session: Session): Session {
  return shareSession(session, shareOptions(settings)).session;
}
