import os from 'node:os';
import path from 'node:path';
import type { Command } from 'commander';
import { idToPathSegment, splitSessionKey } from '../../model/ids.ts';
import type { CliIo } from '../io.ts';
import {
  addCalendarOptions,
  addSourceOptions,
  relativeIfInside,
  resolveSettings,
  type CalendarFlags,
  type SourceFlags,
} from '../options.ts';
import { runCollectLazily } from '../run-collect-lazily.ts';

interface ShareFlags extends SourceFlags, CalendarFlags {
  out?: string;
  omit?: string;
  collect: boolean;
  quiet?: boolean;
}

/** `share <session>`: one session as a self-contained, redacted HTML file. */
export function registerShare(program: Command, io: CliIo): void {
  addCalendarOptions(
    addSourceOptions(
      program
        .command('share')
        .argument(
          '<session>',
          'the session: <source>/<session-id>, its id, or the start of either (as the site shows it)',
        )
        .description('write one session as a self-contained, redacted and anonymized HTML file'),
    ),
  )
    .option('--out <file>', 'the file to write (default: <source>-<id>.html)')
    .option('--omit <parts>', 'leave out thinking, tool-output and/or tool-input (comma-separated)')
    .option('--no-collect', 'share from the data directory as it is, without reading the sources')
    .option('-q, --quiet', 'print only warnings and errors')
    .action(async (key: string, flags: ShareFlags) => {
      const { parseOmit, shareSettingsFor, shareToFile } = await import('../share.ts');
      const omit = parseOmit(flags.omit);
      const resolved = resolveSettings(flags, io);
      if (flags.collect) await runCollectLazily(resolved, io, { quiet: flags.quiet });
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
    });
}
