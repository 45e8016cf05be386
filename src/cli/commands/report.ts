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
import type { WeekStart } from '../../stats/calendar-words.ts';

interface ReportFlags extends SourceFlags, CalendarFlags {
  day?: string;
  week?: string;
  month?: string;
  since?: string;
  until?: string;
  format: 'md' | 'json';
  collect: boolean;
  quiet?: boolean;
  verbose?: boolean;
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
    .option('-v, --verbose', 'also say where the sources were found and what was read, and list every warning')
    .option('-q, --quiet', 'print only the report, warnings and errors (the default without --verbose)')
    .action(async (flags: ReportFlags) => {
      const chosen = [flags.day, flags.week, flags.month, flags.since ?? flags.until].filter(Boolean).length;
      if (chosen !== 1) {
        throw new UsageError('report needs one of --day, --week, --month or --since [--until]');
      }
      if (flags.until && !flags.since) throw new UsageError('--until goes with --since');
      const settings = resolveSettings(flags, io);
      // The report is the output: what was read goes to stderr only when asked for.
      const verbose = flags.verbose === true && flags.quiet !== true;
      if (flags.collect) await runCollectLazily(settings, io, { quiet: !verbose, verbose });
      const { printReport } = await import('../report.ts');
      const { resolvePeriod } = await import('../../report/period.ts');
      const period = resolvePeriod(flags, new Date(), settings.timeZone, settings.weekStart);
      if (period.kind === 'week') await checkWeekExists(period.week, settings.weekStart);
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

/** `2026-W53` exists only in years with 53 weeks (counted from the week start): a usage error otherwise. */
async function checkWeekExists(week: string, weekStart: WeekStart): Promise<void> {
  const { weekDays, weekOf } = await import('../../stats/calendar.ts');
  let first: string | undefined;
  try {
    first = weekDays(week, weekStart)[0];
  } catch {
    first = undefined;
  }
  if (!first || weekOf(first, weekStart) !== week) {
    throw new UsageError(
      `"${week}" is not a week: ${week.slice(0, 4)} has no week ${week.slice(6)} (weeks start on ${weekStart})`,
    );
  }
}
