import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import type { CollectReport } from '../../collect/collect.ts';
import { searchIndexPath } from '../../search/store.ts';
import { countLabel } from '../../util/format.ts';
import type { CliIo } from '../io.ts';
import { addSourceOptions, rememberSettings, resolveSettings, type SourceFlags } from '../options.ts';
import { ProgressWriter } from '../progress.ts';
import { runCollectLazily } from '../run-collect-lazily.ts';

/** `collect`: read every source into the data directory, and bring the search index up to date. */
export function registerCollect(program: Command, io: CliIo): void {
  addSourceOptions(
    program.command('collect').description('read every source (read-only) and update the data directory'),
  )
    .option('-v, --verbose', 'list every warning and every place a missing source was looked for')
    .option('-q, --quiet', 'print only warnings and errors')
    .action(async (flags: SourceFlags & { verbose?: boolean; quiet?: boolean }) => {
      const started = Date.now();
      const settings = resolveSettings(flags, io);
      const quiet = flags.quiet === true;
      const progress = new ProgressWriter(io.stderr, { tty: io.isTTY === true, quiet });
      const collected = await runCollectLazily(settings, io, { verbose: flags.verbose, quiet, progress });
      await rememberSettings(settings);
      // Only where `search` made an index: the code that brings one up to date is loaded only then.
      if (existsSync(searchIndexPath(settings.dataDir))) {
        const { updateSearchIndexAfterCollect } = await import('../../search/sync.ts');
        await updateSearchIndexAfterCollect(settings.dataDir, quiet ? () => {} : io.stderr);
      }
      if (!quiet) io.stderr(`${collectSummary(collected, Date.now() - started)}.\n`);
    });
}

/** One line on what a collect changed: `Collected in 1.2s: 3 sessions new, 1 updated, 355 unchanged`. */
function collectSummary(collected: CollectReport, ms: number): string {
  const added = collected.sources.reduce((n, s) => n + s.added, 0);
  const read = collected.sources.reduce((n, s) => n + s.sessions, 0);
  const unchanged = collected.sources.reduce((n, s) => n + s.unchanged, 0);
  return `Collected in ${(ms / 1000).toFixed(1)}s: ${countLabel(added, 'session')} new, ${read - added} updated, ${unchanged} unchanged`;
}
