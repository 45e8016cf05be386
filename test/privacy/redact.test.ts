import { describe, expect, it } from 'vitest';
import { createRedactor, redactionMarker, type Finding } from '../../src/privacy/redact.ts';
import { OWN_RULE_IDS, SECRET_RULE_IDS } from '../../src/privacy/secret-rules.ts';

// Fake secrets are assembled at run time (prefix + deterministic filler) so that this file holds no
// literal that GitHub push protection or a secret scanner would flag.
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const ALNUM = `${UPPER}abcdefghijklmnopqrstuvwxyz0123456789`;
const B64 = `${ALNUM}+/`;
const HEX = '0123456789abcdef';
let seed = 7;
function fill(alphabet: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) {
    seed = (seed * 48271) % 2147483647;
    out += alphabet[seed % alphabet.length];
  }
  return out;
}
const join = (...parts: string[]): string => parts.join('');
const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

interface Sample {
  name: string;
  /** The text around the secret; `%s` is where it goes. */
  context: string;
  secret: string;
  rule: string;
}

const pem = (label: string) =>
  join('-----BEGIN ', label, ' PRIVATE KEY-----\n', fill(B64, 64), '\n', fill(B64, 64), '\n', fill(B64, 20), '=\n') +
  join('-----END ', label, ' PRIVATE KEY-----');

