import path from 'node:path';
import { type Command, Option } from 'commander';
import { countLabel } from '../../util/format.ts';
import type { CliIo } from '../io.ts';
import { addSourceOptions, relativeIfInside, resolveSettings, type SourceFlags } from '../options.ts';
import { runCollectLazily } from '../run-collect-lazily.ts';

interface ExportFlags extends SourceFlags {
  out: string;
  format: 'jsonl' | 'parquet';
  owner?: string;
  share?: boolean;
  collect: boolean;
  quiet?: boolean;
}

/** `export`: the archive as sessions and messages tables. */
export function registerExport(program: Command, io: CliIo): void {
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
    .action(async (flags: ExportFlags) => {
      const resolved = resolveSettings(flags, io);
      if (flags.collect) await runCollectLazily(resolved, io, { quiet: flags.quiet });
      const { runExport } = await import('../../export/run.ts');
      const outDir = path.resolve(io.cwd, flags.out);
      const result = await runExport({ ...flags, dataDir: resolved.dataDir, outDir });
      if (flags.quiet) return;
      io.stderr(
        `Export: ${countLabel(result.sessions, 'session')}, ${countLabel(result.messages, 'message')} in ${result.files.map((f) => relativeIfInside(io.cwd, f)).join(', ')}${flags.share ? ' (redacted)' : ''}.\n`,
      );
    });
}
