import { existsSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { SOURCE_IDS } from '../model/message.ts';
import { isDay, isWeek, type WeekStart } from '../stats/calendar-words.ts';
import { expandHome, writeFileAtomic } from '../util/fs.ts';

/**
 * Every flag that names where a source's files are: its key (in flags, the config file, the remembered settings
 * and `SourceContext.options`), the flag and its help. Each is repeatable and taken as a list of paths.
 */
export const SOURCE_PATH_FLAGS = [
  {
    key: 'claudeDir',
    flag: '--claude-dir <dir>',
    help: 'Claude Code config dir (default: $CLAUDE_CONFIG_DIR, else <home>/.claude and <home>/.config/claude)',
  },
  { key: 'codexDir', flag: '--codex-dir <dir>', help: 'Codex home (default: $CODEX_HOME, else <home>/.codex)' },
  {
    key: 'amazonqDb',
    flag: '--amazonq-db <file>',
    help:
      'Amazon Q / Kiro CLI data.sqlite3 (default: amazon-q and kiro-cli under <home>/.local/share, ' +
      '<home>/Library/Application Support and $XDG_DATA_HOME)',
  },
  { key: 'amazonqJson', flag: '--amazonq-json <file>', help: 'an Amazon Q conversation saved with /save' },
  {
    key: 'kiroDir',
    flag: '--kiro-dir <dir>',
    help: 'Kiro CLI home with sessions/cli/*.jsonl (default: <home>/.kiro)',
  },
  {
    key: 'geminiDir',
    flag: '--gemini-dir <dir>',
    help: 'Gemini CLI home (default: $GEMINI_CLI_HOME/.gemini, else <home>/.gemini)',
  },
  {
    key: 'qwenDir',
    flag: '--qwen-dir <dir>',
    help: 'Qwen Code home (default: $QWEN_RUNTIME_DIR and $QWEN_HOME, else <home>/.qwen)',
  },
  {
    key: 'copilotDir',
    flag: '--copilot-dir <dir>',
    help: 'GitHub Copilot CLI home (default: $COPILOT_HOME, else $XDG_CONFIG_HOME/.copilot and <home>/.copilot)',
  },
  {
    key: 'cursorDir',
    flag: '--cursor-dir <path>',
    help: "Cursor's <home>/.cursor folder (transcripts, CLI chats), a state.vscdb, a chats folder or a store.db (default: <home>/.cursor and state.vscdb, for Linux, macOS and Windows)",
  },
  {
    key: 'opencodeDir',
    flag: '--opencode-dir <dir>',
    help: 'OpenCode data dir with opencode.db or storage/ (default: $XDG_DATA_HOME/opencode, else <home>/.local/share/opencode)',
  },
  {
    key: 'gooseDir',
    flag: '--goose-dir <dir>',
    help:
      'Goose data dir with sessions/sessions.db or sessions/*.jsonl (default: $GOOSE_PATH_ROOT/data, ' +
      '$XDG_DATA_HOME/goose, else <home>/.local/share/goose; %APPDATA%\\Block\\goose\\data on Windows)',
  },
  {
    key: 'clineDir',
    flag: '--cline-dir <dir>',
    help: "a Cline / Roo Code / Kilo Code extension's globalStorage folder (default: each editor's, per OS)",
  },
  { key: 'messagesDir', flag: '--messages-dir <dir>', help: "a custom agent's message lists (*.json, *.jsonl)" },
] as const;

export type SourcePathKey = (typeof SOURCE_PATH_FLAGS)[number]['key'];
const SOURCE_PATH_KEYS: readonly SourcePathKey[] = SOURCE_PATH_FLAGS.map((f) => f.key);

/** Options every command that reads sources shares. */
export type SourceFlags = { [K in SourcePathKey]?: string[] } & {
  home?: string;
  /** Read only these assistants (source ids). */
  assistants?: string[];
  data?: string;
  config?: string;
};

export interface ResolvedSources {
  home: string;
  explicitHome: boolean;
  dataDir: string;
  sourceOptions: Record<string, string | string[] | undefined>;
}

const collectRepeatable = (value: string, previous: string[] | undefined) => [...(previous ?? []), value];

export function addSourceOptions(command: Command): Command {
  command.option('--home <dir>', "home directory to look for histories in (default: the user's home)");
  command.option(
    '--assistants <ids>',
    `read only these assistants, comma-separated (${SOURCE_IDS.join(', ')}; default: all)`,
    parseAssistants,
  );
  for (const { flag, help } of SOURCE_PATH_FLAGS) command.option(flag, `${help}; repeatable`, collectRepeatable);
  return command
    .option(
      '--data <dir>',
      'data directory, the archive (default: $XDG_DATA_HOME/agent-logbook or <home>/.local/share/agent-logbook)',
    )
    .option('--config <file>', `settings file (default: ${CONFIG_FILE} in the data directory, when there)`);
}

/** Where the sources and the data directory are. Commands that also show days use resolveSettings. */
export function resolveSources(flags: SourceFlags, env: NodeJS.ProcessEnv, cwd: string): ResolvedSources {
  const { home, explicitHome, dataDir, sourceOptions } = resolveSettings(flags, { env, cwd });
  return { home, explicitHome, dataDir, sourceOptions };
}

// ---------------------------------------------------------------------------------------------------------
// Settings: flags, a config file, and what the last build used.

/** The optional settings file a user writes (in the data directory, or named by --config). */
export const CONFIG_FILE = 'agent-logbook.config.json';
/** What the data directory remembers of the commands that wrote it (same keys as the config file). */
export const REMEMBERED_FILE = 'settings.json';

/** The keys of the config file and of the remembered settings. Paths are relative to the file's folder. */
export type SettingsFile = { [K in SourcePathKey]?: string | string[] } & {
  assistants?: string[];
  tz?: string;
  weekStart?: WeekStart;
  siteUrl?: string;
  /** Where `build` wrote the site (for `serve`). */
  out?: string;
  home?: string;
  /** Only in a file named by --config (the data directory cannot name itself). */
  data?: string;
};

const SETTINGS_KEYS: (keyof SettingsFile)[] = [
  'tz',
  'weekStart',
  'siteUrl',
  'out',
  'home',
  'assistants',
  ...SOURCE_PATH_KEYS,
  'data',
];
const SOURCE_KEYS = ['home', 'assistants', ...SOURCE_PATH_KEYS] as const;

/** `--assistants claude-code,codex`: known source ids, or a usage error naming them. */
export function parseAssistants(value: string): string[] {
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  const unknown = ids.filter((id) => !(SOURCE_IDS as readonly string[]).includes(id));
  if (ids.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(
      `unknown assistant ${unknown.join(', ') || '(none)'}; known: ${SOURCE_IDS.join(', ')}`,
    );
  }
  return ids;
}

export interface SettingsFlags extends SourceFlags {
  tz?: string;
  weekStart?: WeekStart;
  siteUrl?: string;
  out?: string;
}

export type SettingOrigin = 'flag' | 'config' | 'remembered' | 'default';

export interface Settings extends ResolvedSources {
  timeZone: string;
  weekStart: WeekStart;
  /** An absolute `https://host/path/` or a root path `/path/`, always ending in `/`; absent: links from `/`. */
  siteUrl?: string;
  /** The site's folder, when given or remembered (relative paths resolved). */
  out?: string;
  /** The config file read, if any. */
  configFile?: string;
  /** Where each calendar setting came from (for messages and tests). */
  origin: { timeZone: SettingOrigin; weekStart: SettingOrigin; siteUrl: SettingOrigin };
}

/**
 * THE way a command learns its settings: call it with the command's parsed flags and `{ cwd, env }`.
 *
 *   const settings = resolveSettings(flags, io);   // flags from addSourceOptions (+ addCalendarOptions)
 *   settings.dataDir, settings.timeZone, settings.weekStart, settings.siteUrl, settings.sourceOptions
 *
 * Each value is, in order: the flag given on this command line; the config file (`--config FILE`, else
 * `agent-logbook.config.json` in the data directory); what the data directory remembers from the last
 * `build`/`collect` (`settings.json`, written by rememberSettings); the default (the system time zone, Monday).
 * Source folders are taken as a set: a command that names any of --home/--claude-dir/--codex-dir/--amazonq-*
 * uses exactly those. Flags must carry no commander defaults for these keys, or a default would pass for a flag.
 * Throws UsageError for a config file that is missing or malformed.
 */
export function resolveSettings(flags: SettingsFlags, io: { cwd: string; env: NodeJS.ProcessEnv }): Settings {
  const { cwd, env } = io;
  const explicitConfig = flags.config ? path.resolve(cwd, flags.config) : undefined;
  const config = explicitConfig ? readSettingsFile(explicitConfig, true) : undefined;

  const flagHome = flags.home ?? (config?.home ? resolveIn(explicitConfig!, config.home) : undefined);
  const homeForData = path.resolve(cwd, flagHome ?? os.homedir());
  let dataDir: string;
  if (flags.data) dataDir = path.resolve(cwd, expandHome(flags.data, homeForData));
  else if (config?.data) dataDir = resolveIn(explicitConfig!, expandHome(config.data, homeForData));
  else if (env.XDG_DATA_HOME && flagHome === undefined) dataDir = path.join(env.XDG_DATA_HOME, 'agent-logbook');
  else dataDir = path.join(homeForData, '.local', 'share', 'agent-logbook');

  const dataConfigFile = path.join(dataDir, CONFIG_FILE);
  const dataConfig = explicitConfig ? undefined : readSettingsFile(dataConfigFile, false);
  const configFile = explicitConfig ?? (dataConfig ? dataConfigFile : undefined);
  const fileSettings = config ?? dataConfig;
  if (dataConfig?.data !== undefined) {
    throw new UsageError(`${dataConfigFile}: "data" can only be set in a file given with --config`);
  }
  const rememberedFile = path.join(dataDir, REMEMBERED_FILE);
  const remembered = readSettingsFile(rememberedFile, false, false);

  // Sources: this command's flags, else the config file's, else the remembered ones; never a mix.
  const flagSources = SOURCE_KEYS.some((k) => flags[k] !== undefined);
  const pick = (): { from: 'flag' | 'file'; values: SettingsFile; file?: string } => {
    if (flagSources) return { from: 'flag', values: flags as SettingsFile };
    if (fileSettings && SOURCE_KEYS.some((k) => fileSettings[k] !== undefined))
      return { from: 'file', values: fileSettings, file: configFile };
    if (remembered && SOURCE_KEYS.some((k) => remembered[k] !== undefined))
      return { from: 'file', values: remembered, file: rememberedFile };
    return { from: 'flag', values: {} };
  };
  const sources = pick();
  const sourcePath = (p: string, home: string) =>
    sources.file ? resolveIn(sources.file, expandHome(p, home)) : path.resolve(cwd, expandHome(p, home));
  const homeValue = sources.values.home;
  const explicitHome = homeValue !== undefined;
  const home = homeValue ? sourcePath(homeValue, os.homedir()) : os.homedir();
  const list = (v: string | string[] | undefined) =>
    v === undefined ? undefined : (Array.isArray(v) ? v : [v]).map((p) => sourcePath(p, home));

  const choose = <T>(flag: T | undefined, file: T | undefined, memory: T | undefined, fallback: T) =>
    flag !== undefined
      ? { value: flag, origin: 'flag' as const }
      : file !== undefined
        ? { value: file, origin: 'config' as const }
        : memory !== undefined
          ? { value: memory, origin: 'remembered' as const }
          : { value: fallback, origin: 'default' as const };
  // The system zone, and checking a remembered one, start ICU (~40 ms): only commands that show days pay it.
  const timeZone = choose<string | undefined>(flags.tz, fileSettings?.tz, remembered?.tz, undefined);
  let zone: string | undefined;
  const resolveZone = (): string => {
    if (timeZone.origin === 'remembered') checkZoneIn(rememberedFile, timeZone.value!);
    return timeZone.value ?? systemTimeZone();
  };
  const weekStart = choose<WeekStart>(flags.weekStart, fileSettings?.weekStart, remembered?.weekStart, 'monday');
  const siteUrl = choose<string | undefined>(
    flags.siteUrl === undefined ? undefined : parseSiteUrl(flags.siteUrl),
    fileSettings?.siteUrl,
    remembered?.siteUrl,
    undefined,
  );
  const out = flags.out
    ? path.resolve(cwd, flags.out)
    : fileSettings?.out
      ? resolveIn(configFile!, fileSettings.out)
      : remembered?.out
        ? resolveIn(rememberedFile, remembered.out)
        : undefined;

  const settings: Settings = {
    home,
    explicitHome,
    dataDir,
    sourceOptions: {
      explicitHome: explicitHome ? 'true' : undefined,
      ...Object.fromEntries(SOURCE_PATH_KEYS.map((key) => [key, list(sources.values[key])])),
      assistants: sources.values.assistants,
    },
    get timeZone() {
      return (zone ??= resolveZone());
    },
    weekStart: weekStart.value,
    siteUrl: siteUrl.value,
    out,
    configFile,
    origin: { timeZone: timeZone.origin, weekStart: weekStart.origin, siteUrl: siteUrl.origin },
  };
  return settings;
}

/**
 * Records in the data directory what this run used, so the next `report`, `serve`, `search`… without flags
 * means the same days and the same sources. Call it after the data directory was written (collect made it).
 * Only what is known is written: a `collect` (no calendar flags) keeps the remembered zone.
 */
export async function rememberSettings(
  settings: Settings,
  used: { calendar?: boolean; out?: boolean } = {},
): Promise<void> {
  const file = path.join(settings.dataDir, REMEMBERED_FILE);
  const before = readSettingsFile(file, false, false) ?? {};
  const next: SettingsFile = { ...before };
  if (used.calendar) {
    next.tz = settings.timeZone;
    next.weekStart = settings.weekStart;
    if (settings.siteUrl) next.siteUrl = settings.siteUrl;
    else delete next.siteUrl;
  }
  if (used.out && settings.out) next.out = settings.out;
  for (const key of SOURCE_KEYS) delete next[key];
  if (settings.explicitHome) next.home = settings.home;
  const assistants = settings.sourceOptions.assistants;
  if (Array.isArray(assistants)) next.assistants = assistants;
  for (const key of SOURCE_PATH_KEYS) {
    const value = settings.sourceOptions[key];
    if (Array.isArray(value) && value.length > 0) next[key] = value;
  }
  const text = `${JSON.stringify(next, null, 2)}\n`;
  if (text !== `${JSON.stringify(before, null, 2)}\n`) await writeFileAtomic(file, text);
}

function resolveIn(file: string, p: string): string {
  return path.resolve(path.dirname(file), p);
}

/** Reads a settings file; `checkZone: false` leaves its time zone to be checked when it is used. */
function readSettingsFile(file: string, required: boolean, checkZone = true): SettingsFile | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (!required && (code === 'ENOENT' || code === 'ENOTDIR')) return undefined;
    if (code === 'ENOENT') throw new UsageError(`${file}: no such config file`);
    throw new UsageError(`${file}: cannot be read (${(error as Error).message})`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON (${(error as Error).message}); fix or delete it`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new UsageError(`${file}: expected a JSON object of settings`);
  }
  const settings = value as Record<string, unknown>;
  for (const [key, v] of Object.entries(settings)) {
    if (!SETTINGS_KEYS.includes(key as keyof SettingsFile)) {
      throw new UsageError(`${file}: unknown setting "${key}" (known: ${SETTINGS_KEYS.join(', ')})`);
    }
    const isList = Array.isArray(v) && v.every((x) => typeof x === 'string');
    if (key === 'assistants') {
      if (!isList) throw new UsageError(`${file}: "assistants" must be a list of assistant ids`);
      try {
        parseAssistants((v as string[]).join(','));
      } catch (error) {
        throw new UsageError(`${file}: ${(error as Error).message}`);
      }
      continue;
    }
    if (typeof v !== 'string' && !(isList && (SOURCE_PATH_KEYS as readonly string[]).includes(key))) {
      throw new UsageError(`${file}: "${key}" must be a string${isList ? '' : ' (or a list of strings for folders)'}`);
    }
  }
  const inFile = (check: () => unknown) => {
    try {
      check();
    } catch (error) {
      throw new UsageError(`${file}: ${(error as Error).message}`);
    }
  };
  if (settings.tz !== undefined && checkZone) checkZoneIn(file, settings.tz as string);
  if (settings.weekStart !== undefined && settings.weekStart !== 'monday' && settings.weekStart !== 'sunday') {
    throw new UsageError(`${file}: "weekStart" must be "monday" or "sunday"`);
  }
  if (settings.siteUrl !== undefined) inFile(() => (settings.siteUrl = parseSiteUrl(settings.siteUrl as string)));
  return settings as SettingsFile;
}

function checkZoneIn(file: string, zone: string): void {
  try {
    parseTimeZone(zone);
  } catch (error) {
    throw new UsageError(`${file}: ${(error as Error).message}`);
  }
}

/** Whether a data directory or config exists there (for messages). */
export function hasConfig(dataDir: string): boolean {
  return existsSync(path.join(dataDir, CONFIG_FILE));
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

/** `https://host/path` → `https://host/path/`; `/path` → `/path/`. Anything else is a usage error. */
export function parseSiteUrl(value: string): string {
  const withSlash = value.endsWith('/') ? value : `${value}/`;
  if (withSlash.startsWith('/') && !withSlash.startsWith('//')) return withSlash;
  let url: URL;
  try {
    url = new URL(withSlash);
  } catch {
    throw new InvalidArgumentError(`"${value}" is not a URL (e.g. https://me.github.io/logbook/ or /logbook/)`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new InvalidArgumentError(`"${value}" is not an http(s) URL`);
  }
  if (url.search || url.hash) throw new InvalidArgumentError(`"${value}": a site URL has no ?query or #fragment`);
  return url.href;
}

/** Shortens paths under the home directory to `~/…` for messages. */
export function displayPath(p: string, home: string): string {
  const rel = path.relative(home, p);
  if (rel === '') return '~';
  if (!rel.startsWith('..') && !path.isAbsolute(rel)) return `~/${rel}`;
  return p;
}

/** `p` relative to `base` when it is inside it, else as it is (for messages). */
export function relativeIfInside(base: string, p: string): string {
  const rel = path.relative(base, p);
  return rel === '' ? '.' : rel.startsWith('..') || path.isAbsolute(rel) ? p : rel;
}

/** A usage mistake found after parsing (exit code 2, like commander's own). */
export class UsageError extends Error {}

/** A failure whose message says all there is to say, what went wrong and what to do (exit code 1, one line,
 * no stack to ask for). */
export class FailureInWords extends Error {}

export interface CalendarFlags {
  tz?: string;
  weekStart?: WeekStart;
  siteUrl?: string;
}

/** --tz, --week-start, --site-url. No commander defaults: resolveSettings tells a given flag from a default. */
export function addCalendarOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--tz <zone>',
        'time zone for days and times, an IANA name (default: remembered, else the system zone)',
      ).argParser(parseTimeZone),
    )
    .addOption(
      new Option('--week-start <day>', 'first day of a week (default: remembered, else monday)').choices([
        'monday',
        'sunday',
      ]),
    )
    .addOption(
      new Option(
        '--site-url <url>',
        'where the site is published (https://host/path/ or /path/): links and base',
      ).argParser(parseSiteUrl),
    );
}

export function parseDay(value: string): string {
  if (!isDay(value)) throw new InvalidArgumentError(`"${value}" is not a day (YYYY-MM-DD)`);
  return value;
}

export function parseWeek(value: string): string {
  if (!isWeek(value)) throw new InvalidArgumentError(`"${value}" is not a week (YYYY-Www, e.g. 2026-W10)`);
  return value;
}