const SAMPLES: Sample[] = [
  { name: 'RSA private key', context: 'cat id_rsa\n%s\ndone', secret: pem('RSA'), rule: 'private-key' },
  { name: 'OpenSSH private key', context: '%s', secret: pem('OPENSSH'), rule: 'private-key' },
  {
    name: 'private key inside a JSON string',
    context: '{"type": "service_account", "private_key": "%s"}',
    secret: join(
      '-----BEGIN PRIVATE KEY-----\\n',
      fill(B64, 64),
      '\\n',
      fill(B64, 30),
      '\\n-----END PRIVATE KEY-----\\n',
    ),
    rule: 'private-key',
  },
  {
    name: 'AWS access key id',
    context: 'aws_access_key_id = %s',
    secret: join('AK', 'IA', fill(UPPER + '234567', 16)),
    rule: 'aws-access-key',
  },
  {
    name: 'AWS temporary key id',
    context: '"AccessKeyId": "%s",',
    secret: join('AS', 'IA', fill(UPPER + '234567', 16)),
    rule: 'aws-access-key',
  },
  { name: 'AWS secret key (.env)', context: 'AWS_SECRET_ACCESS_KEY=%s', secret: fill(B64, 40), rule: 'aws-secret-key' },
  { name: 'AWS secret key (JSON)', context: '"SecretAccessKey": "%s"', secret: fill(B64, 40), rule: 'aws-secret-key' },
  {
    name: 'GitHub classic token',
    context: 'git push https://%s@github.com/o/r',
    secret: join('gh', 'p_', fill(ALNUM, 36)),
    rule: 'github-token',
  },
  { name: 'GitHub app token', context: 'token %s', secret: join('gh', 's_', fill(ALNUM, 36)), rule: 'github-token' },
  {
    name: 'GitHub fine-grained token',
    context: 'GH=%s',
    secret: join('github', '_pat_', fill(ALNUM, 22), '_', fill(ALNUM, 59)),
    rule: 'github-token',
  },
  {
    name: 'GitLab token',
    context: 'PRIVATE-TOKEN: %s',
    secret: join('glp', 'at-', fill(ALNUM, 20)),
    rule: 'gitlab-token',
  },
  {
    name: 'Anthropic key',
    context: 'export ANTHROPIC_API_KEY=%s',
    secret: join('sk-', 'ant-api03-', fill(ALNUM + '-_', 93), 'AA'),
    rule: 'anthropic-api-key',
  },
  {
    name: 'Anthropic OAuth token',
    context: '"accessToken":"%s"',
    secret: join('sk-', 'ant-oat01-', fill(ALNUM + '-_', 80)),
    rule: 'anthropic-api-key',
  },
  {
    name: 'OpenAI project key',
    context: 'OPENAI_API_KEY="%s"',
    secret: join('sk-', 'proj-', fill(ALNUM + '-_', 100)),
    rule: 'openai-api-key',
  },
  {
    name: 'OpenAI legacy key',
    context: 'key %s.',
    secret: join('sk-', fill(ALNUM, 20), 'T3Blbk', 'FJ', fill(ALNUM, 20)),
    rule: 'openai-api-key',
  },
  {
    name: 'Slack bot token',
    context: 'SLACK_BOT=%s',
    secret: join('xo', 'xb-', '123456789012-1234567890123-', fill(ALNUM, 24)),
    rule: 'slack-token',
  },
  {
    name: 'Slack webhook',
    context: 'curl -X POST https://hooks.slack.com/services/%s -d @msg.json',
    secret: join('T', fill(UPPER, 8), '/B', fill(UPPER, 8), '/', fill(ALNUM, 24)),
    rule: 'slack-webhook',
  },
  {
    name: 'Google API key',
    context: 'https://maps.googleapis.com/api/geocode/json?key=%s&address=x',
    secret: join('AI', 'za', fill(ALNUM + '-_', 35)),
    rule: 'google-api-key',
  },
  {
    name: 'Google OAuth client secret',
    context: 'client secret %s',
    secret: join('GOC', 'SPX-', fill(ALNUM, 28)),
    rule: 'google-oauth-secret',
  },
  {
    name: 'Google OAuth access token',
    context: 'Using %s',
    secret: join('ya', '29.', fill(ALNUM + '-_', 60)),
    rule: 'google-oauth-token',
  },
  {
    name: 'Stripe secret key',
    context: "stripe.api_key = '%s'",
    secret: join('sk', '_live_', fill(ALNUM, 24)),
    rule: 'stripe-key',
  },
  {
    name: 'Stripe webhook secret',
    context: 'signing secret is %s',
    secret: join('wh', 'sec_', fill(ALNUM, 32)),
    rule: 'stripe-key',
  },
  {
    name: 'JWT',
    context: 'cookie: session=%s; Path=/',
    secret: `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: '1234567890', name: 'A B', iat: 1516239022 })}.${fill(ALNUM + '-_', 43)}`,
    rule: 'jwt',
  },
  {
    name: 'npm token',
    context: '//registry.npmjs.org/:_authToken=%s',
    secret: join('np', 'm_', fill(ALNUM, 36)),
    rule: 'npm-token',
  },
  {
    name: 'Hugging Face token',
    context: 'huggingface-cli login --token %s',
    secret: join('h', 'f_', fill(ALNUM, 34)),
    rule: 'huggingface-token',
  },
  {
    name: 'SendGrid key',
    context: 'SENDGRID=%s',
    secret: join('S', 'G.', fill(ALNUM, 22), '.', fill(ALNUM, 43)),
    rule: 'sendgrid-api-key',
  },
  { name: 'Groq key', context: 'groq %s', secret: join('gs', 'k_', fill(ALNUM, 52)), rule: 'groq-api-key' },
  { name: 'Vault token', context: 'VAULT=%s', secret: join('hv', 's.', fill(ALNUM + '_-', 95)), rule: 'vault-token' },
  {
    name: 'DigitalOcean token',
    context: 'doctl auth init -t %s',
    secret: join('do', 'p_v1_', fill(HEX, 64)),
    rule: 'digitalocean-token',
  },
  {
    name: 'Docker token',
    context: 'echo %s | docker login',
    secret: join('dckr', '_pat_', fill(ALNUM, 27)),
    rule: 'docker-token',
  },
  {
    name: 'Shopify token',
    context: 'X-Shopify-Access: %s',
    secret: join('shp', 'at_', fill(HEX, 32)),
    rule: 'shopify-token',
  },
  {
    name: 'Databricks token',
    context: 'DATABRICKS=%s',
    secret: join('da', 'pi', fill(HEX, 32)),
    rule: 'databricks-token',
  },
  { name: 'Linear key', context: 'linear %s', secret: join('lin', '_api_', fill(ALNUM, 40)), rule: 'linear-api-key' },
  {
    name: 'Notion token',
    context: 'notion %s',
    secret: join('nt', 'n_', fill('0123456789', 11), fill(ALNUM, 35)),
    rule: 'notion-token',
  },
  {
    name: 'PyPI token',
    context: 'TWINE=%s',
    secret: join('pypi-', 'AgEIcHlwaS5vcmc', fill(ALNUM + '-_', 70)),
    rule: 'pypi-token',
  },
  {
    name: 'age key',
    context: '# key: %s',
    secret: join('AGE-SECRET', '-KEY-1', fill('QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', 58)),
    rule: 'age-secret-key',
  },
  {
    name: 'Azure storage key',
    context: 'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=%s;EndpointSuffix=core.windows.net',
    secret: `${fill(B64, 86)}==`,
    rule: 'azure-storage-key',
  },
  {
    name: 'URL credentials',
    context: 'git clone https://%s@example.com/repo.git',
    secret: 'alice:s3cr3t-Pass',
    rule: 'url-credentials',
  },
  {
    name: 'database URL',
    context: 'DATABASE_URL=postgres://%s@db.internal:5432/app',
    secret: 'app:pa55w0rd',
    rule: 'url-credentials',
  },
  {
    name: 'password with @ in a URL',
    context: 'redis://%s@cache:6379/0',
    secret: 'default:p@ss@word9',
    rule: 'url-credentials',
  },
  {
    name: 'bearer header',
    context: 'curl -H "Authorization: Bearer %s" https://api.example.com',
    secret: fill(ALNUM, 40),
    rule: 'bearer-token',
  },
  {
    name: 'basic auth header',
    context: 'Authorization: Basic %s',
    secret: Buffer.from('user:Pa55word!').toString('base64'),
    rule: 'bearer-token',
  },
  {
    name: '.env password',
    context: 'DB_PASSWORD=%s\nDB_HOST=localhost',
    secret: 'Tr0ub4dor&3x',
    rule: 'password-assignment',
  },
  {
    name: 'JSON password',
    context: '{"user": "admin", "password": "%s"}',
    secret: 'correct horse battery staple',
    rule: 'password-assignment',
  },
  {
    name: 'YAML secret',
    context: 'auth:\n  client_secret: %s\n  scope: read',
    secret: 'a8f3-Kq9z-77Lm',
    rule: 'password-assignment',
  },
  {
    name: 'Python keyword argument',
    context: "connect(host='db', password='%s')",
    secret: 'hunter2hunter2',
    rule: 'password-assignment',
  },
  {
    name: 'shell export',
    context: 'export MY_SERVICE_TOKEN=%s && run',
    secret: 'f00dfeedcafe1234',
    rule: 'password-assignment',
  },
  {
    name: 'typed TypeScript constant',
    context: 'const apiKey: string = "%s";',
    secret: 'k-29Xz81Qp',
    rule: 'password-assignment',
  },
  {
    name: 'command-line flag',
    context: 'mysql --user root --password %s db',
    secret: 'Sup3rS3cret',
    rule: 'password-assignment',
  },
  {
    name: 'JSON inside a JSON string',
    context: '"{\\"token\\": \\"%s\\"}"',
    secret: 'abcDEF123456',
    rule: 'password-assignment',
  },
  {
    name: 'connection string password',
    context: 'Server=db;User Id=sa;Password=%s;',
    secret: 'Y0urStr0ng!Pass',
    rule: 'password-assignment',
  },
  {
    name: 'query parameter',
    context: 'GET /cb?access_token=%s&state=1',
    secret: 'z9y8x7w6v5u4',
    rule: 'password-assignment',
  },
  { name: 'Ruby hash rocket', context: ':secret_key_base => "%s"', secret: fill(HEX, 64), rule: 'password-assignment' },
  {
    name: 'Azure SAS signature',
    context: 'https://acct.blob.core.windows.net/c/f.txt?sv=2022-11-02&ss=b&srt=o&sp=r&se=2026-01-01T00:00:00Z&sig=%s',
    secret: `${fill(ALNUM, 20)}%2B${fill(ALNUM, 22)}%3D`,
    rule: 'azure-sas-token',
  },
  {
    name: 'Discord bot token',
    context: 'client.login("%s")',
    secret: `${Buffer.from('112233445566778899').toString('base64')}.${fill(ALNUM, 6)}.${fill(ALNUM + '-_', 38)}`,
    rule: 'discord-bot-token',
  },
  {
    name: 'Telegram bot token',
    context: 'curl https://api.telegram.org/bot%s/getMe',
    secret: join('123456789', ':AA', fill(ALNUM + '-_', 33)),
    rule: 'telegram-bot-token',
  },
  { name: 'PGPASSWORD', context: 'PGPASSWORD=%s psql -h db -U app', secret: 'xK9!mQ2pL', rule: 'cli-password' },
  { name: 'mysql -p', context: 'mysql -h db -uroot -p%s shop < dump.sql', secret: 'S3cr3tPw', rule: 'cli-password' },
  { name: 'sshpass -p', context: "sshpass -p '%s' ssh pi@10.0.0.2", secret: 'rasp berry9', rule: 'cli-password' },
  {
    name: 'curl -u',
    context: 'curl -u %s https://api.example.com/v1',
    secret: 'admin:Adm1nPass',
    rule: 'cli-password',
  },
  {
    name: 'password in prose',
    context: 'The password is %s, do not share it.',
    secret: 'Tr0ub4dor&3',
    rule: 'password-phrase',
  },
  { name: 'password in Japanese prose', context: 'パスワードは%sです', secret: 'hunter2x', rule: 'password-phrase' },
  { name: 'password after a Japanese colon', context: 'パスワード：%s\n', secret: 'K7#pq!w9', rule: 'password-phrase' },
  { name: 'value starting with %', context: 'DB_PASSWORD=%s', secret: '%Tr0ub4dor', rule: 'password-assignment' },
  {
    name: 'AWS secret key in a sentence',
    context: 'My AWS secret access key is %s if you need it',
    secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEK1',
    rule: 'aws-secret-key',
  },
];

