import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { collect, type CollectReport } from '../collect/collect.ts';
import { formatWarning } from '../util/warnings.ts';
import os from 'node:os';
import { buildSite, type SiteBuildResult } from './build-site.ts';
import { buildProgress } from './progress.ts';
import {
  addCalendarOptions,
  addSourceOptions,
  parseDay,
  parseWeek,
  UsageError,
  type CalendarFlags,
  displayPath,
  resolveSources,
  type ResolvedSources,
  type SourceFlags,
} from './options.ts';

interface BuildFlags {
  out: string;
  since?: string;
  until?: string;
  share?: boolean;
  sessions?: string;
  omit?: string;
  verbose?: boolean;
  full?: boolean;
  quiet?: boolean;
}

function splitList(value: string | undefined): string[] | undefined {
  return value
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : undefined;
}

export interface CliIo {
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stderr is a terminal (progress is drawn in place there). */
  isTTY?: boolean;
}

const defaultIo = (): CliIo => ({
  cwd: process.cwd(),
  env: process.env,
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  isTTY: process.stderr.isTTY === true,
});

const MAX_WARNINGS_SHOWN = 20;

/** Runs the CLI; returns the exit code (0 ok, 1 failure, 2 bad arguments). */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let exitCode = 0;
  const program = new Command()
    .name('agent-logbook')
    .description('Collect the local histories of AI coding assistants and build a static site from them.')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showHelpAfterError();

  addSourceOptions(
    program.command('collect').description('read every source (read-only) and update the data directory'),
  )
    .option('-v, --verbose', 'list every warning')
    .action(async (flags: SourceFlags & { verbose?: boolean }) => {
      const resolved = resolveSources(flags, io.env, io.cwd);
      await runCollect(resolved, io, flags.verbose);
    });

  addCalendarOptions(addSourceOptions(program.command('build').description('collect, then build the static site')))
    .option('--out <dir>', 'where to write the site', 'dist')
    .option('--since <day>', 'build only days from this one on (YYYY-MM-DD)', parseDay)
    .option('--until <day>', 'build only days up to this one (YYYY-MM-DD)', parseDay)
    .option('--share', 'a site to hand to others: secrets redacted, home paths, user, host and e-mails anonymized')
    .option('--sessions <ids>', 'with --share: only these sessions (comma-separated <source>/<id> or ids)')
    .option('--omit <parts>', 'with --share: leave out thinking, tool-output and/or tool-input (comma-separated)')
    .option('-v, --verbose', 'list every warning, and time each step of the site build')
    .option('--full', 'render and write every page, not only what changed since the last build')
    .option('-q, --quiet', 'print only warnings and errors')
    .action(async (flags: SourceFlags & CalendarFlags & BuildFlags) => {
      if ((flags.sessions || flags.omit) && !flags.share) throw new UsageError('--sessions and --omit go with --share');
      const resolved = resolveSources(flags, io.env, io.cwd);
      // Sharing loads the sanitizer (jsdom): only when asked for, so a plain build starts fast.
      const sharing = flags.share ? await import('./share.ts') : undefined;
      const omit = sharing?.parseOmit(flags.omit) ?? [];
      const collected = await runCollect(resolved, io, flags.verbose, flags.quiet);
      const share = sharing
        ? await sharing.shareSettingsFor(resolved.dataDir, os.homedir(), { sessions: splitList(flags.sessions), omit })
        : undefined;
      const outDir = path.resolve(io.cwd, flags.out);
      const started = Date.now();
      const progress = buildProgress(io.stderr, { tty: io.isTTY === true, quiet: flags.quiet === true });
      const result = await buildSite({
        dataDir: resolved.dataDir,
        outDir,
        timeZone: flags.tz,
        weekStart: flags.weekStart,
        since: flags.since,
        until: flags.until,
        share,
        verbose: flags.verbose,
        full: flags.full,
        onProgress: progress.onProgress,
      }).finally(progress.done);
      if (flags.quiet) return;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      io.stderr(
        `Site: ${result.pages} pages in ${relativeIfInside(io.cwd, outDir)}/ (${seconds}s, days in ${flags.tz}).\n` +
          `${buildSummary(collected, result, Date.now() - started)}.\n` +
          `Open it with: npx agent-logbook serve --out ${relativeIfInside(io.cwd, outDir)}\n`,
      );
    });

  addCalendarOptions(
    addSourceOptions(
      program
        .command('share')
        .argument('<session>', 'the session: <source>/<session-id>, or its id')
        .description('write one session as a self-contained, redacted and anonymized HTML file'),
    ),
  )
    .option('--out <file>', 'the file to write (default: <source>-<id>.html)')
    .option('--omit <parts>', 'leave out thinking, tool-output and/or tool-input (comma-separated)')
    .option('--no-collect', 'share from the data directory as it is, without reading the sources')
    .action(
      async (key: string, flags: SourceFlags & CalendarFlags & { out?: string; omit?: string; collect: boolean }) => {
        const { parseOmit, shareSettingsFor, shareToFile } = await import('./share.ts');
        const omit = parseOmit(flags.omit);
        const resolved = resolveSources(flags, io.env, io.cwd);
        if (flags.collect) await runCollect(resolved, io, false);
        const settings = await shareSettingsFor(resolved.dataDir, os.homedir(), {
          sessions: [key],
          omit,
          single: true,
        });
        const chosen = settings.sessions![0]!;
        const outFile = path.resolve(io.cwd, flags.out ?? `${chosen.replace('/', '-')}.html`);
        const { bytes } = await shareToFile({
          dataDir: resolved.dataDir,
          key: chosen,
          outFile,
          timeZone: flags.tz,
          settings,
        });
        io.stderr(
          `Shared ${chosen}: ${relativeIfInside(io.cwd, outFile)} (${Math.ceil(bytes / 1024)} KB; secrets redacted, ` +
            `paths anonymized${omit.length ? `, without ${omit.join(', ')}` : ''}).\n`,
        );
      },
    );

  addCalendarOptions(
    addSourceOptions(
      program
        .command('report')
        .description('print a day or week report (Markdown or JSON) to stdout, after collecting'),
    ),
  )
    .option('--day <day>', 'the day (YYYY-MM-DD, in --tz)', parseDay)
    .option('--week <week>', 'the week (YYYY-Www)', parseWeek)
    .addOption(new Option('--format <format>', 'output format').choices(['md', 'json']).default('md'))
    .option('--site-url <url>', 'make links in the report point to the site published at this URL')
    .option('--no-collect', 'report from the data directory as it is, without reading the sources')
    .action(
      async (
        flags: SourceFlags &
          CalendarFlags & { day?: string; week?: string; format: 'md' | 'json'; siteUrl?: string; collect: boolean },
      ) => {
        if (!flags.day === !flags.week) throw new UsageError('report needs exactly one of --day or --week');
        const resolved = resolveSources(flags, io.env, io.cwd);
        if (flags.collect) await runCollect(resolved, io, false);
        const { printReport } = await import('./report.ts');
        io.stdout(await printReport({ ...flags, dataDir: resolved.dataDir, timeZone: flags.tz }));
      },
    );

  addCalendarOptions(
    addSourceOptions(
      program
        .command('serve')
        .description('serve a built site on 127.0.0.1; with --watch, build it and keep it current'),
    ),
  )
    .option('--out <dir>', 'the built site', 'dist')
    .option('--port <n>', 'port', (v) => Number.parseInt(v, 10), 4321)
    .option('--watch', 'collect and build first, then rebuild when a source changes; open pages reload themselves')
    .option('--since <day>', 'with --watch: build only days from this one on (YYYY-MM-DD)', parseDay)
    .option('--until <day>', 'with --watch: build only days up to this one (YYYY-MM-DD)', parseDay)
    .option('-q, --quiet', 'print only warnings and errors')
    .action(async (flags: SourceFlags & CalendarFlags & BuildFlags & { port: number; watch?: boolean }) => {
      const outDir = path.resolve(io.cwd, flags.out);
      const stop = stopOnInterrupt();
      try {
        if (!flags.watch) {
          const { startStaticServer } = await import('../serve/static-server.ts');
          const server = await startStaticServer({ root: outDir, port: flags.port });
          io.stderr(`Serving ${outDir} at ${server.url} (Ctrl-C to stop)\n`);
          await stop.signal;
          await server.close();
          return;
        }
        const resolved = resolveSources(flags, io.env, io.cwd);
        const { serveLive } = await import('../serve/live.ts');
        const { RenderWorkers } = await import('../site-build/build.ts');
        const workers = new RenderWorkers();
        await serveLive({
          outDir,
          port: flags.port,
          ignore: [resolved.dataDir, outDir],
          log: (text) => io.stderr(text),
          stopSignal: stop.signal,
          rebuild: async () => {
            const started = Date.now();
            const collected = await runCollect(resolved, io, flags.verbose, true);
            const built = await buildSite({
              dataDir: resolved.dataDir,
              outDir,
              timeZone: flags.tz,
              weekStart: flags.weekStart,
              since: flags.since,
              until: flags.until,
              workers,
            });
            return {
              locations: collected.sources.flatMap((source) => source.found),
              summary: buildSummary(collected, built, Date.now() - started),
            };
          },
        }).finally(() => workers.close());
      } finally {
        stop.dispose();
      }
    });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`agent-logbook: ${error.message}\n`);
      return 2;
    }
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help') return 0;
      return 2;
    }
    io.stderr(`agent-logbook: ${(error as Error).message}\n`);
    return 1;
  }
  return exitCode === -1 ? 0 : exitCode;
}

