import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
// Only what defining the commands needs is imported here; each command imports its own work when it runs, so
// `--help`, `search` or `collect` do not load the site build, the sanitizer or the MCP SDK.
import type { CollectReport } from '../collect/collect.ts';
import { SOURCE_IDS } from '../model/message.ts';
import { isDayWord, isMonthWord, isWeekWord } from '../stats/calendar-words.ts';
import { idToPathSegment, splitSessionKey } from '../model/ids.ts';
import { describeError } from '../util/errors.ts';
import { buildSite, PACKAGE_ROOT, siteAndBase, type SiteBuildResult } from './build-site.ts';
import { ProgressWriter, siteBuildProgress } from './progress.ts';
import {
  addCalendarOptions,
  addSourceOptions,
  parseDay,
  parseTimeZone,
  relativeIfInside,
  rememberSettings,
  resolveSettings,
  UsageError,
  type CalendarFlags,
  type ResolvedSources,
  type SourceFlags,
} from './options.ts';

interface BuildFlags {
  out?: string;
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

import type { CliIo } from './io.ts';

export type { CliIo };

const defaultIo = (): CliIo => ({
  cwd: process.cwd(),
  env: process.env,
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  isTTY: process.stderr.isTTY === true,
});

const EXIT_CODES = `
Exit codes:
  0  done (warnings about bad lines in a source do not change this)
  1  failed (the message says what and where)
  2  bad arguments or settings (see --help)

Settings: flags win; then --config FILE or agent-logbook.config.json in the data directory; then what the
data directory remembers from the last build (time zone, week start, site URL, source folders); then defaults.
Set NO_COLOR to keep colour out of any output.`;

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(`${PACKAGE_ROOT}package.json`, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

const wordParser = (check: (v: string) => boolean, what: string) => (value: string) => {
  if (!check(value)) throw new InvalidArgumentError(`"${value}" is not ${what}`);
  return value;
};
const dayWord = wordParser(isDayWord, 'a day (today, yesterday or YYYY-MM-DD)');
const weekWord = wordParser(isWeekWord, 'a week (this, last or YYYY-Www, e.g. 2026-W10)');
const monthWord = wordParser(isMonthWord, 'a month (this, last or YYYY-MM)');
const plainDay = wordParser((v) => isDayWord(v) && !['today', 'yesterday'].includes(v), 'a day (YYYY-MM-DD)');

/** Commander's messages as one line: `error: unknown option '--x'\n(Did you mean --y?)` → one line. */
function oneLine(text: string): string {
  return text
    .replace(/^error:\s*/i, '')
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\(Did you mean/g, '(did you mean')
    .trim();
}

/** Runs the CLI; returns the exit code (0 ok, 1 failure, 2 bad arguments). */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let exitCode = 0;
  let usageShown = false;
  const program = new Command()
    .name('agent-logbook')
    .description('Collect the local histories of AI coding assistants and build a static site from them.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
      // One short line and where to look, never the whole help (the command is named so --help is exact).
      outputError: (text) => {
        usageShown = true;
        const command = commandPath(argv, program);
        io.stderr(`agent-logbook: ${oneLine(text)}; see: agent-logbook ${command}--help\n`);
      },
    })
    .showSuggestionAfterError(true)
    .addHelpText('after', EXIT_CODES);
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') process.env.NO_COLOR = io.env.NO_COLOR;

  addSourceOptions(
    program.command('collect').description('read every source (read-only) and update the data directory'),
  )
    .option('-v, --verbose', 'list every warning')
    .option('-q, --quiet', 'print only warnings and errors')
    .action(async (flags: SourceFlags & { verbose?: boolean; quiet?: boolean }) => {
      const started = Date.now();
      const settings = resolveSettings(flags, io);
      const quiet = flags.quiet === true;
      const progress = new ProgressWriter(io.stderr, { tty: io.isTTY === true, quiet });
      const collected = await runCollect(settings, io, { verbose: flags.verbose, quiet, progress });
      await rememberSettings(settings);
      const { updateSearchIndexAfterCollect } = await import('../search/sync.ts');
      await updateSearchIndexAfterCollect(settings.dataDir, quiet ? () => {} : io.stderr);
      if (!quiet) io.stderr(`${collectSummary(collected, Date.now() - started)}.\n`);
    });

