import { type CollectWarning, formatWarning, type WarningSink } from '../util/warnings.ts';

/** Why an archive line was skipped, in words. */
export function badArchiveLine(torn: boolean, error: unknown): string {
  return torn
    ? 'torn last line (a collect was cut short while writing it); ignored, the next collect repairs it'
    : `damaged line (${(error as Error).message}); ignored`;
}

let archiveWarningSink: WarningSink | undefined;
const warnedAbout = new Set<string>();

/** Where warnings about a damaged archive go while the site is built (default: stderr, once per file and line). */
export function setArchiveWarningSink(sink: WarningSink | undefined): void {
  archiveWarningSink = sink;
}

export function archiveWarning(warning: CollectWarning): void {
  if (archiveWarningSink) return archiveWarningSink(warning);
  const key = `${warning.file}:${warning.line}:${warning.message}`;
  if (warnedAbout.has(key)) return;
  warnedAbout.add(key);
  process.stderr.write(`agent-logbook: warning: ${formatWarning(warning)}\n`);
}