function relativeIfInside(base: string, p: string): string {
  const rel = path.relative(base, p);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? p : rel;
}

async function runCollect(
  resolved: ResolvedSources,
  io: CliIo,
  verbose = false,
  quiet = false,
): Promise<CollectReport> {
  const shown = (p: string) => (resolved.explicitHome ? relativeIfInside(io.cwd, p) : displayPath(p, resolved.home));
  const report = await collect({
    home: resolved.home,
    env: io.env,
    dataDir: resolved.dataDir,
    sourceOptions: resolved.sourceOptions,
  });
  for (const source of quiet ? [] : report.sources) {
    if (source.found.length === 0) {
      io.stderr(`${source.label}: not found (looked in ${source.looked.map(shown).join(', ')})\n`);
      continue;
    }
    const resumed = source.resumed ? ` (${source.resumed} only their new lines)` : '';
    const parts = [
      `${source.sessions} sessions${source.unchanged ? ` read${resumed}, ${source.unchanged} unchanged` : resumed}`,
    ];
    if (source.prompts > 0) parts.push(`${source.prompts} history prompts`);
    if (source.warnings > 0) parts.push(`${source.warnings} warnings`);
    io.stderr(`${source.label}: ${source.found.map(shown).join(', ')}: ${parts.join(', ')}\n`);
  }
  const shownWarnings = verbose ? report.warnings : report.warnings.slice(0, MAX_WARNINGS_SHOWN);
  for (const w of shownWarnings) io.stderr(`  warning: ${formatWarning({ ...w, file: shown(w.file) })}\n`);
  if (shownWarnings.length < report.warnings.length) {
    io.stderr(`  … ${report.warnings.length - shownWarnings.length} more warnings (--verbose lists all)\n`);
  }
  const archived =
    report.archivedOnly > 0 ? ` (${report.archivedOnly} kept from the archive, their source files are gone)` : '';
  if (!quiet) io.stderr(`Data: ${shown(resolved.dataDir)}: ${report.totalSessions} sessions${archived}.\n`);
  if (report.totalSessions === 0 && !quiet) {
    io.stderr(
      'No conversations found yet. To see what the site looks like: npx agent-logbook build --home fixtures/home\n',
    );
  }
  return report;
}

/** Ctrl-C (or SIGTERM) as a promise, for commands that run until stopped; a second Ctrl-C exits at once. */
function stopOnInterrupt(): { signal: Promise<void>; dispose(): void } {
  let resolve = () => {};
  const signal = new Promise<void>((r) => (resolve = r));
  let asked = false;
  const onSignal = () => {
    if (asked) process.exit(130);
    asked = true;
    resolve();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal,
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}

/** One line on what a collect and build changed. */
function buildSummary(collected: CollectReport, built: SiteBuildResult, ms: number): string {
  const read = collected.sources.reduce((n, s) => n + s.sessions, 0);
  const resumed = collected.sources.reduce((n, s) => n + (s.resumed ?? 0), 0);
  const sessions = read === 0 ? 'no session changed' : `${read} sessions read${resumed ? ` (${resumed} grown)` : ''}`;
  return (
    `${sessions}; ${built.written} files written, ${built.removed} removed, ${built.files - built.written} unchanged ` +
    `(${(ms / 1000).toFixed(1)}s)`
  );
}
