import { gitleaksRules } from './gitleaks-rules.ts';
import type { SecretRule } from './rule-types.ts';
import { hasDigitOrMixedCase, plausiblePhraseValue, plausibleSecretValue, randomLooking } from './secret-values.ts';

export { plausibleSecretValue } from './secret-values.ts';
export type { SecretRule } from './rule-types.ts';

/**
 * The secret rules the redactor runs: ours (`OWN_RULES`, below) first, then gitleaks' provider rules as
 * data (`gitleaks-rules.ts`). Ours are the context rules (assignments, prose in English and Japanese,
 * command-line passwords, URL credentials, a secret next to its key id) and the providers whose marker
 * reads better with the key name kept, modelled on two maintained rule sets (facts only: prefixes,
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

// A token must not be glued to other token characters on either side; `+`, `/` and `=` are left out
// so `KEY=AKIA…` and `/AKIA…/` still match.
const B = String.raw`(?<![A-Za-z0-9_-])`;
const E = String.raw`(?![A-Za-z0-9_-])`;

const rx = (source: string, flags = ''): RegExp => new RegExp(source, flags);

// `password=`, `"api_key": "…"`, `export GITHUB_TOKEN=…`, `secret_key: …`, `Password=…;` (ADO.NET),
// `\"token\": \"…\"` (JSON inside a JSON string), `?access_token=…&next=…` (a bare value stops at `&name=`).
// The key name stays; the value goes.
const ASSIGN_KEY_WORDS = String.raw`(?:pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key|auth[_-]?key)`;
const ASSIGN_KEY_SUFFIX = String.raw`(?:[_.-]?(?:key|value|base)){0,2}`;
const ASSIGN_KEY = `(?<key>${ASSIGN_KEY_WORDS})${ASSIGN_KEY_SUFFIX}`;
// `: Type =` (TypeScript, Python annotations) before `=`, so `token: string = "…"` is caught.
const ASSIGN_SEP = String.raw`\\?["']?[ \t]*(?<sep>:[ \t]*[A-Za-z_][\w.\[\]|, ]{0,40}?[ \t]*=(?!=)|=>|:=|:|=)[ \t]*`;
const ASSIGN_VALUE = String.raw`(?:\\"(?<secret1>[^"\\\r\n]+)|"(?<secret2>(?:[^"\\\r\n]|\\.)+)|'(?<secret3>[^'\r\n]+)|\x60(?<secret4>[^\x60\r\n]+)|(?<secret5>(?:[^\s"'\x60,;(){}<>\[\]\\&|]|&(?![A-Za-z_][\w.-]*=))+))`;
// `--password hunter2`, `--token=…` is the assignment shape above.
const FLAG_VALUE = String.raw`(?<=(?<![\w-])--)(?:pass(?:word|wd)?|token|secret|api[_-]?key|access[_-]?token|auth[_-]?token)[ \t]+(?:"(?<secret1>[^"\r\n]+)"|'(?<secret2>[^'\r\n]+)'|(?<secret3>[^\s"'\x60;|&<>()-][^\s"'\x60;|&<>()]*))`;

/** `https://x-access-token:…@host`: URL userinfo, the url-credentials rule's. */
function insideUrl(match: RegExpExecArray, text: string): boolean {
  const before = text.slice(Math.max(0, match.index - 256), match.index);
  const scheme = before.lastIndexOf('://');
  return scheme !== -1 && !/[\s/@]/.test(before.slice(scheme + 3));
}

