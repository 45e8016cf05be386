import { type Command, Option } from 'commander';
import { dayWord, monthWord, weekWord } from '../argument-parsers.ts';
import type { CliIo } from '../io.ts';
import {
  addCalendarOptions,
  addSourceOptions,
  resolveSettings,
  UsageError,
  type CalendarFlags,
  type SourceFlags,
} from '../options.ts';
import { runCollectLazily } from '../run-collect-lazily.ts';

interface ReportFlags extends SourceFlags, CalendarFlags {
  day?: string;
  week?: string;
  month?: string;
  since?: string;
  until?: string;
  format: 'md' | 'json';
  collect: boolean;
  quiet?: boolean;
}

/** `report`: a day, week, month or range report on stdout. */
export function registerReport(program: Command, io: CliIo): void {
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
    .action(async (flags: ReportFlags) => {
      const chosen = [flags.day, flags.week, flags.month, flags.since ?? flags.until].filter(Boolean).length;
      if (chosen !== 1) {
        throw new UsageError('report needs one of --day, --week, --month or --since [--until]');
      }
      if (flags.until && !flags.since) throw new UsageError('--until goes with --since');
      const settings = resolveSettings(flags, io);
      if (flags.collect) await runCollectLazily(settings, io, { quiet: flags.quiet });
      const { printReport } = await import('../report.ts');
      const { resolvePeriod } = await import('../../report/period.ts');
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
    });
}