const NEAR_MISSES: string[] = [
  `commit ${fill(HEX, 40)}\nMerge: ${fill(HEX, 7)} ${fill(HEX, 7)}`,
  `${fill(HEX, 7)} fix: handle empty input (#42)`,
  `session 3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f and ${'3F2B8C1E-9D4A-4E7B-8C2D-1A2B3C4D5E6F'}`,
  `sha256 ${fill(HEX, 64)}  dist/app.tar.gz`,
  `image@sha256:${fill(HEX, 64)}`,
  `"integrity": "sha512-${fill(B64, 86)}=="`,
  `"resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz", "integrity": "sha1-${fill(B64, 27)}="`,
  `![screenshot](data:image/png;base64,${fill(B64, 60_000)}=)`,
  `data:image/jpeg;base64,${fill(B64, 8000)}`,
  `blob ${fill(B64, 4000)}==`,
  `${fill(ALNUM + '-_', 4000)}`,
  'Please reset your password and sign in again.',
  'Enter your password below. Passwords must match.',
  'The token count is 1234; token_count=1234; "input_tokens": 1234, "output_tokens": 56',
  'max_tokens=4096, max_tokens: 4096, MAX_TOKENS = 8192, token_limit=100000',
  'tokenizer = AutoTokenizer.from_pretrained("gpt2")',
  'password = getpass.getpass()',
  "password = os.environ['DB_PASSWORD']",
  "token = request.headers.get('X-Token')",
  'api_key = settings.API_KEY',
  'apiKey: process.env.OPENAI_API_KEY,',
  'secret: ${{ secrets.NPM_TOKEN }}',
  'password: <your password here>',
  'token: string;\npassword?: string;\nsecret: Buffer | null;',
  'def login(user: str, password: str) -> Token:',
  'Password: required',
  '**Password:** use the one from the vault',
  '- `token`: the API token to use',
  'bypass = true; compass = north; sort_key=name; primary_key: id; password_hash = bcrypt(pw)',
  'password=****** token=xxxxxxxx secret=[REDACTED]',
  'git@github.com:org/repo.git and https://user@example.com/x and ssh://git@host/repo',
  'http://localhost:3000/path?x=1 and https://example.com:8443/a@b',
  'pip install scikit-learn; task-1234; desk-lamp; risk-free; xoxo hugs',
  'header eyJhbGciOiJIUzI1NiJ9 alone',
  '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----',
  '-----BEGIN CERTIFICATE-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA\n-----END CERTIFICATE-----',
  'The PRIVATE KEY must never be committed.',
  'Bearer tokens are short-lived. Authorization: Bearer ${TOKEN}',
  'lodash@4.17.21 @types/node@20.19.0',
  'The password reset flow sends a link. The token count is 1200. The secret is in the vault.',
  'Your password is incorrect. The API key is stored in .env and the token was expired.',
  'パスワードを入力してください。パスワードは変更済みです。秘密鍵は ~/.ssh にあります。',
  'PWD=/home/alice/work/app OLDPWD=/home/alice',
  'mkdir -p build && mysql -p shop && docker login -u alice',
  'password: %(db_password)s and token=%TOKEN% and secret=$API_SECRET',
  `integrity sha512-${fill(B64, 86)}== and sig=abc`,
  'ask the task desk; want content and code, not this',
  // Discord-shaped: three dotted parts, but the first is not a user id in base64 (nor are versions and hashes).
  `${Buffer.from('12abcdefghijklmnop').toString('base64')}.${fill(ALNUM, 6)}.${fill(ALNUM, 30)}`,
  'node-v20.19.0-linux-x64.tar.xz, v1.2.3-beta.4+build.5678, 1.0.0.20240101.123456, Python 3.12.4',
  `${fill(HEX, 40)}.${fill(HEX, 6)}.${fill(HEX, 40)}`,
  `3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f.${fill(HEX, 6)}.${fill(HEX, 32)}`,
];

