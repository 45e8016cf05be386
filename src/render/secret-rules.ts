/**
 * The secret rules the redactor runs, modelled on two maintained rule sets (facts only: prefixes,
 * lengths, alphabets, rule ids; the patterns are written for this project):
 * - gitleaks' default rules (cmd/generate/config/rules/*.go): private-key, aws-access-token,
 *   github-pat / -oauth / -app-token / -refresh-token / -fine-grained-pat, gitlab-pat, anthropic-api-key
 *   (+ admin, oauth), openai-api-key, slack-bot/user/app-token, slack-webhook-url, gcp-api-key,
 *   stripe-access-token, jwt, npm-access-token, huggingface-access-token, sendgrid-api-token,
 *   vault-service-token, digitalocean-pat, shopify-*, databricks-api-token, linear-api-key,
 *   pypi-upload-token, age-secret-key, azure-storage key, curl-auth-header, generic-api-key (its keywords
 *   became our password-assignment key names);
 * - secretlint's recommended preset (@secretlint/secretlint-rule-preset-recommend 12.0.0): aws (secret
 *   access key by key name), github, anthropic, openai, slack, npm, privatekey, basicauth and
 *   database-connection-string (URL userinfo), groq, huggingface, docker, notion, hashicorp-vault,
 *   shopify, sendgrid, linear, databricks.
 * Every pattern is linear-time (no nested unbounded quantifiers over overlapping classes), is bounded by
 * non-token characters instead of `\b` so that a token prefix inside a base64 blob does not match, and
 * narrows the redacted part to the secret itself (key names, URL schemes and hosts stay readable).
 *
 * Order is priority: when two findings start at the same place, the earlier rule names the marker.
 */

export interface SecretRule {
  /** Appears in the marker: `[REDACTED:<id>]`. */
  id: string;
  /**
   * Literals a match starts with, compared case-insensitively. The redactor finds all keywords of all
   * rules in one pass and tries a rule's pattern only where one of its keywords starts.
   */
  keywords: readonly string[];
  /**
   * Tried anchored (sticky) at a keyword. When it has named groups starting with `secret`, only the first
   * such group that participated is redacted (the pattern then needs the `d` flag); otherwise the whole
   * match.
   */
  pattern: RegExp;
  /** Last word on a match (placeholders, variable references, low-entropy values). */
  accept?: (secret: string, match: RegExpExecArray, text: string) => boolean;
}

// A token must not be glued to other token characters on either side; `+`, `/` and `=` are left out
// so `KEY=AKIA…` and `/AKIA…/` still match.
const B = String.raw`(?<![A-Za-z0-9_-])`;
const E = String.raw`(?![A-Za-z0-9_-])`;

const rx = (source: string, flags = ''): RegExp => new RegExp(source, flags);

// `password=`, `"api_key": "…"`, `export GITHUB_TOKEN=…`, `secret_key: …`, `Password=…;` (ADO.NET),
// `\"token\": \"…\"` (JSON inside a JSON string), `?access_token=…&next=…` (a bare value stops at `&name=`).
// The key name stays; the value goes.
const ASSIGN_KEY_WORDS = String.raw`(?:pass(?:word|wd|phrase)?|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key)`;
const ASSIGN_KEY_SUFFIX = String.raw`(?:[_.-]?(?:key|value|base)){0,2}`;
const ASSIGN_KEY = `(?<key>${ASSIGN_KEY_WORDS})${ASSIGN_KEY_SUFFIX}`;
// `: Type =` (TypeScript, Python annotations) before `=`, so `token: string = "…"` is caught.
const ASSIGN_SEP = String.raw`\\?["']?[ \t]*(?<sep>:[ \t]*[A-Za-z_][\w.\[\]|, ]{0,40}?[ \t]*=(?!=)|=>|:=|:|=)[ \t]*`;
const ASSIGN_VALUE = String.raw`(?:\\"(?<secret1>[^"\\\r\n]+)|"(?<secret2>(?:[^"\\\r\n]|\\.)+)|'(?<secret3>[^'\r\n]+)|\x60(?<secret4>[^\x60\r\n]+)|(?<secret5>(?:[^\s"'\x60,;(){}<>\[\]\\&|]|&(?![A-Za-z_][\w.-]*=))+))`;
// `--password hunter2`, `--token=…` is the assignment shape above.
const FLAG_VALUE = String.raw`(?<=(?<![\w-])--)(?:pass(?:word|wd)?|token|secret|api[_-]?key|access[_-]?token|auth[_-]?token)[ \t]+(?:"(?<secret1>[^"\r\n]+)"|'(?<secret2>[^'\r\n]+)'|(?<secret3>[^\s"'\x60;|&<>()-][^\s"'\x60;|&<>()]*))`;

