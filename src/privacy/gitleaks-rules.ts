/**
 * gitleaks' provider rules (data in `gitleaks-rules.generated.ts`, made by `scripts/gen-gitleaks-rules.ts`)
 * as rules the redactor runs.
 */
import { GITLEAKS_DATA } from './gitleaks-rules.generated.ts';
import type { GitleaksData, RegexData, SecretRule } from './rule-types.ts';

export type { GitleaksData } from './rule-types.ts';

/** Where a gitleaks match may start before its keyword (`[\w.-]{0,50}?(?:name)[ \t\w.-]{0,20}…`, or a
 * keyword in the middle of a token). */
const LOOKBACK = 160;

/** Shannon entropy in bits per character, as gitleaks computes it. */
export function shannonEntropy(text: string): number {
  if (text.length === 0) return 0;
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

const compile = (r: RegexData): RegExp => new RegExp(r.source, r.flags);

function lineAround(text: string, start: number, end: number): string {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const to = text.indexOf('\n', end);
  return text.slice(from, to === -1 ? text.length : to);
}

export function gitleaksRules(data: GitleaksData = GITLEAKS_DATA): SecretRule[] {
  const globalRegexes = data.globalAllow.regexes.map(compile);
  const globalStopwords = data.globalAllow.stopwords;
  return data.rules.map((rule) => {
    const allow = (rule.allow ?? []).map((a) => ({ ...a, compiled: a.regexes.map(compile) }));
    return {
      id: rule.id,
      keywords: rule.keywords,
      pattern: new RegExp(rule.source, `${rule.flags}d`),
      ...(rule.anchored ? {} : { lookback: LOOKBACK }),
      secretGroup: rule.secretGroup ?? 0,
      accept: (secret, match, text) => {
        if (rule.entropy !== undefined && shannonEntropy(secret) < rule.entropy) return false;
        if (globalRegexes.some((r) => r.test(secret))) return false;
        const lower = secret.toLowerCase();
        if (globalStopwords.some((w) => lower.includes(w))) return false;
        for (const a of allow) {
          const target =
            a.target === 'match'
              ? match[0]
              : a.target === 'line'
                ? lineAround(text, match.index, match.index + match[0].length)
                : secret;
          if (a.compiled.some((r) => r.test(target))) return false;
          if (a.stopwords.length && a.stopwords.some((w) => lower.includes(w))) return false;
        }
        return true;
      },
    } satisfies SecretRule;
  });
}

/** Where the provider rules come from, for the README and `--help`. */
export const GITLEAKS_SOURCE = `${GITLEAKS_DATA.source}, ${GITLEAKS_DATA.rules.length} rules, from npm ${GITLEAKS_DATA.package} (${GITLEAKS_DATA.generated})`;
