export interface AnonymizerOptions {
  /** The home directory of the user whose histories these are (`/Users/alice`, `C:\Users\alice`). */
  home: string;
  userName: string;
  hostName: string;
  /** More home directories to hide (another machine's, a second account). */
  extraHomes?: string[];
}

export interface Anonymizer {
  /** Home paths → `~`, the host name → `<host>`, the user name → `<user>`, e-mail addresses → `<email>`.
   * Idempotent. */
  anonymize(text: string): string;
}

export const USER_PLACEHOLDER = '<user>';
export const HOST_PLACEHOLDER = '<host>';
export const EMAIL_PLACEHOLDER = '<email>';

// Account names that identify nobody and are ordinary words: their home paths still become `~`,
// but the bare word is left alone (replacing every "user" or "test" would wreck the text).
const GENERIC_NAMES = new Set([
  'root',
  'admin',
  'administrator',
  'user',
  'users',
  'home',
  'ubuntu',
  'debian',
  'runner',
  'guest',
  'test',
  'dev',
  'developer',
  'default',
  'public',
  'shared',
  'codespace',
  'vscode',
  'node',
  'app',
  'ec2-user',
  'vagrant',
  'docker',
  'jenkins',
  'build',
  'host',
  'email',
]);
const GENERIC_HOSTS = new Set(['localhost', 'localhost.localdomain', 'local', 'host']);

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Claude Code names a project directory after its path with every non-alphanumeric made `-`. */
const dashed = (s: string): string => s.replace(/[^A-Za-z0-9]/g, '-');

// A user or host called `token` or `private` must not turn `[REDACTED:private-key]` into nonsense.
const NOT_IN_MARKER = String.raw`(?<!\[REDACTED:[a-z-]*)`;
// A path separator as it appears in text: `/`, `\`, `\\` (JSON-escaped), `%2F`, `%5C`.
const SEP = String.raw`(?:/|\\{1,2}|%2[Ff]|%5[Cc])`;
// After the user directory: the path goes on, or the text does; never more name characters.
const NAME_END = String.raw`(?![A-Za-z0-9_-]|\.[A-Za-z0-9])`;

export function createAnonymizer(options: AnonymizerOptions): Anonymizer {
  const homes = [options.home, ...(options.extraHomes ?? [])]
    .map((h) => h.replace(/[\\/]+$/, ''))
    .filter((h) => h.length > 1);
  const names = unique(
    [options.userName, ...homes.map((h) => h.split(/[\\/]/).pop() ?? '')].filter((n) => n.length >= 2),
  );
  const homePattern = buildHomePattern(homes, names);

  const hosts = unique(
    [options.hostName, options.hostName.split('.')[0] ?? ''].filter(
      (h) => h.length >= 3 && !GENERIC_HOSTS.has(h.toLowerCase()),
    ),
  ).sort((a, b) => b.length - a.length);
  const hostPattern = hosts.length
    ? new RegExp(`${NOT_IN_MARKER}(?<![<A-Za-z0-9_-])(?:${hosts.map(escapeRegex).join('|')})(?![>A-Za-z0-9_-])`, 'gi')
    : undefined;

  const words = names
    .filter((n) => n.length >= 3 && !GENERIC_NAMES.has(n.toLowerCase()))
    .sort((a, b) => b.length - a.length);
  const wordPattern = words.length
    ? new RegExp(
        `${NOT_IN_MARKER}(?<![<\\p{L}\\p{N}_])(?:${words.map(escapeRegex).join('|')})(?![>\\p{L}\\p{N}_])`,
        'giu',
      )
    : undefined;

  // Home paths, the host and the user all contain one of these: most text skips the three passes.
  const needles = unique([...names, ...names.map(dashed), ...hosts]);
  const anyNeedle = needles.length ? new RegExp(needles.map(escapeRegex).join('|'), 'i') : undefined;

  return {
    anonymize(text: string): string {
      if (text.length < 2) return text;
      let out = text.includes('@') ? replaceEmails(text) : text;
      if (!anyNeedle?.test(out)) return out;
      if (homePattern) out = replaceHomes(out, homePattern);
      if (hostPattern) out = out.replace(hostPattern, HOST_PLACEHOLDER);
      if (wordPattern) out = out.replace(wordPattern, USER_PLACEHOLDER);
      return out;
    },
  };
}