const PLACEHOLDERS = new Set([
  'null',
  'none',
  'nil',
  'true',
  'false',
  'undefined',
  'string',
  'str',
  'bytes',
  'number',
  'int',
  'integer',
  'boolean',
  'bool',
  'any',
  'unknown',
  'object',
  'optional',
  'required',
  'redacted',
  'hidden',
  'masked',
  'example',
  'placeholder',
  'empty',
  'secret',
  'password',
  'token',
  'your_token',
  'your_password',
  'your_api_key',
  'your-api-key',
]);

/** False for values of secret-named fields that are not secrets: references, types, placeholders. */
export function plausibleSecretValue(value: string): boolean {
  if (value.length < 4) return false;
  if (/^(?:\$|%|\{\{|<|\[REDACTED|\*|\.\.\.|…|process\.env|os\.environ|env\.|ENV\[|getenv)/i.test(value)) return false;
  if (PLACEHOLDERS.has(value.toLowerCase())) return false;
  if (/^(.)\1*$/.test(value)) return false; // ****, xxxx
  if (/^\d{1,7}$/.test(value)) return false; // max_token=4096, pass: 12
  return true;
}

function plausibleAssignedValue(value: string, match: RegExpExecArray, text: string): boolean {
  if (!plausibleSecretValue(value)) return false;
  // `https://x-access-token:…@host` is URL userinfo, the url-credentials rule's.
  const before = text.slice(Math.max(0, match.index - 256), match.index);
  const scheme = before.lastIndexOf('://');
  if (scheme !== -1 && !/[\s/@]/.test(before.slice(scheme + 3))) return false;
  if (match.groups?.secret5 !== undefined) {
    // Unquoted: code rather than a literal?
    if (text[match.index + match[0].length] === '(') return false; // password = getPassword()
    if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+$/.test(value)) return false; // self.token, req.body.password
    // `Password: required` reads as prose; YAML secrets have digits, symbols, mixed case or length.
    if (match.groups.sep === ':' && /^[A-Za-z][a-z]*$/.test(value) && value.length < 12) return false;
  }
  return keyStartsAWord(match, text);
}

/** `db_password`, `dbPassword`, `DB_PASSWORD`, `"password"` yes; `bypass`, `MYPASSWORD` no. */
function keyStartsAWord(match: RegExpExecArray, text: string): boolean {
  const start = match.indices?.groups?.key?.[0];
  return start === undefined || startsAWord(text, start);
}

function startsAWord(text: string, start: number): boolean {
  const before = text[start - 1] ?? '';
  if (!/[A-Za-z0-9]/.test(before)) return true;
  return /[a-z0-9]/.test(before) && /[A-Z]/.test(text[start] ?? '');
}

const SECRET_KEY_NAME = new RegExp(`${ASSIGN_KEY_WORDS}${ASSIGN_KEY_SUFFIX}$`, 'i');

/** Whether a field of this name holds a secret: `password`, `client_secret`, `apiKey`, `GITHUB_TOKEN`… */
export function isSecretKeyName(name: string): boolean {
  const match = SECRET_KEY_NAME.exec(name);
  return match !== null && startsAWord(name, match.index);
}

/** `[start, end)` of the first participating `secret*` group, if the pattern has one. */
export function secretSpan(match: RegExpExecArray): [number, number] | undefined {
  const groups = match.indices?.groups;
  if (!groups) return undefined;
  for (const [name, span] of Object.entries(groups)) {
    if (span && name.startsWith('secret')) return span;
  }
  return undefined;
}

const hasDigitOrMixedCase = (s: string): boolean => /\d/.test(s) || (/[a-z]/.test(s) && /[A-Z]/.test(s));

export const SECRET_RULES: readonly SecretRule[] = [
  {
    id: 'private-key',
    keywords: ['-----BEGIN'],
    // Up to the END line, never past another BEGIN (so each character is scanned by one key at most);
    // a key cut short (no END) is redacted as far as its base64 body goes.
    pattern: rx(
      String.raw`-----BEGIN[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:(?:[^-]|-(?!----(?:END|BEGIN)))*-----END[ A-Z0-9]{0,40}PRIVATE KEY(?: BLOCK)?-----|(?:[A-Za-z0-9+/=:,. \t\r\n-]|\\[nrt])*)`,
    ),
  },
  {
    id: 'aws-access-key',
    keywords: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'],
    pattern: rx(String.raw`(?<![A-Za-z0-9])(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])`),
  },
  {
    id: 'github-token',
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    pattern: rx(String.raw`${B}(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})${E}`),
  },
  {
    id: 'gitlab-token',
    keywords: ['glpat-', 'gldt-', 'glrt-', 'glptt-'],
    pattern: rx(String.raw`${B}gl(?:pat|dt|rt|ptt)-[A-Za-z0-9_-]{20,}`),
  },
  {
    id: 'anthropic-api-key',
    keywords: ['sk-ant-'],
    pattern: rx(String.raw`${B}sk-ant-[a-z]{2,6}\d{2}-[A-Za-z0-9_-]{20,}`),
  },
  {
    id: 'openai-api-key',
    keywords: ['sk-'],
    // Project/service/admin keys, the legacy `T3BlbkFJ` shape, and any long `sk-` key (DeepSeek,
    // Moonshot… use the same shape).
    pattern: rx(
      String.raw`${B}sk-(?!ant-)(?:(?:proj|svcacct|admin|None)-[A-Za-z0-9_-]{20,}|[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|[A-Za-z0-9]{32,})${E}`,
    ),
  },
  {
    id: 'slack-token',
    keywords: ['xox', 'xapp-'],
    pattern: rx(String.raw`${B}(?:xox[abposre]|xapp)-[A-Za-z0-9-]{10,}`),
  },
  {
    id: 'slack-webhook',
    keywords: ['hooks.slack.com'],
    pattern: rx(String.raw`hooks\.slack\.com/(?:services|workflows|triggers)/(?<secret>[A-Za-z0-9+/_-]{20,})`, 'd'),
  },
  {
    id: 'google-api-key',
    keywords: ['AIza'],
    pattern: rx(String.raw`${B}AIza[A-Za-z0-9_-]{35}${E}`),
  },
  {
    id: 'google-oauth-secret',
    keywords: ['GOCSPX-'],
    pattern: rx(String.raw`${B}GOCSPX-[A-Za-z0-9_-]{28}${E}`),
  },
  {
    id: 'google-oauth-token',
    keywords: ['ya29.'],
    pattern: rx(String.raw`${B}ya29\.[A-Za-z0-9_-]{20,}`),
  },
  {
    id: 'stripe-key',
    keywords: ['sk_', 'rk_', 'whsec_'],
    pattern: rx(String.raw`${B}(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{10,247}|whsec_[A-Za-z0-9]{24,})${E}`),
  },
  {
    id: 'jwt',
    keywords: ['eyJ'],
    pattern: rx(String.raw`${B}eyJ[A-Za-z0-9_-]{8,}\.ey[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*`),
  },
  {
    id: 'npm-token',
    keywords: ['npm_'],
    pattern: rx(String.raw`${B}npm_[A-Za-z0-9]{36}${E}`),
  },
  {
    id: 'huggingface-token',
    keywords: ['hf_'],
    pattern: rx(String.raw`${B}hf_[A-Za-z0-9]{34,}${E}`),
  },
  {
    id: 'sendgrid-api-key',
    keywords: ['SG.'],
    pattern: rx(String.raw`${B}SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}${E}`),
  },
  {
    id: 'groq-api-key',
    keywords: ['gsk_'],
    pattern: rx(String.raw`${B}gsk_[A-Za-z0-9]{52}${E}`),
  },
  {
    id: 'vault-token',
    keywords: ['hvs.', 'hvb.'],
    pattern: rx(String.raw`${B}hv[sb]\.[A-Za-z0-9_-]{90,}`),
  },
  {
    id: 'digitalocean-token',
    keywords: ['dop_v1_', 'doo_v1_', 'dor_v1_'],
    pattern: rx(String.raw`${B}do[opr]_v1_[a-f0-9]{64}${E}`),
  },
  {
    id: 'docker-token',
    keywords: ['dckr_pat_'],
    pattern: rx(String.raw`${B}dckr_pat_[A-Za-z0-9_-]{27,}`),
  },
  {
    id: 'shopify-token',
    keywords: ['shpat_', 'shpca_', 'shppa_', 'shpss_'],
    pattern: rx(String.raw`${B}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32,64}${E}`),
  },
  {
    id: 'databricks-token',
    keywords: ['dapi'],
    pattern: rx(String.raw`${B}dapi[a-f0-9]{32}(?:-\d)?${E}`),
  },
  {
    id: 'linear-api-key',
    keywords: ['lin_api_'],
    pattern: rx(String.raw`${B}lin_api_[A-Za-z0-9]{40}${E}`),
  },
  {
    id: 'notion-token',
    keywords: ['ntn_'],
    pattern: rx(String.raw`${B}ntn_[0-9]{11}[A-Za-z0-9]{35}${E}`),
  },
  {
    id: 'pypi-token',
    keywords: ['pypi-'],
    pattern: rx(String.raw`${B}pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}`),
  },
  {
    id: 'age-secret-key',
    keywords: ['AGE-SECRET-KEY-1'],
    pattern: rx(String.raw`AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}`),
  },
  {
    id: 'azure-storage-key',
    keywords: ['AccountKey=', 'SharedAccessKey='],
    pattern: rx(String.raw`(?:AccountKey|SharedAccessKey)=(?<secret>[A-Za-z0-9+/=]{20,})`, 'id'),
  },
  {
    id: 'aws-secret-key',
    keywords: ['secret'],
    pattern: rx(
      String.raw`secret[_-]?access[_-]?key\\?["']?[ \t]*(?:=>|:=|:|=)[ \t]*\\?["']?(?<secret>[A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])`,
      'id',
    ),
  },
  {
    id: 'url-credentials',
    keywords: ['://'],
    // `scheme://user:password@host`: the userinfo goes, scheme and host stay. The password part may
    // hold a raw `@`; the greedy class backtracks to the last one before the path.
    pattern: rx(
      String.raw`(?<=[A-Za-z0-9])://(?<secret>[^\s:@/?#"'\x60<>\[\]{}|\\^]{0,256}:[^\s/?#"'\x60<>\[\]{}|\\^]{1,256})@`,
      'd',
    ),
  },
  {
    id: 'bearer-token',
    keywords: ['bearer', 'authorization'],
    pattern: rx(
      String.raw`(?:\bauthorization\\?["']?[ \t]*[:=][ \t]*\\?["']?[ \t]*(?:(?:bearer|basic|token|bot|digest)[ \t]+)?|\bbearer[ \t]+)(?<secret>[A-Za-z0-9._~+/=-]{12,})`,
      'id',
    ),
    accept: hasDigitOrMixedCase,
  },
  {
    id: 'password-assignment',
    keywords: ['pass', 'secret', 'token', 'api', 'access', 'private', 'auth'],
    pattern: rx(`${ASSIGN_KEY}${ASSIGN_SEP}${ASSIGN_VALUE}`, 'id'),
    accept: plausibleAssignedValue,
  },
  {
    id: 'password-assignment',
    keywords: ['pass', 'token', 'secret', 'api', 'access', 'auth'],
    pattern: rx(FLAG_VALUE, 'id'),
    accept: plausibleSecretValue,
  },
];

/** The ids a marker can carry. */
export const SECRET_RULE_IDS: readonly string[] = SECRET_RULES.map((r) => r.id);