  addCalendarOptions(addSourceOptions(program.command('build').description('collect, then build the static site')))
    .option('--out <dir>', 'where to write the site (default: remembered, else dist)')
    .option('--since <day>', 'build only days from this one on (YYYY-MM-DD)', plainDay)
    .option('--until <day>', 'build only days up to this one (YYYY-MM-DD)', plainDay)
    .option('--share', 'a site to hand to others: secrets redacted, home paths, user, host and e-mails anonymized')
    .option('--sessions <ids>', 'with --share: only these sessions (comma-separated <source>/<id> or ids)')
    .option('--omit <parts>', 'with --share: leave out thinking, tool-output and/or tool-input (comma-separated)')
    .option('-v, --verbose', 'list every warning, and time each step of the site build')
    .option('--full', 'render and write every page, not only what changed since the last build')
    .option('-q, --quiet', 'print only warnings and errors')
    .action(async (flags: SourceFlags & CalendarFlags & BuildFlags) => {
      if ((flags.sessions || flags.omit) && !flags.share) throw new UsageError('--sessions and --omit go with --share');
      const resolved = resolveSettings(flags, io);
      // Sharing loads the sanitizer (jsdom): only when asked for, so a plain build starts fast.
      const sharing = flags.share ? await import('./share.ts') : undefined;
      const omit = sharing?.parseOmit(flags.omit) ?? [];
      const progress = new ProgressWriter(io.stderr, { tty: io.isTTY === true, quiet: flags.quiet === true });
      const collected = await runCollect(resolved, io, { verbose: flags.verbose, quiet: flags.quiet, progress });
      const share = sharing
        ? await sharing.shareSettingsFor(resolved.dataDir, os.homedir(), { sessions: splitList(flags.sessions), omit })
        : undefined;
      // A share build goes where it is told, never to the remembered personal site.
      const outDir = flags.share
        ? path.resolve(io.cwd, flags.out ?? 'dist')
        : (resolved.out ?? path.resolve(io.cwd, 'dist'));
      const started = Date.now();
      const result = await buildSite({
        dataDir: resolved.dataDir,
        outDir,
        timeZone: resolved.timeZone,
        weekStart: resolved.weekStart,
        // A shared site is published elsewhere: only a --site-url given for it applies.
        siteUrl: flags.share ? flags.siteUrl : resolved.siteUrl,
        since: flags.since,
        until: flags.until,
        share,
        verbose: flags.verbose,
        full: flags.full,
        onProgress: siteBuildProgress(progress),
      }).finally(() => progress.clear());
      if (!flags.share) await rememberSettings({ ...resolved, out: outDir }, { calendar: true, out: true });
      if (flags.quiet) return;
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const base = resolved.siteUrl ? `, links under ${resolved.siteUrl}` : '';
      io.stderr(
        `Site: ${result.pages} pages in ${relativeIfInside(io.cwd, outDir)}/ (${seconds}s, days in ${resolved.timeZone}${base}).\n` +
          `${buildSummary(collected, result, Date.now() - started)}.\n` +
          `Open it with: npx agent-logbook serve --out ${relativeIfInside(io.cwd, outDir)}\n`,
      );
    });

