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
  /** The rule's pattern, sticky: tried only at a keyword. */
  sticky: RegExp;
}

const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function createRedactor(options: RedactorOptions = {}): Redactor {
  const disabled = new Set(options.disable ?? []);
  const rules = (options.rules ?? SECRET_RULES).filter((r) => !disabled.has(r.id));
  const compiled: CompiledRule[] = rules.map((rule, priority) => ({
    rule,
    priority,
    sticky: new RegExp(rule.pattern.source, `${rule.pattern.flags.replace(/[gy]/g, '')}y`),
  }));
  // One pass finds every keyword of every rule. A hit on `sk-ant-` is also a hit on `sk-`: each hit
  // runs the rules of every keyword that is a prefix of it.
  const keywords = [...new Set(compiled.flatMap((c) => c.rule.keywords.map((k) => k.toLowerCase())))].sort(
    (a, b) => b.length - a.length,
  );
  const rulesAt = new Map<string, CompiledRule[]>();
  for (const hit of keywords) {
    rulesAt.set(
      hit,
      compiled.filter((c) => c.rule.keywords.some((k) => hit.startsWith(k.toLowerCase()))),
    );
  }
  const trigger = keywords.length ? new RegExp(keywords.map(escapeRegex).join('|'), 'gi') : undefined;

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
      if (!trigger || text.length < MIN_SECRET_TEXT) return { text, findings: [] };
      const candidates: Candidate[] = [];
      // Where each rule's last match ended: a keyword inside it is not tried again, which keeps a run
      // of keywords (a grep listing key headers) from rescanning the same text.
      const coveredUntil = new Array<number>(compiled.length).fill(0);
      trigger.lastIndex = 0;
      let hit: RegExpExecArray | null;
      while ((hit = trigger.exec(text)) !== null) {
        const at = hit.index;
        for (const { rule, priority, sticky } of rulesAt.get(hit[0].toLowerCase()) ?? []) {
          if (at < coveredUntil[priority]!) continue;
          sticky.lastIndex = at;
          const match = sticky.exec(text);
          if (!match) continue;
          const [start, end] = secretSpan(match) ?? [at, at + match[0].length];
          if (end > start && (!rule.accept || rule.accept(text.slice(start, end), match, text))) {
            candidates.push({ rule: rule.id, start, end, priority });
            coveredUntil[priority] = at + match[0].length;
          }
        }
        // Keywords may overlap (`secret` inside `AGE-SECRET-KEY-1`): look again from the next character.
        trigger.lastIndex = at + 1;
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
