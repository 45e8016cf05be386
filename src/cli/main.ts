import path from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { collect, type CollectReport } from '../collect/collect.ts';
import { checkRetention } from '../insights/retention.ts';
import { formatWarning } from '../util/warnings.ts';
import os from 'node:os';
import { buildSite } from './build-site.ts';
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
}

const defaultIo = (): CliIo => ({
  cwd: process.cwd(),
  env: process.env,
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
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
    .action(async (flags: SourceFlags & CalendarFlags & BuildFlags) => {
      if ((flags.sessions || flags.omit) && !flags.share) throw new UsageError('--sessions and --omit go with --share');
      const resolved = resolveSources(flags, io.env, io.cwd);
      // Sharing loads the sanitizer (jsdom): only when asked for, so a plain build starts fast.
      const sharing = flags.share ? await import('./share.ts') : undefined;
      const omit = sharing?.parseOmit(flags.omit) ?? [];
      await runCollect(resolved, io, flags.verbose);
      const share = sharing
        ? await sharing.shareSettingsFor(resolved.dataDir, os.homedir(), { sessions: splitList(flags.sessions), omit })
        : undefined;
      const outDir = path.resolve(io.cwd, flags.out);
      const started = Date.now();
      const result = await buildSite({
        dataDir: resolved.dataDir,
        outDir,
        timeZone: flags.tz,
        weekStart: flags.weekStart,
        since: flags.since,
        until: flags.until,
        share,
        verbose: flags.verbose,
      });
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      io.stderr(
        `Site: ${result.pages} pages in ${relativeIfInside(io.cwd, outDir)}/ (${seconds}s, days in ${flags.tz}).\n` +
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
    .action(
      async (
        flags: SourceFlags & {
          out: string;
          format: 'jsonl' | 'parquet';
          owner?: string;
          share?: boolean;
          collect: boolean;
        },
      ) => {
        const resolved = resolveSources(flags, io.env, io.cwd);
        if (flags.collect) await runCollect(resolved, io, false);
        const { runExport } = await import('../export/run.ts');
        const outDir = path.resolve(io.cwd, flags.out);
        const result = await runExport({ ...flags, dataDir: resolved.dataDir, outDir });
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

  program
    .command('serve')
    .description('serve a built site on localhost')
    .option('--out <dir>', 'the built site', 'dist')
    .option('--port <n>', 'port', (v) => Number.parseInt(v, 10), 4321)
    .action(async (flags: { out: string; port: number }) => {
      const { serveSite } = await import('./serve.ts');
      await serveSite(path.resolve(io.cwd, flags.out), flags.port, io.stderr);
      exitCode = -1; // keep running
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

async function runCollect(resolved: ResolvedSources, io: CliIo, verbose = false): Promise<CollectReport> {
  const shown = (p: string) => (resolved.explicitHome ? relativeIfInside(io.cwd, p) : displayPath(p, resolved.home));
  const report = await collect({
    home: resolved.home,
    env: io.env,
    dataDir: resolved.dataDir,
    sourceOptions: resolved.sourceOptions,
  });
  for (const source of report.sources) {
    if (source.found.length === 0) {
      if (source.looked.length === 0) continue; // a source only read when asked for (--messages-dir)
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
  io.stderr(`Data: ${shown(resolved.dataDir)}: ${report.totalSessions} sessions${archived}.\n`);
  // Retention (src/insights/): what each assistant keeps, for the home page, and gaps in collecting.
  for (const line of await checkRetention({ ...resolved, env: io.env })) io.stderr(`Retention: ${line}\n`);
  if (report.totalSessions === 0) {
    io.stderr(
      'No conversations found yet. To see what the site looks like: npx agent-logbook build --home fixtures/home\n',
    );
  }
  return report;
}