  addSourceOptions(
    program
      .command('export')
      .description('write the archive as sessions and messages tables (JSONL or Parquet) for DuckDB and the like'),
  )
    .requiredOption('--out <dir>', 'the directory to write sessions.<format> and messages.<format> to')
    .addOption(new Option('--format <format>', 'table format').choices(['jsonl', 'parquet']).default('jsonl'))
    .option('--owner <name>', "whose sessions these are, a column in both tables (default: the user's login name)")
    .option('--share', 'redact secrets and anonymize home paths, user, host and e-mails, as build --share does')
    .option('--no-collect', 'export the data directory as it is, without reading the sources')
    .option('-q, --quiet', 'print only warnings and errors')
    .action(
      async (
        flags: SourceFlags & {
          out: string;
          format: 'jsonl' | 'parquet';
          owner?: string;
          share?: boolean;
          collect: boolean;
          quiet?: boolean;
        },
      ) => {
        const resolved = resolveSettings(flags, io);
        if (flags.collect) await runCollect(resolved, io, { quiet: flags.quiet });
        const { runExport } = await import('../export/run.ts');
        const outDir = path.resolve(io.cwd, flags.out);
        const result = await runExport({ ...flags, dataDir: resolved.dataDir, outDir });
        if (flags.quiet) return;
        io.stderr(
          `Export: ${result.sessions} sessions, ${result.messages} messages in ${result.files.map((f) => relativeIfInside(io.cwd, f)).join(', ')}${flags.share ? ' (redacted)' : ''}.\n`,
        );
      },
    );

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
    .option('-q, --quiet', 'print only warnings and errors')
    .action(
      async (
        key: string,
        flags: SourceFlags & CalendarFlags & { out?: string; omit?: string; collect: boolean; quiet?: boolean },
      ) => {
        const { parseOmit, shareSettingsFor, shareToFile } = await import('./share.ts');
        const omit = parseOmit(flags.omit);
        const resolved = resolveSettings(flags, io);
        if (flags.collect) await runCollect(resolved, io, { quiet: flags.quiet });
        const settings = await shareSettingsFor(resolved.dataDir, os.homedir(), {
          sessions: [key],
          omit,
          single: true,
        });
        const chosen = settings.sessions![0]!;
        const { source, sessionId } = splitSessionKey(chosen);
        const outFile = path.resolve(io.cwd, flags.out ?? `${source}-${idToPathSegment(sessionId)}.html`);
        const { bytes } = await shareToFile({
          dataDir: resolved.dataDir,
          key: chosen,
          outFile,
          timeZone: resolved.timeZone,
          settings,
        });
        if (flags.quiet) return;
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
        .description('print a day, week, month or range report (Markdown or JSON) to stdout, after collecting'),
    ),
  )
    .option('--day <day>', 'the day: today, yesterday or YYYY-MM-DD (in the time zone)', dayWord)
    .option('--week <week>', 'the week: this, last or YYYY-Www', weekWord)
    .option('--month <month>', 'the month: this, last or YYYY-MM', monthWord)
    .option('--since <day>', 'from this day on (today, yesterday or YYYY-MM-DD)', dayWord)
    .option('--until <day>', 'up to this day, with --since (default: today)', dayWord)
    .addOption(new Option('--format <format>', 'output format').choices(['md', 'json']).default('md'))
    .option('--no-collect', 'report from the data directory as it is, without reading the sources')
    .option('-q, --quiet', 'print only the report, warnings and errors')
    .action(
      async (
        flags: SourceFlags &
          CalendarFlags & {
            day?: string;
            week?: string;
            month?: string;
            since?: string;
            until?: string;
            format: 'md' | 'json';
            collect: boolean;
            quiet?: boolean;
          },
      ) => {
        const chosen = [flags.day, flags.week, flags.month, flags.since ?? flags.until].filter(Boolean).length;
        if (chosen !== 1) {
          throw new UsageError('report needs one of --day, --week, --month or --since [--until]');
        }
        if (flags.until && !flags.since) throw new UsageError('--until goes with --since');
        const settings = resolveSettings(flags, io);
        if (flags.collect) await runCollect(settings, io, { quiet: flags.quiet });
        const { printReport } = await import('./report.ts');
        const { resolvePeriod } = await import('../report/period.ts');
        const period = resolvePeriod(flags, new Date(), settings.timeZone, settings.weekStart);
        if (period.kind === 'range' && period.first > period.last) {
          throw new UsageError(`--since ${period.first} is after --until ${period.last}`);
        }
        io.stdout(
          await printReport({
            dataDir: settings.dataDir,
            timeZone: settings.timeZone,
            weekStart: settings.weekStart,
            siteUrl: settings.siteUrl,
            format: flags.format,
            period,
          }),
        );
      },
    );

