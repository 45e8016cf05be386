import { createAnonymizer } from './anonymize.ts';
import { createRedactor } from './redact.ts';
import type { OmitPart, ShareOptions } from './share.ts';

/** A share build: every page redacted and anonymized (set by `build --share` and `share`). What a share output
 * reads goes through the lens these settings make (share-lens.ts). */
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
