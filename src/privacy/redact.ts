import { KeywordIndex } from './keyword-index.ts';
import { isSecretKeyName, plausibleSecretValue, SECRET_RULES, secretSpan, type SecretRule } from './secret-rules.ts';

export interface Finding {
  rule: string;
  /** `[start, end)` in the input text. */
  start: number;
  end: number;
}

export interface RedactResult {
  text: string;
  findings: Finding[];
}

export interface Redactor {
  /** Replaces every secret with `[REDACTED:<rule>]`. Findings never overlap and are in text order. */
  redact(text: string): RedactResult;
  /** Redacts `value` as the value of a field named `key` (a JSON/YAML entry): when the name says it is a
   * secret (`password`, `apiKey`, `GITHUB_TOKEN`…) the whole value goes (under the marker of the one known
   * token it is, if it is one); otherwise whatever `redact` finds. */
  redactValue(key: string, value: string): RedactResult;
}

export interface RedactorOptions {
  /** The rule table (default: `SECRET_RULES`). */
  rules?: readonly SecretRule[];
  /** Rule ids to leave out. */
  disable?: readonly string[];
}

export const redactionMarker = (rule: string): string => `[REDACTED:${rule}]`;

const ASSIGNMENT_RULE = 'password-assignment';

// No rule matches fewer characters than this, so shorter strings skip the whole scan.
const MIN_SECRET_TEXT = 12;

interface Candidate extends Finding {
  priority: number;
}

interface CompiledRule {
  rule: SecretRule;
  priority: number;
  /** The rule's pattern, sticky: tried only at a keyword (rules without `lookback`). */
  sticky: RegExp;
  /** The rule's pattern, global: run over a window around a keyword (rules with `lookback`). */
  global: RegExp;
}

/** How far past its keyword a windowed rule's match may reach (then on to the next white space). */
const WINDOW_AHEAD = 640;