  addCalendarOptions(
    addSourceOptions(
      program
        .command('mcp')
        .description('an MCP server on stdio: lets your assistants read this history (see README, "MCP")'),
    ),
  )
    .option('--share', 'answer with secrets redacted and home paths, user, host and e-mails anonymized')
    .option('--no-collect', 'answer from the data directory as it is, without reading the sources')
    .option('--refresh <seconds>', 'read the sources again at most this often', parseSeconds, 5)
    .action(async (flags: SourceFlags & CalendarFlags & { share?: boolean; collect: boolean; refresh: number }) => {
      const resolved = resolveSettings(flags, io);
      const { runMcpServer } = await import('../mcp/server.ts');
      await runMcpServer(
        {
          home: resolved.home,
          env: io.env,
          dataDir: resolved.dataDir,
          sourceOptions: resolved.sourceOptions,
          timeZone: resolved.timeZone,
          weekStart: resolved.weekStart,
          collect: flags.collect,
          refreshMs: flags.refresh * 1000,
          share: flags.share === true,
        },
        io.stderr,
      );
    });

  addSourceOptions(
    program
      .command('search')
      .argument(
        '<query...>',
        'words or "quoted phrases"; every one must occur in a message (any case, any part of a word)',
      )
      .description('search prompts, answers, thinking and tool input/output in the data directory, after collecting'),
  )
    .option('--source <source>', `only this source (${SOURCE_IDS.join(', ')})`)
    .option('--project <project>', 'only this project: its name, directory or slug')
    .option('--since <day>', 'only from this day on (YYYY-MM-DD, in --tz)', parseDay)
    .option('--until <day>', 'only up to this day (YYYY-MM-DD, in --tz)', parseDay)
    .option('--limit <n>', 'at most this many hits', parsePositive, 20)
    .option('--json', 'print the hits as a JSON array')
    .addOption(
      new Option('--tz <zone>', 'time zone for days and times (default: remembered, else the system zone)').argParser(
        parseTimeZone,
      ),
    )
    .option('--no-collect', 'search the data directory as it is, without reading the sources')
    .option('-q, --quiet', 'print only the hits, warnings and errors')
    .action(
      async (
        words: string[],
        flags: SourceFlags & {
          source?: string;
          project?: string;
          since?: string;
          until?: string;
          limit: number;
          json?: boolean;
          tz?: string;
          collect: boolean;
          quiet?: boolean;
        },
      ) => {
        if (flags.source && !(SOURCE_IDS as readonly string[]).includes(flags.source))
          throw new UsageError(`unknown source "${flags.source}" (one of ${SOURCE_IDS.join(', ')})`);
        const query = words.join(' ');
        if (!query.trim()) throw new UsageError('search needs a word to look for');
        const resolved = resolveSettings(flags, io);
        if (flags.collect) await runCollect(resolved, io, { quiet: flags.quiet });
        const { runSearch } = await import('../search/cli.ts');
        await runSearch(
          { ...flags, query, json: flags.json === true, dataDir: resolved.dataDir, timeZone: resolved.timeZone },
          io,
        );
      },
    );