function plausibleAssignedValue(value: string, match: RegExpExecArray, text: string): boolean {
  if (!plausibleSecretValue(value) || insideUrl(match, text)) return false;
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

/** `[start, end)` of the first participating `secret*` group, if the pattern has one; with
 * `secretGroup`, that numbered group (0: the first non-empty one). */
export function secretSpan(match: RegExpExecArray, secretGroup?: number): [number, number] | undefined {
  if (secretGroup !== undefined && match.indices) {
    if (secretGroup > 0) return match.indices[secretGroup];
    for (let i = 1; i < match.indices.length; i++) {
      const span = match.indices[i];
      if (span && span[1] > span[0]) return span;
    }
    return undefined;
  }
  const groups = match.indices?.groups;
  if (!groups) return undefined;
  for (const [name, span] of Object.entries(groups)) {
    if (span && name.startsWith('secret')) return span;
  }
  return undefined;
}

/** The first three base64 characters of every two-digit start of a decimal id ("10" … "99"). */
const DISCORD_PREFIXES: readonly string[] = Array.from({ length: 90 }, (_, i) =>
  Buffer.from(String(i + 10))
    .toString('base64')
    .slice(0, 3),
);

// A command-line value: quoted, or up to the next space or shell operator.
const CLI_VALUE = String.raw`(?:"(?<secret1>[^"\r\n]+)"|'(?<secret2>[^'\r\n]+)'|(?<secret3>[^\s"'\x60;|&<>()]+))`;

/** The rules written for this project: context rules and the providers gitleaks' list lacks or that read
 * better with the key name kept. */
export const OWN_RULES: readonly SecretRule[] = [
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
    keywords: ['hvs.', 'hvb.', 'hvr.'],
    // Service tokens are ~95 characters, but HCP and older servers hand out 24-character ones.
    pattern: rx(String.raw`${B}hv[sbr]\.[A-Za-z0-9_-]{24,}`),
    accept: hasDigitOrMixedCase,
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
    id: 'aws-secret-key',
    keywords: ['secret'],
    // In a sentence: "the AWS secret access key is …", "secret key: …", "secret = …" near a 40-character
    // key of AWS's alphabet.
    pattern: rx(
      String.raw`secret(?:[ _-]?access)?(?:[ _-]?key)?(?![A-Za-z])[^\n]{0,40}?(?<![A-Za-z0-9/+])(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
      'id',
    ),
    accept: randomLooking,
  },
  {
    id: 'aws-secret-key',
    keywords: ['AKIA', 'ASIA'],
    caseSensitive: true,
    // A key id followed on its line by a 40-character secret: `AKIA… / wJalr…`, "id AKIA…, secret …".
    pattern: rx(
      String.raw`(?:AKIA|ASIA)[A-Z0-9]{16}(?![A-Za-z0-9])[^\n]{0,100}?(?<![A-Za-z0-9/+])(?<secret>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])`,
      'd',
    ),
    accept: randomLooking,
  },
  {
    id: 'twilio-api-secret',
    keywords: ['SK'],
    caseSensitive: true,
    // A Twilio API key SID (gitleaks' twilio-api-key) followed on its line by its 32-character secret.
    pattern: rx(
      String.raw`(?<![A-Za-z0-9])SK[0-9a-fA-F]{32}(?![A-Za-z0-9])[^\n]{0,80}?(?<![A-Za-z0-9])(?<secret>[A-Za-z0-9]{32})(?![A-Za-z0-9])`,
      'd',
    ),
    accept: randomLooking,
  },
  {
    id: 'azure-sas-token',
    keywords: ['sig='],
    // The signature of a shared access signature URL or connection string (`…&sig=…%3D`).
    pattern: rx(
      String.raw`(?<![A-Za-z0-9_-])sig=(?<secret>(?:[A-Za-z0-9+/_-]|%[0-9A-Fa-f]{2}){30,}(?:=|%3[Dd]){0,2})`,
      'd',
    ),
  },
  {
    id: 'discord-bot-token',
    // The first part is a user id (17–20 digits) in base64, so it starts with one of 90 trigrams.
    keywords: DISCORD_PREFIXES,
    caseSensitive: true,
    pattern: rx(
      String.raw`(?<![A-Za-z0-9_.-])(?<uid>[MNO][A-Za-z0-9]{23,27})\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}(?![A-Za-z0-9_-])`,
    ),
    accept: (_token, match) => /^\d{17,20}$/.test(Buffer.from(match.groups?.uid ?? '', 'base64').toString('latin1')),
  },
  {
    id: 'telegram-bot-token',
    keywords: [':AA'],
    caseSensitive: true,
    lookback: 11,
    // After `/bot` in an API URL, or standing alone.
    pattern: rx(String.raw`(?:(?<=bot)|(?<![A-Za-z0-9_:]))\d{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])`),
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
  {
    id: 'cli-password',
    keywords: ['PGPASSWORD', 'MYSQL_PWD', 'REDISCLI_AUTH', 'SSHPASS', 'ORACLE_PWD', 'MSSQL_SA_PASSWORD'],
    // Environment variables the database and ssh clients read a password from.
    pattern: rx(
      String.raw`(?:PGPASSWORD|MYSQL_PWD|REDISCLI_AUTH|SSHPASS|ORACLE_PWD|MSSQL_SA_PASSWORD)[ \t]*=[ \t]*${CLI_VALUE}`,
      'id',
    ),
    accept: plausibleSecretValue,
  },
  {
    id: 'cli-password',
    keywords: ['mysql', 'mariadb'],
    // `mysql -uroot -pS3cret db`: a password glued to `-p` (a bare `-p` prompts for one).
    pattern: rx(String.raw`(?:mysql|mariadb)[\w-]*(?:[ \t]+[^\s|;&]+)*?[ \t]+-p${CLI_VALUE}`, 'd'),
    accept: plausibleSecretValue,
  },
  {
    id: 'cli-password',
    keywords: ['sshpass', 'redis-cli', 'docker', 'podman', 'helm', 'az '],
    // `sshpass -p …`, `redis-cli -a …`, `docker login -p …`, `helm repo add --password …`.
    pattern: rx(
      String.raw`(?:sshpass|redis-cli|(?:docker|podman|helm)(?:[ \t]+[\w-]+)?[ \t]+login|az[ \t]+login)(?:[ \t]+[^\s|;&]+)*?[ \t]+(?:-p|-a)[ \t]*${CLI_VALUE}`,
      'id',
    ),
    accept: plausibleSecretValue,
  },
  {
    id: 'cli-password',
    keywords: ['curl', 'wget'],
    // `curl -u user:pass`, `curl --user=user:pass`, `wget --password=…` is the assignment rule's.
    pattern: rx(String.raw`(?:curl|wget)(?:[ \t]+[^\s|;&]+)*?[ \t]+(?:-u|--user)(?:[ \t]+|=)?${CLI_VALUE}`, 'id'),
    accept: (value) =>
      /^[^:]*:.{3,}$/.test(value) &&
      plausibleSecretValue(value) &&
      plausibleSecretValue(value.slice(value.indexOf(':') + 1)),
  },
  {
    id: 'cli-password',
    keywords: ['-pass'],
    // openssl's `-passin pass:…` / `-passout pass:…` / `-pass pass:…`.
    pattern: rx(String.raw`-pass(?:in|out)?[ \t]+pass:${CLI_VALUE}`, 'd'),
    accept: plausibleSecretValue,
  },
  {
    id: 'password-phrase',
    keywords: [
      'password',
      'passwd',
      'passphrase',
      'passcode',
      'pwd',
      'pw ',
      'secret',
      'token',
      'api key',
      'api_key',
      'apikey',
    ],
    // Prose: "the password is hunter2", "my GitHub token was ghx…", "password for the db: S3cret!".
    pattern: rx(
      String.raw`(?<![A-Za-z])(?:pass(?:word|wd|phrase|code)|pwd|pw|secret|token|api[ _]?key)(?:[ \t]+(?:for|of|to|on)(?:[ \t]+[\w.@/-]{1,40}){1,4}?)?[ \t]*(?:(?:is|was|are|=|:)(?:[ \t]+(?:now|still|set[ \t]+to|just))?|(?:set|changed|reset)[ \t]+to)[ \t]*:?[ \t]*(?:"(?<secret1>[^"\r\n]{4,100})"|'(?<secret2>[^'\r\n]{4,100})'|\x60(?<secret3>[^\x60\r\n]{4,100})\x60|(?<secret4>(?:[^\s"'\x60,;&|<>(){}\[\]]|&(?![A-Za-z_][\w.-]*=)){4,100}))`,
      'id',
    ),
    accept: (value, match, text) => plausiblePhraseValue(value) && !insideUrl(match, text),
  },
  {
    id: 'password-phrase',
    keywords: [
      'パスワード',
      '暗証番号',
      '秘密鍵',
      '秘密',
      'シークレット',
      'トークン',
      'apiキー',
      'api キー',
      'アクセスキー',
      'パスフレーズ',
    ],
    // 「パスワードは hunter2 です」「パスワード：S3cret!」「トークンを abc… に変えた」: the value is the ASCII run
    // after the particle or colon.
    pattern: rx(
      String.raw`(?:パスワード|暗証番号|秘密鍵|秘密|シークレット|トークン|api[ ]?キー|アクセスキー|パスフレーズ)(?:[ \t　]*(?:は|が|を|も|：|:|=|＝)[ \t　]*)+(?:[「『"'\x60“][ \t]*)?(?<secret>[\x21-\x7e]{4,100}?)(?=[」』"'\x60”]|[\s　]|[^\x21-\x7e]|$)`,
      'id',
    ),
    accept: (value) => plausibleSecretValue(value) && !/^[.,;:!?)\]]/.test(value),
  },
];

/** Everything the redactor runs: our rules first (they name the marker when two start at one place),
 * then gitleaks' provider rules. */
export const SECRET_RULES: readonly SecretRule[] = [...OWN_RULES, ...gitleaksRules()];

/** The ids a marker can carry. */
export const SECRET_RULE_IDS: readonly string[] = [...new Set(SECRET_RULES.map((r) => r.id))];
export const OWN_RULE_IDS: readonly string[] = [...new Set(OWN_RULES.map((r) => r.id))];