export function createRedactor(options: RedactorOptions = {}): Redactor {
  const disabled = new Set(options.disable ?? []);
  const rules = (options.rules ?? SECRET_RULES).filter((r) => !disabled.has(r.id));
  const compiled: CompiledRule[] = rules.map((rule, priority) => ({
    rule,
    priority,
    sticky: new RegExp(rule.pattern.source, `${rule.pattern.flags.replace(/[gy]/g, '')}y`),
    global: new RegExp(rule.pattern.source, `${rule.pattern.flags.replace(/[gy]/g, '')}g`),
  }));
  // One pass finds every keyword of every rule; each hit runs the rules that have that keyword.
  const anyCase = new Set<string>();
  const exact = new Set<string>();
  const rulesAt = new Map<string, CompiledRule[]>();
  for (const c of compiled) {
    for (const k of c.rule.keywords) {
      const word = c.rule.caseSensitive ? k : k.toLowerCase();
      (c.rule.caseSensitive ? exact : anyCase).add(word);
      const key = `${c.rule.caseSensitive ? 'E' : 'I'}${word}`;
      const list = rulesAt.get(key) ?? [];
      if (!list.includes(c)) list.push(c);
      rulesAt.set(key, list);
    }
  }
  const index = anyCase.size || exact.size ? new KeywordIndex(anyCase, exact) : undefined;

  const coveredStamp = new Uint32Array(compiled.length);
  const covered = new Float64Array(compiled.length);
  const scannedStamp = new Uint32Array(compiled.length);
  const scanned = new Float64Array(compiled.length);
  let calls = 0;

  const redactor: Redactor = {
    redactValue(key: string, value: string): RedactResult {
      const found = redactor.redact(value);
      if (disabled.has(ASSIGNMENT_RULE) || !isSecretKeyName(key) || !plausibleSecretValue(value)) return found;
      // A value that is one known token keeps that token's marker.
      const only = found.findings.length === 1 ? found.findings[0] : undefined;
      if (only && value.slice(0, only.start).trim() === '' && value.slice(only.end).trim() === '') return found;
      return {
        text: redactionMarker(ASSIGNMENT_RULE),
        findings: [{ rule: ASSIGNMENT_RULE, start: 0, end: value.length }],
      };
    },
    redact(text: string): RedactResult {
      if (!index || text.length < MIN_SECRET_TEXT) return { text, findings: [] };
      const hits = index.hits(text);
      if (hits.length === 0) return { text, findings: [] };
      const candidates: Candidate[] = [];
      // Where each rule's last match ended: a keyword inside it is not tried again, which keeps a run
      // of keywords (a grep listing key headers) from rescanning the same text.
      const call = ++calls;
      // Where each windowed rule's next possible match starts: a keyword before it finds nothing.
      // (Both per rule, kept across calls and valid when stamped with this call: most strings are short
      // and most hit no keyword, so nothing is allocated or cleared for them.)
      const coveredUntil = (p: number): number => (coveredStamp[p] === call ? covered[p]! : 0);
      const scannedUntil = (p: number): number => (scannedStamp[p] === call ? scanned[p]! : -1);
      const setCovered = (p: number, value: number): void => {
        coveredStamp[p] = call;
        covered[p] = value;
      };
      const consider = (c: CompiledRule, match: RegExpExecArray, offset: number): boolean => {
        const span = secretSpan(match, c.rule.secretGroup);
        const start = offset + (span ? span[0] : match.index);
        const end = offset + (span ? span[1] : match.index + match[0].length);
        if (end <= start || (c.rule.accept && !c.rule.accept(text.slice(start, end), match, text))) return false;
        candidates.push({ rule: c.rule.id, start, end, priority: c.priority });
        setCovered(c.priority, offset + match.index + match[0].length);
        return true;
      };
      // The rule's matches that start within `lookback` before the keyword, or at it; run over a window
      // (a cheap slice), so a keyword never costs a scan of the whole text.
      const windowed = (c: CompiledRule, at: number, lookback: number): void => {
        const from = Math.max(0, at - lookback, coveredUntil(c.priority));
        // A little text before the window, for the pattern's lookbehinds (`(?<=bot)`, `\b`).
        const context = Math.max(0, from - 32);
        const to = windowEnd(text, at + WINDOW_AHEAD);
        const window = text.slice(context, to);
        c.global.lastIndex = from - context;
        let match: RegExpExecArray | null;
        while ((match = c.global.exec(window)) !== null && context + match.index <= at) {
          // A match cut by the window's end (a pattern may end in `$`) is part of a longer token.
          const cut = match.index + match[0].length === window.length && TOKEN_CHAR.test(text[to] ?? ' ');
          if (!cut) consider(c, match, context);
          if (match[0].length === 0) c.global.lastIndex += 1;
        }
        // The regex finds the leftmost match: none starts before the next one (or, when there was
        // none, before the window's end less the longest token), so keywords up to there find nothing.
        scannedStamp[c.priority] = call;
        scanned[c.priority] = match ? context + match.index : to === text.length ? to : to - WINDOW_AHEAD / 2;
      };
      for (const hit of hits) {
        const at = hit.index;
        for (const c of rulesAt.get(`${hit.exact ? 'E' : 'I'}${hit.word}`) ?? []) {
          if (at < coveredUntil(c.priority)) continue;
          const lookback = c.rule.lookback;
          if (lookback === undefined) {
            c.sticky.lastIndex = at;
            const match = c.sticky.exec(text);
            if (match) consider(c, match, 0);
            continue;
          }
          if (at < scannedUntil(c.priority)) continue;
          windowed(c, at, lookback);
        }
      }
      if (candidates.length === 0) return { text, findings: [] };
      const findings = mergeOverlaps(candidates);
      let out = '';
      let copied = 0;
      for (const f of findings) {
        out += text.slice(copied, f.start) + redactionMarker(f.rule);
        copied = f.end;
      }
      return { text: out + text.slice(copied), findings };
    },
  };
  return redactor;
}

const TOKEN_CHAR = /[A-Za-z0-9_+/=.-]/;

/** Where a window that should reach `end` stops: at the next white space, so that a pattern ending in
 * `$` does not match a token cut in two (at most 4 KB further). */
function windowEnd(text: string, end: number): number {
  if (end >= text.length) return text.length;
  const limit = Math.min(text.length, end + 4096);
  for (let i = end; i < limit; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 32 || ch === 10 || ch === 9 || ch === 13) return i;
  }
  return limit;
}

/** Sorted by start; on equal starts the higher-priority rule first, then the longer match. Overlaps
 * merge into the first finding, which grows to cover both: never leave part of a secret behind. */
function mergeOverlaps(candidates: Candidate[]): Finding[] {
  candidates.sort((a, b) => a.start - b.start || a.priority - b.priority || b.end - a.end);
  const findings: Finding[] = [];
  let last: Finding | undefined;
  for (const c of candidates) {
    if (last && c.start < last.end) {
      if (c.end > last.end) last.end = c.end;
      continue;
    }
    last = { rule: c.rule, start: c.start, end: c.end };
    findings.push(last);
  }
  return findings;
}