const sampleText = (s: Sample): string => s.context.replace('%s', s.secret);
const sampleExpected = (s: Sample): string => s.context.replace('%s', redactionMarker(s.rule));
const count = (text: string, needle: string): number => text.split(needle).length - 1;

describe('createRedactor', () => {
  const redactor = createRedactor();

  it('has a sample for every rule', () => {
    expect(new Set([...SAMPLES.map((s) => s.rule), 'twilio-api-secret'])).toEqual(new Set(OWN_RULE_IDS));
  });

  it.each(SAMPLES.map((s) => [s.name, s] as const))('redacts %s', (_name, sample) => {
    const input = sampleText(sample);
    const { text, findings } = redactor.redact(input);
    expect(text).toBe(sampleExpected(sample));
    expect(findings).toHaveLength(1);
    expect(findings[0]?.rule).toBe(sample.rule);
    expect(text).not.toContain(sample.secret);
  });

  it('reports positions in the input, and keeps key names, schemes and hosts', () => {
    const url = 'https://bob:Pa55word@example.com/x';
    const env = 'DB_PASSWORD=Tr0ub4dor&3x';
    const input = `${url}\n${env}`;
    const { text, findings } = redactor.redact(input);
    expect(findings.map((f) => input.slice(f.start, f.end))).toEqual(['bob:Pa55word', 'Tr0ub4dor&3x']);
    expect(text).toBe('https://[REDACTED:url-credentials]@example.com/x\nDB_PASSWORD=[REDACTED:password-assignment]');
  });

  it('merges overlapping findings into one marker, the more specific rule naming it', () => {
    const token = join('gh', 'p_', fill(ALNUM, 36));
    const cases: [string, string, string][] = [
      [`GITHUB_TOKEN=${token}`, 'GITHUB_TOKEN=[REDACTED:github-token]', 'github-token'],
      [
        `https://x-access-token:${token}@github.com/o/r`,
        'https://[REDACTED:url-credentials]@github.com/o/r',
        'url-credentials',
      ],
      [
        `Authorization: Bearer ${sampleText(SAMPLES.find((s) => s.rule === 'jwt')!).slice(16, -8)}`,
        'Authorization: Bearer [REDACTED:jwt]',
        'jwt',
      ],
    ];
    for (const [input, expected, rule] of cases) {
      const { text, findings } = redactor.redact(input);
      expect(text).toBe(expected);
      expect(findings.map((f) => f.rule)).toEqual([rule]);
    }
  });

  it('keeps adjacent secrets apart, in text order, never overlapping', () => {
    const a = join('AK', 'IA', fill(UPPER, 16));
    const b = join('gh', 'o_', fill(ALNUM, 36));
    const input = `${a} ${b}\n${a}`;
    const { text, findings } = redactor.redact(input);
    expect(text).toBe('[REDACTED:aws-access-key] [REDACTED:github-token]\n[REDACTED:aws-access-key]');
    expect(findings.map((f) => [f.rule, f.start, f.end])).toEqual([
      ['aws-access-key', 0, 20],
      ['github-token', 21, 61],
      ['aws-access-key', 62, 82],
    ]);
  });

  it('redacts a private key cut short (no END line) to the end of its body', () => {
    const input = `key:\n${pem('EC').split('\n').slice(0, 3).join('\n')}`;
    const { text, findings } = redactor.redact(input);
    expect(text).toBe('key:\n[REDACTED:private-key]');
    expect(findings).toHaveLength(1);
  });

  it.each(NEAR_MISSES.map((s) => [s.length > 70 ? `${s.slice(0, 70)}…` : s, s] as const))(
    'leaves %s unchanged',
    (_label, input) => {
      const { text, findings } = redactor.redact(input);
      expect(findings).toEqual([]);
      expect(text).toBe(input);
    },
  );

  it('redacts a Discord bot token in any position: alone, first, last, quoted, in a header, a URL, JSON', () => {
    const token = `${Buffer.from('987654321098765432').toString('base64')}.${fill(ALNUM, 6)}.${fill(ALNUM + '-_', 30)}`;
    const marker = redactionMarker('discord-bot-token');
    for (const context of [
      '%s',
      '%s is the token',
      'the token is %s',
      'Authorization: Bot %s',
      '{"token":"%s"}',
      'DISCORD_TOKEN=%s\n',
      'https://example.com/cb?t=%s&x=1',
      '`%s`',
      '(%s)',
    ]) {
      expect(redactor.redact(context.replace('%s', token)).text, context).toBe(context.replace('%s', marker));
    }
  });

  it('is idempotent: markers are never redacted again', () => {
    for (const sample of SAMPLES) {
      const once = redactor.redact(sampleText(sample)).text;
      expect(redactor.redact(once)).toEqual({ text: once, findings: [] });
    }
  });

  it('can leave rules out', () => {
    const only = createRedactor({ disable: ['password-assignment', 'password-phrase'] });
    expect(only.redact('password=hunter2hunter2').findings).toEqual([]);
    expect(only.redact(`x ${join('AK', 'IA', fill(UPPER, 16))}`).text).toBe('x [REDACTED:aws-access-key]');
  });

  it('redacts a field by its name (for JSON walked value by value)', () => {
    expect(redactor.redactValue('password', 'hunter2hunter2')).toEqual({
      text: '[REDACTED:password-assignment]',
      findings: [{ rule: 'password-assignment', start: 0, end: 14 }],
    });
    expect(redactor.redactValue('clientSecret', 'abc-123-xyz').text).toBe('[REDACTED:password-assignment]');
    expect(redactor.redactValue('GITHUB_TOKEN', 'some value 42').text).toBe('[REDACTED:password-assignment]');
    // A known token keeps its own marker.
    expect(redactor.redactValue('GITHUB_TOKEN', join('gh', 'p_', fill(ALNUM, 36))).text).toBe(
      '[REDACTED:github-token]',
    );
    expect(redactor.redactValue('private_key', `${pem('RSA')}\n`).text).toBe('[REDACTED:private-key]\n');
    // Not secret names, or not secret values: only what `redact` finds.
    expect(redactor.redactValue('max_tokens', '4096').text).toBe('4096');
    expect(redactor.redactValue('token_count', 'many tokens').text).toBe('many tokens');
    expect(redactor.redactValue('password', '${DB_PASSWORD}').text).toBe('${DB_PASSWORD}');
    expect(redactor.redactValue('description', 'password=Tr0ub4dor&3x').text).toBe(
      'password=[REDACTED:password-assignment]',
    );
  });

  it('redacts a Twilio key with its secret, and Postman and Vault tokens (gitleaks rules and ours)', () => {
    const sid = join('S', 'K', fill(HEX, 32));
    const secret = fill(ALNUM, 32);
    const pair = redactor.redact(`TWILIO key ${sid} secret ${secret}`);
    expect(pair.text).toBe('TWILIO key [REDACTED:twilio-api-key] secret [REDACTED:twilio-api-secret]');
    const postman = join('PM', 'AK-', fill(HEX, 24), '-', fill(HEX, 34));
    expect(redactor.redact(`postman ${postman} ok`).text).toBe('postman [REDACTED:postman-api-token] ok');
    const vault = join('hv', 's.', fill(ALNUM, 24));
    expect(redactor.redact(`export VAULT=${vault}`).text).toBe('export VAULT=[REDACTED:vault-token]');
  });

  it('redacts a 2 MB mixed transcript exactly', () => {
    const blocks: string[] = [];
    const expected: string[] = [];
    const markers = new Map<string, number>();
    let planted = 0;
    let length = 0;
    for (let i = 0; length < 2_000_000; i++) {
      const nearMiss = NEAR_MISSES[i % NEAR_MISSES.length]!;
      blocks.push(nearMiss);
      expected.push(nearMiss);
      length += nearMiss.length + 1;
      if (i % 3 === 0) {
        const sample = SAMPLES[(i / 3) % SAMPLES.length]!;
        blocks.push(sampleText(sample));
        length += sampleText(sample).length + 1;
        expected.push(sampleExpected(sample));
        markers.set(sample.rule, (markers.get(sample.rule) ?? 0) + 1);
        planted++;
      }
    }
    const input = blocks.join('\n');
    const { text, findings } = redactor.redact(input);
    expect(input.length).toBeGreaterThan(2_000_000);
    expect(findings).toHaveLength(planted);
    expect(text).toBe(expected.join('\n'));
    for (const [rule, n] of markers) expect(count(text, redactionMarker(rule))).toBe(n);
    for (const f of findings) expect(SECRET_RULE_IDS).toContain(f.rule);
    expect(isSortedAndDisjoint(findings)).toBe(true);
  });
});

function isSortedAndDisjoint(findings: Finding[]): boolean {
  return findings.every((f, i) => f.start < f.end && (i === 0 || findings[i - 1]!.end <= f.start));
}
