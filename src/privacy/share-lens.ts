import os from 'node:os';
import type { HistoryPrompt, Session, SessionSummary } from '../model/session.ts';
import { createAnonymizer } from './anonymize.ts';
import { createRedactor } from './redact.ts';
import { homesIn, shareBody, shareHistory, shareSummaries, type ShareSettings } from './share-mode.ts';

/**
 * `mcp --share`: the rules of `build --share` (secrets redacted; home paths, user, host and e-mail
 * addresses anonymized) applied to everything a tool returns, for assistants whose context leaves the machine.
 */
export interface ShareLens {
  /** Learns the other home directories the archive mentions; call before the rest, with the raw lists. */
  prepare(summaries: SessionSummary[], history: HistoryPrompt[]): void;
  summaries(list: SessionSummary[]): SessionSummary[];
  history(list: HistoryPrompt[]): HistoryPrompt[];
  session(session: Session): Session;
  /** Any other text (a search snippet, a message of our own that quotes a path). */
  text(value: string): string;
}

export function createShareLens(options: { home: string; extraHomes?: string[] }): ShareLens {
  const redactor = createRedactor();
  const settingsWith = (homes: string[]): ShareSettings => ({
    omit: [],
    home: options.home,
    userName: user(),
    hostName: os.hostname(),
    extraHomes: [...new Set([...(options.extraHomes ?? []), ...homes])].sort(),
  });
  let settings = settingsWith([]);
  let anonymizer = createAnonymizer(settings);
  return {
    prepare(summaries, history) {
      const next = settingsWith(homesIn([...summaries.map((s) => s.cwd), ...history.flatMap((p) => p.project ?? [])]));
      if (JSON.stringify(next) !== JSON.stringify(settings)) {
        settings = next;
        anonymizer = createAnonymizer(settings);
      }
    },
    summaries: (list) => shareSummaries(settings, list),
    history: (list) => shareHistory(settings, list),
    session: (session) => shareBody(settings, session),
    text: (value) => anonymizer.anonymize(redactor.redact(value).text),
  };
}

function user(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '';
  }
}
