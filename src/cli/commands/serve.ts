import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { siteAndBase } from '../../model/site-url.ts';
import { parsePort } from '../argument-parsers.ts';
import type { CliIo } from '../io.ts';
import {
  addCalendarOptions,
  addSourceOptions,
  FailureInWords,
  parseDay,
  relativeIfInside,
  resolveSettings,
  type CalendarFlags,
  type SourceFlags,
} from '../options.ts';
import { stopOnInterrupt } from '../stop-on-interrupt.ts';

interface ServeFlags extends SourceFlags, CalendarFlags {
  out?: string;
  port: number;
  watch?: boolean;
  since?: string;
  until?: string;
  verbose?: boolean;
  quiet?: boolean;
}

/** `serve`: a built site on 127.0.0.1; with --watch, collected and rebuilt whenever a source changes. */
export function registerServe(program: Command, io: CliIo): void {
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
    .action(async (flags: ServeFlags) => {
      const resolved = resolveSettings(flags, io);
      const outDir = flags.out ? path.resolve(io.cwd, flags.out) : (resolved.out ?? path.resolve(io.cwd, 'dist'));
      const base = resolved.siteUrl ? siteAndBase(resolved.siteUrl).base : '/';
      const stop = stopOnInterrupt();
      try {
        if (!flags.watch) {
          if (!existsSync(outDir)) {
            const out = relativeIfInside(io.cwd, outDir);
            throw new FailureInWords(
              `no site in ${out} (the folder does not exist): build it first with \`agent-logbook build --out ${out}\`, ` +
                'or serve with --watch to build and keep it current',
            );
          }
          const { startStaticServer } = await import('../../site/serve/static-server.ts');
          const server = await startStaticServer({ root: outDir, port: flags.port, base });
          io.stderr(`Serving ${outDir} at ${server.url} (Ctrl-C to stop)\n`);
          await stop.signal;
          await server.close();
          return;
        }
        const { serveLive } = await import('../../site/serve/live.ts');
        const { RenderWorkers } = await import('../../site/build/build.ts');
        const { collectAndBuild, buildSummary } = await import('../collect-and-build.ts');
        const workers = new RenderWorkers();
        await serveLive({
          outDir,
          port: flags.port,
          base,
          ignore: [resolved.dataDir, outDir],
          log: (text) => io.stderr(text),
          stopSignal: stop.signal,
          rebuild: async (pagesWritten) => {
            const started = Date.now();
            const { collected, built } = await collectAndBuild(resolved, io, {
              collect: { verbose: flags.verbose, quiet: true },
              site: () => ({
                dataDir: resolved.dataDir,
                outDir,
                timeZone: resolved.timeZone,
                weekStart: resolved.weekStart,
                siteUrl: resolved.siteUrl,
                since: flags.since,
                until: flags.until,
                workers,
                onPagesWritten: pagesWritten,
              }),
            });
            return {
              locations: collected.sources.flatMap((source) => source.found),
              summary: buildSummary(collected, built, Date.now() - started),
              searchChanged: built.searchWritten,
            };
          },
        }).finally(() => workers.close());
      } finally {
        stop.dispose();
      }
    });
}
