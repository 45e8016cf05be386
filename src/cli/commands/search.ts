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
}

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
    .option('--limit <n>', 'at most this many hits', parsePositive, 20)
    .option('--json', 'print the hits as a JSON array')
    .addOption(
      new Option('--tz <zone>', 'time zone for days and times (default: remembered, else the system zone)').argParser(
        parseTimeZone,
      ),
    )
    .option('--no-collect', 'search the data directory as it is, without reading the sources')
    .option('-q, --quiet', 'print only the hits, warnings and errors')
    .action(async (words: string[], flags: SearchFlags) => {
      if (flags.source && !(SOURCE_IDS as readonly string[]).includes(flags.source))
        throw new UsageError(`unknown source "${flags.source}" (one of ${SOURCE_IDS.join(', ')})`);
      const query = words.join(' ');
      if (!query.trim()) throw new UsageError('search needs a word to look for');
      const resolved = resolveSettings(flags, io);
      if (flags.collect) await runCollectLazily(resolved, io, { quiet: flags.quiet });
      const { runSearch } = await import('../../search/cli.ts');
      await runSearch(
        { ...flags, query, json: flags.json === true, dataDir: resolved.dataDir, timeZone: resolved.timeZone },
        io,
      );
    });
}
