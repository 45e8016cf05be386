import { type Command, Option } from 'commander';
import { SOURCE_IDS } from '../../model/message.ts';
import { parsePositive } from '../argument-parsers.ts';
import type { CliIo } from '../io.ts';
import {
  addSourceOptions,
  parseDay,
  parseTimeZone,
  resolveSettings,
  UsageError,
  type SourceFlags,
} from '../options.ts';
import { runCollectLazily } from '../run-collect-lazily.ts';

interface SearchFlags extends SourceFlags {
  source?: string;
  project?: string;
  since?: string;
  until?: string;
  limit: number;
  json?: boolean;
  tz?: string;
  collect: boolean;
  quiet?: boolean;
  verbose?: boolean;
  session?: string;
  perSession?: number;
}

/** How many hits of one session the lines show, unless --per-session or --session says otherwise. */
export const HITS_PER_SESSION = 3;

/** `search <query...>`: messages in the data directory that hold every word. */
export function registerSearch(program: Command, io: CliIo): void {
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
    .option('--session <id>', 'only this session: <source>/<id>, its id, or the start of either')
    .option('--limit <n>', 'at most this many hits', parsePositive, 20)
    .option(
      '--per-session <n>',
      `at most this many hits of one session (default: ${HITS_PER_SESSION}; all with --session or --json)`,
      parsePositive,
    )
    .option('--json', 'print the hits as a JSON array')
    .addOption(
      new Option('--tz <zone>', 'time zone for days and times (default: remembered, else the system zone)').argParser(
        parseTimeZone,
      ),
    )
    .option('--no-collect', 'search the data directory as it is, without reading the sources')
    .option('-v, --verbose', 'also say where the sources were found and what was read, and list every warning')
    .option('-q, --quiet', 'print only the hits, warnings and errors (the default without --verbose)')
    .action(async (words: string[], flags: SearchFlags) => {
      if (flags.source && !(SOURCE_IDS as readonly string[]).includes(flags.source))
        throw new UsageError(`unknown source "${flags.source}" (one of ${SOURCE_IDS.join(', ')})`);
      const query = words.join(' ');
      if (!query.trim()) throw new UsageError('search needs a word to look for');
      const resolved = resolveSettings(flags, io);
      // The hits are the output: what was read goes to stderr only when asked for.
      const verbose = flags.verbose === true && flags.quiet !== true;
      if (flags.collect) await runCollectLazily(resolved, io, { quiet: !verbose, verbose });
      const { resolveSessionKeys } = await import('../session-ids.ts');
      const session = flags.session ? (await resolveSessionKeys(resolved.dataDir, [flags.session]))[0] : undefined;
      const { printSearch } = await import('../search-output.ts');
      await printSearch(
        {
          ...flags,
          query,
          session,
          json: flags.json === true,
          perSession: flags.perSession ?? (flags.json || session ? undefined : HITS_PER_SESSION),
          announce: verbose || (io.isTTY === true && flags.quiet !== true),
          dataDir: resolved.dataDir,
          timeZone: resolved.timeZone,
        },
        io,
      );
    });
}
