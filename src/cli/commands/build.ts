import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { plainDay } from '../argument-parsers.ts';
import { countLabel } from '../../util/format.ts';
import type { CliIo } from '../io.ts';
import {
  addCalendarOptions,
  addSourceOptions,
  relativeIfInside,
  rememberSettings,
  resolveSettings,
  UsageError,
  type CalendarFlags,
  type SourceFlags,
} from '../options.ts';
import { ProgressWriter } from '../progress.ts';
import { hostLimitNote } from '../host-limits.ts';

export interface BuildFlags extends SourceFlags, CalendarFlags {
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

/** `build`: collect, then build the static site (with --share, a redacted one to hand to others). */
export function registerBuild(program: Command, io: CliIo): void {
  addCalendarOptions(addSourceOptions(program.command('build').description('collect, then build the static site')))
    .option('--out <dir>', 'where to write the site (default: remembered, else dist)')
    .option('--since <day>', 'build only days from this one on (YYYY-MM-DD)', plainDay)
    .option('--until <day>', 'build only days up to this one (YYYY-MM-DD)', plainDay)
    .option('--share', 'a site to hand to others: secrets redacted, home paths, user, host and e-mails anonymized')
    .option(
      '--sessions <ids>',
      'with --share: only these sessions (comma-separated <source>/<id>, ids, or their starts)',
    )
    .option('--omit <parts>', 'with --share: leave out thinking, tool-output and/or tool-input (comma-separated)')
    .option('-v, --verbose', 'list every warning and every place looked in, and time each step of the site build')
    .option('--full', 'render and write every page, not only what changed since the last build')
    .option('-q, --quiet', 'print only warnings and errors')
    .action(async (flags: BuildFlags) => {
      if ((flags.sessions || flags.omit) && !flags.share) throw new UsageError('--sessions and --omit go with --share');
      const resolved = resolveSettings(flags, io);
      // Sharing loads the sanitizer (jsdom): only when asked for, so a plain build starts fast.
      const sharing = flags.share ? await import('../share.ts') : undefined;
      const omit = sharing?.parseOmit(flags.omit) ?? [];
      const progress = new ProgressWriter(io.stderr, { tty: io.isTTY === true, quiet: flags.quiet === true });
      // A share build goes where it is told, never to the remembered personal site.
      const outDir = flags.share
        ? path.resolve(io.cwd, flags.out ?? 'dist')
        : (resolved.out ?? path.resolve(io.cwd, 'dist'));
      const { collectAndBuild, buildSummary } = await import('../collect-and-build.ts');
      const { collected, built, buildStarted } = await collectAndBuild(resolved, io, {
        collect: { verbose: flags.verbose, quiet: flags.quiet },
        progress,
        site: async () => ({
          dataDir: resolved.dataDir,
          outDir,
          timeZone: resolved.timeZone,
          weekStart: resolved.weekStart,
          // A shared site is published elsewhere: only a --site-url given for it applies.
          siteUrl: flags.share ? flags.siteUrl : resolved.siteUrl,
          since: flags.since,
          until: flags.until,
          share: sharing
            ? await sharing.shareSettingsFor(resolved.dataDir, os.homedir(), {
                sessions: splitList(flags.sessions),
                omit,
              })
            : undefined,
          verbose: flags.verbose,
          full: flags.full,
        }),
      });
      if (!flags.share) await rememberSettings({ ...resolved, out: outDir }, { calendar: true, out: true });
      // Said even with --quiet: a build that feeds a deploy is where the host refuses the site.
      const note = hostLimitNote(built.site);
      if (flags.quiet) return void (note && io.stderr(`${note}\n`));
      const base = resolved.siteUrl ? `, links under ${resolved.siteUrl}` : '';
      const out = relativeIfInside(io.cwd, outDir);
      io.stderr(
        `Site: ${countLabel(built.pages, 'page')} in ${out}/ (days in ${resolved.timeZone}${base}): ` +
          `${buildSummary(collected, built, Date.now() - buildStarted)}.\n` +
          `Open it with: npx agent-logbook serve --out ${out}\n`,
      );
      if (note) io.stderr(`${note}\n`);
    });
}

function splitList(value: string | undefined): string[] | undefined {
  return value
    ? value
        .split(',')
        .map((v) => v.trim())
        .filter(Boolean)
    : undefined;
}
