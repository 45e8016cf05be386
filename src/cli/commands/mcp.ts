import type { Command } from 'commander';
import { parseSeconds } from '../argument-parsers.ts';
import type { CliIo } from '../io.ts';
import {
  addCalendarOptions,
  addSourceOptions,
  resolveSettings,
  type CalendarFlags,
  type SourceFlags,
} from '../options.ts';

interface McpFlags extends SourceFlags, CalendarFlags {
  share?: boolean;
  collect: boolean;
  refresh: number;
}

/** `mcp`: an MCP server on stdio over the history. */
export function registerMcp(program: Command, io: CliIo): void {
  addCalendarOptions(
    addSourceOptions(
      program
        .command('mcp')
        .description('an MCP server on stdio: lets your assistants read this history (see README, "MCP")'),
    ),
  )
    .option('--share', 'answer with secrets redacted and home paths, user, host and e-mails anonymized')
    .option('--no-collect', 'answer from the data directory as it is, without reading the sources')
    .option('--refresh <seconds>', 'read the sources again at most this often', parseSeconds, 5)
    .action(async (flags: McpFlags) => {
      const resolved = resolveSettings(flags, io);
      const { runMcpServer } = await import('../../mcp/server.ts');
      await runMcpServer(
        {
          home: resolved.home,
          env: io.env,
          dataDir: resolved.dataDir,
          sourceOptions: resolved.sourceOptions,
          timeZone: resolved.timeZone,
          weekStart: resolved.weekStart,
          collect: flags.collect,
          refreshMs: flags.refresh * 1000,
          share: flags.share === true,
        },
        io.stderr,
      );
    });
}