function unique<T>(items: T[]): T[] {
  return [...new Set(items)];
}

const DRIVE = String.raw`[A-Za-z](?::|%3[Aa])`;
const DRIVE_BEFORE = new RegExp(String.raw`(?<![A-Za-z0-9])(?:${DRIVE}|/mnt/[a-z])$`);
const DASHED_DRIVE_BEFORE = /(?<![A-Za-z0-9])[A-Za-z]-$/;

/**
 * Every alternative starts with a separator (or the `-` of the dashed form), so the regex engine only
 * stops at those characters; a drive letter (`C:`, `C%3A`, `/mnt/c`, dashed `C-`) in front of a match
 * is taken along by `replaceHomes`.
 */
function buildHomePattern(homes: string[], names: string[]): RegExp | undefined {
  const paths: string[] = [];
  const dashes: string[] = [];
  for (const home of homes) {
    const bare = home.replace(/^[A-Za-z]:/, '');
    for (const form of new Set([bare, encodeURIComponent(bare)])) {
      // Separators inside the home match any spelling of a separator.
      const source = escapeRegex(form)
        .replace(/\\\\|\//g, SEP)
        .replace(/%2F|%5C/gi, SEP);
      if (source.startsWith(SEP)) paths.push(source);
    }
    const dash = dashed(home).replace(/^[A-Za-z]-/, '');
    if (dash.startsWith('-')) dashes.push(escapeRegex(dash));
  }
  for (const name of names) {
    // /Users/name, /home/name, \Users\name, %2FUsers%2Fname…
    paths.push(String.raw`${SEP}(?:Users|home)${SEP}${escapeRegex(name)}`);
    dashes.push(String.raw`-(?:Users|home)-${escapeRegex(dashed(name))}`);
  }
  if (paths.length === 0) return undefined;
  const byLength = (a: string, b: string) => b.length - a.length;
  // In the dashed project-directory form the next `-` is the next separator: only a letter or digit
  // may not follow.
  return new RegExp(
    `(?:${paths.sort(byLength).join('|')})${NAME_END}|(?<dashed>(?:${dashes.sort(byLength).join('|')})(?![A-Za-z0-9]))`,
    'gi',
  );
}

function replaceHomes(text: string, pattern: RegExp): string {
  let out = '';
  let copied = 0;
  pattern.lastIndex = 0;
  let match: RegExpExecArray | null;
  while ((match = pattern.exec(text)) !== null) {
    let start = match.index;
    const before = text.slice(Math.max(copied, start - 8), start);
    const drive = (match.groups?.dashed ? DASHED_DRIVE_BEFORE : DRIVE_BEFORE).exec(before);
    if (drive) start -= drive[0].length;
    out += text.slice(copied, start) + '~';
    copied = match.index + match[0].length;
  }
  return copied === 0 ? text : out + text.slice(copied);
}

// E-mail addresses are found from their `@`: scanning for the local part from every position would
// cost up to 64 steps per character of a long base64 blob.
const LOCAL_CHAR = /[A-Za-z0-9._%+-]/;
const DOMAIN = /(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![A-Za-z0-9-])/y;

function replaceEmails(text: string): string {
  let out = '';
  let copied = 0;
  let at = text.indexOf('@');
  while (at !== -1) {
    let start = at;
    while (start > 0 && at - start < 65 && LOCAL_CHAR.test(text[start - 1] ?? '')) start--;
    while (start < at && text[start] === '.') start++;
    DOMAIN.lastIndex = at + 1;
    const domain = start < at && start >= copied && at - start <= 64 ? DOMAIN.exec(text) : null;
    const local = text.slice(start, at);
    if (domain && local !== 'git' && !/^\d+x\./i.test(domain[0])) {
      out += text.slice(copied, start) + EMAIL_PLACEHOLDER;
      copied = at + 1 + domain[0].length;
      at = text.indexOf('@', copied);
    } else {
      at = text.indexOf('@', at + 1);
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}
