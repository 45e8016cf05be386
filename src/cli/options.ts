import os from 'node:os';
import path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { isDay, isWeek, type WeekStart } from '../stats/calendar.ts';
import { expandHome } from '../util/fs.ts';

/** Options every command that reads sources shares. */
export interface SourceFlags {
  home?: string;
  claudeDir?: string[];
  codexDir?: string[];
  amazonqDb?: string[];
  amazonqJson?: string[];
  messagesDir?: string[];
  data?: string;
}

export interface ResolvedSources {
  home: string;
  explicitHome: boolean;
  dataDir: string;
  sourceOptions: Record<string, string | string[] | undefined>;
}

const collectRepeatable = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function addSourceOptions(command: Command): Command {
  return command
    .option('--home <dir>', "home directory to look for histories in (default: the user's home)")
    .option(
      '--claude-dir <dir>',
      'Claude Code config dir (default: $CLAUDE_CONFIG_DIR, else <home>/.claude and <home>/.config/claude); repeatable',
      collectRepeatable,
    )
    .option('--codex-dir <dir>', 'Codex home (default: $CODEX_HOME, else <home>/.codex); repeatable', collectRepeatable)
    .option(
      '--amazonq-db <file>',
      'Amazon Q / Kiro CLI data.sqlite3 (default: amazon-q and kiro-cli under <home>/.local/share, ' +
        '<home>/Library/Application Support and $XDG_DATA_HOME); repeatable',
      collectRepeatable,
    )
    .option('--amazonq-json <file>', 'an Amazon Q conversation saved with /save; repeatable', collectRepeatable)
    .option('--messages-dir <dir>', "a custom agent's message lists (*.json, *.jsonl); repeatable", collectRepeatable)
    .option(
      '--data <dir>',
      'data directory, the archive (default: $XDG_DATA_HOME/agent-logbook or <home>/.local/share/agent-logbook)',
    );
}

export function resolveSources(flags: SourceFlags, env: NodeJS.ProcessEnv, cwd: string): ResolvedSources {
  const explicitHome = flags.home !== undefined;
  const home = path.resolve(cwd, flags.home ?? os.homedir());
  const resolveAll = (paths?: string[]) => paths?.map((p) => path.resolve(cwd, expandHome(p, home)));
  let dataDir: string;
  if (flags.data) dataDir = path.resolve(cwd, expandHome(flags.data, home));
  else if (env.XDG_DATA_HOME && !explicitHome) dataDir = path.join(env.XDG_DATA_HOME, 'agent-logbook');
  else dataDir = path.join(home, '.local', 'share', 'agent-logbook');
  return {
    home,
    explicitHome,
    dataDir,
    sourceOptions: {
      explicitHome: explicitHome ? 'true' : undefined,
      claudeDir: resolveAll(flags.claudeDir),
      codexDir: resolveAll(flags.codexDir),
      amazonqDb: resolveAll(flags.amazonqDb),
      amazonqJson: resolveAll(flags.amazonqJson),
      messagesDir: resolveAll(flags.messagesDir),
    },
  };
}

export function systemTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export function parseTimeZone(value: string): string {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
  } catch {
    throw new InvalidArgumentError(`unknown time zone "${value}" (use an IANA name such as Asia/Tokyo or UTC)`);
  }
  return value;
}

/** Shortens paths under the home directory to `~/…` for messages. */
export function displayPath(p: string, home: string): string {
  const rel = path.relative(home, p);
  if (rel === '') return '~';
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) return `~/${rel}`;
  return p;
}

/** A usage mistake found after parsing (exit code 2, like commander's own). */
export class UsageError extends Error {}

export interface CalendarFlags {
  tz: string;
  weekStart: WeekStart;
}

export function addCalendarOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--tz <zone>', 'time zone for days and times (IANA name)')
        .default(systemTimeZone(), 'the system zone')
        .argParser(parseTimeZone),
    )
    .addOption(new Option('--week-start <day>', 'first day of a week').choices(['monday', 'sunday']).default('monday'));
}

export function parseDay(value: string): string {
  if (!isDay(value)) throw new InvalidArgumentError(`"${value}" is not a day (YYYY-MM-DD)`);
  return value;
}

export function parseWeek(value: string): string {
  if (!isWeek(value)) throw new InvalidArgumentError(`"${value}" is not a week (YYYY-Www, e.g. 2026-W10)`);
  return value;
}
