import { collect, type CollectReport } from '../collect/collect.ts';
import { checkRetention } from '../insights/retention.ts';
import { countLabel } from '../util/format.ts';
import { formatWarning } from '../util/warnings.ts';
import type { CliIo } from './io.ts';
import { displayPath, relativeIfInside, type ResolvedSources } from './options.ts';
import { collectProgress, type ProgressWriter } from './progress.ts';

const MAX_WARNINGS_SHOWN = 20;
/** Places named in a source's "not found" line without --verbose (Cline alone has dozens: every editor's). */
const MAX_PLACES_SHOWN = 4;

/** Where a source was looked for, every place with --verbose, else the first few and how many more. */
function placesLooked(places: string[], verbose: boolean): string {
  if (verbose || places.length <= MAX_PLACES_SHOWN) return places.join(', ');
  const more = places.length - (MAX_PLACES_SHOWN - 1);
  return `${places.slice(0, MAX_PLACES_SHOWN - 1).join(', ')} and ${more} more places; --verbose lists them`;
}

const DEMO_NOTE =
  'Demo home: some of its lines are broken on purpose, to show how bad input is handled; the warnings below are expected.';

/** The bundled demo (`build --home fixtures/home`), wherever the package is. */
function isDemoHome(home: string): boolean {
  return /(^|[\\/])fixtures[\\/]home[\\/]*$/.test(home);
}

export interface RunCollectOptions {
  /** Every warning, not only the first 20. */
  verbose?: boolean;
  /** Only warnings and errors. */
  quiet?: boolean;
  /** Where to show the files read as they are read (collect and build). */
  progress?: ProgressWriter;
}

/** Collects for a command, telling stderr what was found (or only warnings, when quiet). */
export async function runCollect(
  resolved: ResolvedSources,
  io: CliIo,
  { verbose = false, quiet = false, progress }: RunCollectOptions = {},
): Promise<CollectReport> {
  const shown = (p: string) => (resolved.explicitHome ? relativeIfInside(io.cwd, p) : displayPath(p, resolved.home));
  const report = await collect({
    home: resolved.home,
    env: io.env,
    dataDir: resolved.dataDir,
    sourceOptions: resolved.sourceOptions,
    onWait: (message) => io.stderr(`${message}\n`),
    onProgress: progress && collectProgress(progress),
  }).finally(() => progress?.clear());
  for (const source of quiet ? [] : report.sources) {
    if (source.found.length === 0) {
      if (source.looked.length === 0) continue; // a source only read when asked for (--messages-dir)
      io.stderr(`${source.label}: not found (looked in ${placesLooked(source.looked.map(shown), verbose)})\n`);
      continue;
    }
    const resumed = source.resumed ? ` (${source.resumed} only their new lines)` : '';
    const parts = [
      `${countLabel(source.sessions, 'session')}${source.unchanged ? ` read${resumed}, ${source.unchanged} unchanged` : resumed}`,
    ];
    if (source.prompts > 0) parts.push(countLabel(source.prompts, 'history prompt'));
    if (source.warnings > 0) parts.push(countLabel(source.warnings, 'warning'));
    io.stderr(`${source.label}: ${source.found.map(shown).join(', ')}: ${parts.join(', ')}\n`);
  }
  const shownWarnings = verbose ? report.warnings : report.warnings.slice(0, MAX_WARNINGS_SHOWN);
  if (shownWarnings.length > 0 && isDemoHome(resolved.home)) io.stderr(`${DEMO_NOTE}\n`);
  for (const w of shownWarnings) io.stderr(`  warning: ${formatWarning({ ...w, file: shown(w.file) })}\n`);
  if (shownWarnings.length < report.warnings.length) {
    io.stderr(
      `  … ${countLabel(report.warnings.length - shownWarnings.length, 'more warning')} (--verbose lists all)\n`,
    );
  }
  const archived =
    report.archivedOnly > 0 ? ` (${report.archivedOnly} kept from the archive, their source files are gone)` : '';
  if (!quiet)
    io.stderr(`Data: ${shown(resolved.dataDir)}: ${countLabel(report.totalSessions, 'session')}${archived}.\n`);
  // Retention (src/insights/): what each assistant keeps, for the home page, and gaps in collecting.
  const { home, dataDir, sourceOptions } = resolved;
  for (const line of await checkRetention({ home, dataDir, sourceOptions, env: io.env, archive: report.archive }))
    io.stderr(`Retention: ${line}\n`);
  if (report.totalSessions === 0 && !quiet) {
    io.stderr(
      'No conversations found yet. To see what the site looks like: npx agent-logbook build --home fixtures/home\n',
    );
  }
  return report;
}
