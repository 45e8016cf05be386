import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
// Only what defining the commands needs is imported here; each command imports its own work when it runs, so
// `--help`, `search` or `collect` do not load the site build, the sanitizer or the MCP SDK.
import { describeError } from '../util/errors.ts';
import { PACKAGE_ROOT } from './build-site.ts';
import { registerBuild } from './commands/build.ts';
import { registerCollect } from './commands/collect.ts';
import { registerExport } from './commands/export.ts';
import { registerMcp } from './commands/mcp.ts';
import { registerReport } from './commands/report.ts';
import { registerSearch } from './commands/search.ts';
import { registerServe } from './commands/serve.ts';
import { registerShare } from './commands/share.ts';
import type { CliIo } from './io.ts';
import { FailureInWords, UsageError } from './options.ts';

export type { CliIo };

const defaultIo = (): CliIo => ({
  cwd: process.cwd(),
  env: process.env,
  stdout: (t) => process.stdout.write(t),
  stderr: (t) => process.stderr.write(t),
  isTTY: process.stderr.isTTY === true,
});

const EXIT_CODES = `
Exit codes:
  0  done (warnings about bad lines in a source do not change this)
  1  failed (the message says what and where)
  2  bad arguments or settings (see --help)

Settings: flags win; then --config FILE or agent-logbook.config.json in the data directory; then what the
data directory remembers from the last build (time zone, week start, site URL, source folders); then defaults.
Set NO_COLOR to keep colour out of any output.`;

/** The commands in the order --help lists them, by name. */
const COMMANDS = [
  ['collect', registerCollect],
  ['build', registerBuild],
  ['export', registerExport],
  ['share', registerShare],
  ['report', registerReport],
  ['mcp', registerMcp],
  ['search', registerSearch],
  ['serve', registerServe],
] as const;

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(`${PACKAGE_ROOT}package.json`, 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

/**
 * Commander's messages as one line that reads as a sentence, for "…; see: agent-logbook report --help":
 * `error: option '--day <day>' argument 'x' is invalid. "x" is not a day.` → `--day: "x" is not a day`.
 */
function oneLine(text: string): string {
  return text
    .replace(/^error:\s*/i, '')
    .replace(/\s*\n\s*/g, ' ')
    .replace(
      /^option '(-[^' ]+)[^']*' argument '([^']*)' is invalid\. Allowed choices are (.*)$/,
      (_, flag: string, value: string, choices: string) => `${flag}: "${value}" is not one of ${choices}`,
    )
    .replace(/^option '(-[^' ]+)[^']*' argument '[^']*' is invalid\. /, '$1: ')
    .replace(/^command-argument value '[^']*' is invalid for argument '([^']*)'\. /, '<$1>: ')
    .replace(/\(Did you mean/g, '(did you mean')
    .trim()
    .replace(/[.;:]+$/, '');
}

/** `report ` when argv names a command, for "see: agent-logbook report --help". */
function commandPath(argv: string[], program: Command): string {
  const names = new Set(program.commands.map((c) => c.name()));
  const name = argv.find((a) => names.has(a));
  return name ? `${name} ` : '';
}

/** Runs the CLI; returns the exit code (0 ok, 1 failure, 2 bad arguments). */
export async function main(argv: string[], io: CliIo = defaultIo()): Promise<number> {
  let usageShown = false;
  const program = new Command()
    .name('agent-logbook')
    .description('Collect the local histories of AI coding assistants and build a static site from them.')
    .version(packageVersion(), '-V, --version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeOut: io.stdout,
      writeErr: io.stderr,
      getOutHasColors: () => false,
      getErrHasColors: () => false,
      // One short line and where to look, never the whole help (the command is named so --help is exact).
      outputError: (text) => {
        usageShown = true;
        const command = commandPath(argv, program);
        io.stderr(`agent-logbook: ${oneLine(text)}; see: agent-logbook ${command}--help\n`);
      },
    })
    .showSuggestionAfterError(true)
    .addHelpText('after', EXIT_CODES);
  if (io.env.NO_COLOR !== undefined && io.env.NO_COLOR !== '') process.env.NO_COLOR = io.env.NO_COLOR;
  // A command named first is the only one defined (defining them all, with their dozens of options, costs a
  // short command like a collect that finds nothing new ~10 ms); else, for --help or a mistyped name, all are.
  const named = COMMANDS.find(([name]) => name === argv[0]);
  for (const [, register] of named ? [named] : COMMANDS) register(program, io);

  const verbose = argv.includes('--verbose') || argv.includes('-v');
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`agent-logbook: ${oneLine(error.message)}; see: agent-logbook ${commandPath(argv, program)}--help\n`);
      return 2;
    }
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') return 0;
      if (error.code === 'commander.help') return 0;
      if (!usageShown) io.stderr(`agent-logbook: ${oneLine(error.message)}; see: agent-logbook --help\n`);
      return 2;
    }
    if (error instanceof FailureInWords) {
      io.stderr(`agent-logbook: ${error.message}\n`);
      return 1;
    }
    io.stderr(`agent-logbook: ${describeError(error).split('\n')[0]}\n`);
    if (verbose && error instanceof Error && error.stack) io.stderr(`${error.stack}\n`);
    else io.stderr('  (run again with --verbose for the details)\n');
    return 1;
  }
  return 0;
}