  addCalendarOptions(
    addSourceOptions(
      program
        .command('serve')
        .description('serve a built site on 127.0.0.1; with --watch, build it and keep it current'),
    ),
  )
    .option('--out <dir>', 'the built site (default: where the last build wrote it, else dist)')
    .option('--port <n>', 'port', parsePort, 4321)
    .option('--watch', 'collect and build first, then rebuild when a source changes; open pages reload themselves')
    .option('--since <day>', 'with --watch: build only days from this one on (YYYY-MM-DD)', parseDay)
    .option('--until <day>', 'with --watch: build only days up to this one (YYYY-MM-DD)', parseDay)
    .option('-q, --quiet', 'print only warnings and errors')
    .action(async (flags: SourceFlags & CalendarFlags & BuildFlags & { port: number; watch?: boolean }) => {
      const resolved = resolveSettings(flags, io);
      const outDir = flags.out ? path.resolve(io.cwd, flags.out) : (resolved.out ?? path.resolve(io.cwd, 'dist'));
      const base = resolved.siteUrl ? siteAndBase(resolved.siteUrl).base : '/';
      const stop = stopOnInterrupt();
      try {
        if (!flags.watch) {
          const { startStaticServer } = await import('../site/serve/static-server.ts');
          const server = await startStaticServer({ root: outDir, port: flags.port, base });
          io.stderr(`Serving ${outDir} at ${server.url} (Ctrl-C to stop)\n`);
          await stop.signal;
          await server.close();
          return;
        }
        const { serveLive } = await import('../site/serve/live.ts');
        const { RenderWorkers } = await import('../site/build/build.ts');
        const workers = new RenderWorkers();
        await serveLive({
          outDir,
          port: flags.port,
          base,
          ignore: [resolved.dataDir, outDir],
          log: (text) => io.stderr(text),
          stopSignal: stop.signal,
          rebuild: async () => {
            const started = Date.now();
            const collected = await runCollect(resolved, io, { verbose: flags.verbose, quiet: true });
            const built = await buildSite({
              dataDir: resolved.dataDir,
              outDir,
              timeZone: resolved.timeZone,
              weekStart: resolved.weekStart,
              siteUrl: resolved.siteUrl,
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

  const verbose = argv.includes('--verbose') || argv.includes('-v');
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`agent-logbook: ${error.message}; see: agent-logbook ${commandPath(argv, program)}--help\n`);
      return 2;
    }
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help') return 0;
      if (!usageShown) io.stderr(`agent-logbook: ${oneLine(error.message)}; see: agent-logbook --help\n`);
      return 2;
    }
    io.stderr(`agent-logbook: ${describeError(error).split('\n')[0]}\n`);
    if (verbose && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    else io.stderr('  (run again with --verbose for the details)\n');
    return 1;
  }
  return exitCode === -1 ? 0 : exitCode;
}

function parsePositive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a positive whole number`);
  return n;
}

function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) {
    throw new InvalidArgumentError(`"${value}" is not a port (0-65535; 0 picks a free one)`);
  }
  return port;
}

/** `report ` when argv names a command, for "see: agent-logbook report --help". */
function commandPath(argv: string[], program: Command): string {
  const names = new Set(program.commands.map((c) => c.name()));
  const name = argv.find((a) => names.has(a));
  return name ? `${name} ` : '';
}

async function runCollect(...args: Parameters<typeof import('./run-collect.ts').runCollect>): Promise<CollectReport> {
  const { runCollect } = await import('./run-collect.ts');
  return runCollect(...args);
}

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds < 0) throw new InvalidArgumentError(`"${value}" is not a number of seconds`);
  return seconds;
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

/** One line on what a collect changed: `Collected in 1.2s: 3 sessions new, 1 updated, 355 unchanged`. */
function collectSummary(collected: CollectReport, ms: number): string {
  const added = collected.sources.reduce((n, s) => n + s.added, 0);
  const read = collected.sources.reduce((n, s) => n + s.sessions, 0);
  const unchanged = collected.sources.reduce((n, s) => n + s.unchanged, 0);
  return `Collected in ${(ms / 1000).toFixed(1)}s: ${added} sessions new, ${read - added} updated, ${unchanged} unchanged`;
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
