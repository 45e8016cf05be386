/**
 * A generated corpus: many kinds of secret, each written with its context (a key name, a command, a
 * sentence), planted in every place a transcript has (prompt, answer, thinking, tool input, tool
 * output, session title, cwd) of real source files of all three assistants; then the real `build
 * --share` and `share` run and every output file (and its path) is searched. Near misses (hashes,
 * UUIDs, images, prose, paths) are planted beside them and must come out untouched.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { createQDatabase, type QState } from '../helpers/amazonq-db.ts';
import { RESULT_PAGE_CHARS } from '../../src/transcript/view-items.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';
import { decodeEntities } from '../helpers/html.ts';

// Fake secrets are made at run time from a seeded generator, so no secret-shaped literal is in git.
let seed = 20260601;
function fill(alphabet: string, n: number): string {
  let out = '';
  for (let i = 0; i < n; i++) {
    seed = (seed * 48271) % 2147483647;
    out += alphabet[seed % alphabet.length];
  }
  return out;
}
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGITS = '0123456789';
const ALNUM = UPPER + LOWER + DIGITS;
const HEX = '0123456789abcdef';
const B64 = `${ALNUM}+/`;
/** Random, but with upper case, lower case and a digit, as real keys have. */
const mixed = (n: number, alphabet = ALNUM): string => `A${fill(LOWER, 1)}7${fill(alphabet, n - 3)}`;

interface Planted {
  provider: string;
  /** The text written into the transcript. */
  text: string;
  /** What must not appear in the output. */
  secret: string;
}

/** One fresh secret of each kind, in its context. Token-shaped ones can also go into a path. */
function makeSecrets(): Array<Planted & { pathSafe: boolean }> {
  const list: Array<[string, (s: string) => string, string, boolean]> = [
    ['aws-access-key', (s) => `aws_access_key_id = ${s}`, `AKIA${fill(UPPER + '234567', 16)}`, true],
    ['aws-secret-env', (s) => `AWS_SECRET_ACCESS_KEY=${s}`, mixed(40, B64), false],
    ['aws-secret-prose', (s) => `and the AWS secret access key is ${s} for the CI user`, mixed(40, B64), false],
    ['github-pat', (s) => `export GITHUB_TOKEN=${s}`, `ghp_${mixed(36)}`, true],
    ['github-fine-grained', (s) => `token ${s}`, `github_pat_${mixed(22)}_${fill(ALNUM, 59)}`, true],
    ['gitlab-pat', (s) => `PRIVATE-TOKEN: ${s}`, `glpat-${mixed(20)}`, true],
    ['anthropic', (s) => `ANTHROPIC_API_KEY=${s}`, `sk-ant-api03-${mixed(93)}AA`, true],
    ['openai', (s) => `OPENAI_API_KEY="${s}"`, `sk-proj-${mixed(100, ALNUM + '-_')}`, true],
    ['slack-bot', (s) => `SLACK_BOT=${s}`, `xoxb-${fill(DIGITS, 12)}-${fill(DIGITS, 13)}-${mixed(24)}`, true],
    ['stripe', (s) => `stripe.api_key = '${s}'`, `sk_live_${mixed(24)}`, true],
    ['google-api', (s) => `?key=${s}&q=x`, `AIza${mixed(35, ALNUM + '-_')}`, true],
    ['sendgrid', (s) => `SENDGRID=${s}`, `SG.${mixed(22)}.${fill(ALNUM, 43)}`, true],
    ['npm', (s) => `//registry.npmjs.org/:_authToken=${s}`, `npm_${mixed(36)}`, true],
    ['huggingface', (s) => `huggingface-cli login --token ${s}`, `hf_${fill(UPPER + LOWER, 34)}`, true],
    ['vault-short', (s) => `VAULT_TOKEN=${s}`, `hvs.${mixed(24)}`, true],
    ['vault-long', (s) => `vault login ${s}`, `hvs.${mixed(95, ALNUM + '_-')}`, true],
    ['postman', (s) => `postman key ${s}`, `PMAK-${fill(HEX, 24)}-${fill(HEX, 34)}`, true],
    ['twilio-key', (s) => `twilio api key ${s}`, `SK${fill(HEX, 32)}`, true],
    ['twilio-secret', (s) => `TWILIO key SK${fill(HEX, 32)} secret ${s}`, mixed(32), false],
    [
      'discord-bot',
      (s) => `client.login("${s}")`,
      `${Buffer.from(fill('123456789', 18)).toString('base64')}.${mixed(6)}.${fill(ALNUM + '-_', 38)}`,
      true,
    ],
    ['telegram-bot', (s) => `TELEGRAM=${s}`, `${fill('123456789', 10)}:AA${mixed(33, ALNUM + '_-')}`, true],
    [
      'azure-sas',
      (s) => `https://acct.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&se=2026-01-01&sig=${s}`,
      `${mixed(20)}%2B${fill(ALNUM, 22)}%3D`,
      false,
    ],
    [
      'azure-storage',
      (s) => `DefaultEndpointsProtocol=https;AccountName=a;AccountKey=${s};EndpointSuffix=core.windows.net`,
      `${mixed(86, B64)}==`,
      false,
    ],
    ['digitalocean', (s) => `doctl auth init -t ${s}`, `dop_v1_${fill(HEX, 64)}`, true],
    ['shopify', (s) => `X-Shopify-Access-Token: ${s}`, `shpat_${fill(HEX, 32)}`, true],
    ['linear', (s) => `LINEAR=${s}`, `lin_api_${mixed(40)}`, true],
    ['doppler', (s) => `DOPPLER_TOKEN=${s}`, `dp.pt.${mixed(43)}`, true],
    ['databricks', (s) => `DATABRICKS_TOKEN=${s}`, `dapi${fill(HEX, 32)}`, true],
    ['pypi', (s) => `TWINE_PASSWORD=${s}`, `pypi-AgEIcHlwaS5vcmc${mixed(70, ALNUM + '-_')}`, true],
    ['grafana', (s) => `GRAFANA=${s}`, `glsa_${mixed(32)}_${fill(HEX, 8)}`, true],
    ['jwt', (s) => `Cookie: session=${s}`, jwt(), true],
    ['bearer', (s) => `curl -H "Authorization: Bearer ${s}" https://api.example.com`, mixed(40), true],
    ['postgres-url', (s) => `DATABASE_URL=postgres://app:${s}@db.internal:5432/app`, `Pg${mixed(14)}`, true],
    ['mongodb-srv', (s) => `mongodb+srv://admin:${s}@cluster0.example.mongodb.net/db`, `Mg${mixed(14)}`, true],
    ['redis-url', (s) => `redis://:${s}@cache:6379/0`, `Rd${mixed(14)}`, true],
    ['pgpassword', (s) => `PGPASSWORD=${s} psql -h db -U app`, `${mixed(12)}!`, false],
    ['mysql-p', (s) => `mysql -h db -uroot -p${s} shop < dump.sql`, mixed(12), true],
    ['sshpass', (s) => `sshpass -p '${s}' ssh pi@10.0.0.2`, `${mixed(10)}#x`, false],
    ['password-flag', (s) => `./deploy --password=${s} --env prod`, mixed(14), true],
    ['curl-user', (s) => `curl -u admin:${s} https://ci.example.com/api`, mixed(14), true],
    ['password-json', (s) => `{"user": "admin", "password": "${s}"}`, `${mixed(12)}&x`, false],
    ['password-yaml', (s) => `db:\n  password: ${s}\n  host: localhost`, mixed(14), true],
    ['password-prose', (s) => `The password is ${s}, do not share it.`, `${mixed(10)}&3`, false],
    ['password-prose-for', (s) => `the password for the staging db is "${s}"`, `${mixed(8)} ${mixed(6)}`, false],
    ['password-ja-wa', (s) => `パスワードは${s}です`, mixed(12), false],
    ['password-ja-colon', (s) => `パスワード：${s}\n`, `${mixed(9)}#!`, false],
    ['secret-ja', (s) => `APIキーは「${s}」です`, mixed(20), false],
    ['percent-value', (s) => `DB_PASSWORD=${s}`, `%${mixed(12)}`, false],
    ['dollar-value', (s) => `export REDIS_PASSWORD='${s}'`, `$${mixed(12)}`, false],
    ['connection-string', (s) => `Server=db;User Id=sa;Password=${s};`, `${mixed(12)}!`, false],
    ['private-key', (s) => `cat id_ed25519\n${s}\n`, pem(), false],
  ];
  return list.map(([provider, context, secret, pathSafe]) => ({ provider, text: context(secret), secret, pathSafe }));
}

function jwt(): string {
  const part = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: fill(DIGITS, 10), iat: 1516239022 })}.${fill(ALNUM + '-_', 43)}`;
}
function pem(): string {
  return `-----BEGIN OPENSSH PRIVATE KEY-----\n${fill(B64, 64)}\n${fill(B64, 64)}\n${fill(B64, 20)}=\n-----END OPENSSH PRIVATE KEY-----`;
}

/** Must come out exactly as they went in. */
function makeNearMisses(): string[] {
  return [
    `commit ${fill(HEX, 40)}`,
    `Merge ${fill(HEX, 7)} into ${fill(HEX, 7)}`,
    `session ${fill(HEX, 8)}-${fill(HEX, 4)}-4${fill(HEX, 3)}-8${fill(HEX, 3)}-${fill(HEX, 12)}`,
    `"integrity": "sha512-${fill(B64, 86)}=="`,
    `sha256 ${fill(HEX, 64)}`,
    `data:image/png;base64,${fill(B64, 240)}`,
    'The password reset flow sends a link that expires in an hour.',
    'The token count is 1234 and max_tokens is 4096.',
    'Please enter your password below; passwords must match.',
    'パスワードを忘れた場合はリセットしてください。',
    'See /srv/app/src/auth/token-store.ts and src/secrets/token.ts for details.',
    'the secret sauce is good caching',
    'password = getpass.getpass()',
    "api_key = os.environ['API_KEY']",
  ];
}

const PLACES = ['prompt', 'answer', 'thinking', 'tool input', 'tool output', 'title', 'cwd'] as const;
type Place = (typeof PLACES)[number];
type SourceName = 'claude-code' | 'codex' | 'amazon-q';

interface Plant extends Planted {
  source: SourceName;
  /** The session it is in (titles and working directories: none checked by `share`). */
  session?: string;
  place: Place;
}

const T0 = Date.parse('2026-06-01T10:00:00Z');
const iso = (s: number) => new Date(T0 + s * 1000).toISOString();

/** One session: prompt, answer, thinking, tool call and result each carry `texts[place]`. */
interface SessionSpec {
  id: string;
  title?: string;
  cwd: string;
  texts: Partial<Record<Place, string>>;
}

async function writeClaude(home: string, sessions: SessionSpec[]): Promise<void> {
  const dir = path.join(home, '.claude', 'projects', '-home-dev-work-corpus');
  await fs.mkdir(dir, { recursive: true });
  for (const [n, s] of sessions.entries()) {
    const common = { cwd: s.cwd, sessionId: s.id, isSidechain: false, version: '2.1.38' };
    const usage = { input_tokens: 10, output_tokens: 5 };
    const t = (k: number) => iso(n * 600 + k);
    const records: unknown[] = [];
    if (s.title) records.push({ type: 'custom-title', customTitle: s.title, sessionId: s.id });
    records.push(
      {
        ...common,
        type: 'user',
        uuid: `u${n}`,
        timestamp: t(0),
        message: { role: 'user', content: s.texts.prompt ?? 'hello' },
      },
      {
        ...common,
        type: 'assistant',
        uuid: `a${n}`,
        timestamp: t(5),
        message: {
          id: `msg${n}a`,
          role: 'assistant',
          model: 'm',
          usage,
          content: [
            { type: 'thinking', thinking: s.texts.thinking ?? 'thinking', signature: 's' },
            { type: 'tool_use', id: `call${n}`, name: 'Bash', input: { command: s.texts['tool input'] ?? 'ls' } },
          ],
        },
      },
      {
        ...common,
        type: 'user',
        uuid: `r${n}`,
        timestamp: t(6),
        toolUseResult: { stdout: s.texts['tool output'] ?? 'ok', stderr: '' },
        message: {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: `call${n}`, content: s.texts['tool output'] ?? 'ok' }],
        },
      },
      {
        ...common,
        type: 'assistant',
        uuid: `b${n}`,
        timestamp: t(9),
        message: {
          id: `msg${n}b`,
          role: 'assistant',
          model: 'm',
          usage,
          content: [{ type: 'text', text: s.texts.answer ?? 'Done.' }],
        },
      },
    );
    await fs.writeFile(path.join(dir, `${s.id}.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  }
}

async function writeCodex(home: string, sessions: SessionSpec[]): Promise<void> {
  const dir = path.join(home, '.codex', 'sessions', '2026', '06', '01');
  await fs.mkdir(dir, { recursive: true });
  const index: string[] = [];
  for (const [n, s] of sessions.entries()) {
    const t = (k: number) => iso(3600 + n * 600 + k);
    const prompt = s.texts.prompt ?? 'hello';
    const lines = [
      {
        timestamp: t(0),
        type: 'session_meta',
        payload: {
          id: s.id,
          timestamp: t(0),
          cwd: s.cwd,
          originator: 'codex_cli_rs',
          cli_version: '0.47.0',
          source: 'cli',
        },
      },
      {
        timestamp: t(1),
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] },
      },
      { timestamp: t(1), type: 'event_msg', payload: { type: 'user_message', message: prompt, kind: 'plain' } },
      {
        timestamp: t(2),
        type: 'turn_context',
        payload: { cwd: s.cwd, approval_policy: 'on-request', model: 'gpt-5-codex' },
      },
      {
        timestamp: t(3),
        type: 'response_item',
        payload: {
          type: 'reasoning',
          summary: [{ type: 'summary_text', text: s.texts.thinking ?? 'thinking' }],
          content: null,
        },
      },
      {
        timestamp: t(4),
        type: 'response_item',
        payload: {
          type: 'function_call',
          name: 'shell',
          arguments: JSON.stringify({ command: ['bash', '-lc', s.texts['tool input'] ?? 'ls'] }),
          call_id: `call_${n}`,
        },
      },
      {
        timestamp: t(5),
        type: 'response_item',
        payload: {
          type: 'function_call_output',
          call_id: `call_${n}`,
          output: JSON.stringify({ output: s.texts['tool output'] ?? 'ok', metadata: { exit_code: 0 } }),
        },
      },
      {
        timestamp: t(6),
        type: 'response_item',
        payload: {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: s.texts.answer ?? 'Done.' }],
        },
      },
    ];
    const stamp = t(0).slice(0, 19).replace(/:/g, '-');
    await fs.writeFile(
      path.join(dir, `rollout-${stamp}-${s.id}.jsonl`),
      `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
    );
    if (s.title) index.push(JSON.stringify({ id: s.id, thread_name: s.title, updated_at: t(6) }));
  }
  await fs.writeFile(path.join(home, '.codex', 'session_index.jsonl'), `${index.join('\n')}\n`);
}

async function writeAmazonQ(home: string, sessions: SessionSpec[]): Promise<void> {
  const conversations = sessions.map((s, n) => {
    const env = {
      env_state: { operating_system: 'linux', current_working_directory: s.cwd, environment_variables: [] },
    };
    const state: QState = {
      conversation_id: s.id,
      next_message: null,
      history: [
        [
          {
            additional_context: '',
            env_context: env,
            content: { Prompt: { prompt: s.texts.prompt ?? 'hello' } },
            images: null,
          },
          {
            ToolUse: {
              message_id: `q${n}-1`,
              content: 'Running it.',
              tool_uses: [
                {
                  id: `tooluse_${n}`,
                  name: 'execute_bash',
                  orig_name: 'execute_bash',
                  args: { command: s.texts['tool input'] ?? 'ls' },
                  orig_args: { command: s.texts['tool input'] ?? 'ls' },
                },
              ],
            },
          },
        ],
        [
          {
            additional_context: '',
            env_context: env,
            content: {
              ToolUseResults: {
                tool_use_results: [
                  {
                    tool_use_id: `tooluse_${n}`,
                    content: [{ Text: s.texts['tool output'] ?? 'ok' }],
                    status: 'Success',
                  },
                ],
              },
            },
            images: null,
          },
          { Response: { message_id: `q${n}-2`, content: s.texts.answer ?? 'Done.' } },
        ],
      ],
      valid_history_range: [0, 2],
      transcript: [],
      tools: {},
    };
    return { key: s.cwd, state };
  });
  await createQDatabase(path.join(home, '.local', 'share', 'amazon-q', 'data.sqlite3'), { conversations });
}

/** Output files as text, HTML entities decoded, with their paths (an id or slug can leak too). */
async function readOutput(target: string): Promise<string> {
  const files = (await fs.stat(target)).isFile()
    ? [target]
    : (await fs.readdir(target, { recursive: true })).map((rel) => path.join(target, rel));
  let text = '';
  for (const file of files) {
    if (!(await fs.stat(file)).isFile() || /\.(png|ico|woff2?|wasm|pf_(?!text)\w+)$/.test(file)) continue;
    text += `\n${path.relative(target, file)}\n${decodeEntities(await readText(file))}`;
  }
  return text;
}

/** A file's text; a gzip file's (a session's Markdown, the search box's page texts) decompressed. */
async function readText(file: string): Promise<string> {
  const bytes = await fs.readFile(file);
  return (bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8');
}

/** Whether the secret (or, for a long one, its first 20 characters: a cut preview) is in the output. */
function leaked(output: string, secret: string): boolean {
  const variants = [secret, JSON.stringify(secret).slice(1, -1)];
  if (secret.length >= 28 && !secret.includes('\n')) variants.push(secret.slice(0, 20));
  if (secret.includes('\n')) variants.push(secret.split('\n')[1]!);
  return variants.some((v) => output.includes(v));
}

let home: string;
let data: string;
const plants: Plant[] = [];
const nearMisses = makeNearMisses();
/** Per source, the sessions holding the secrets of the message places, each shared on its own by `share`. */
const sharedIds: Record<SourceName, string[]> = { 'claude-code': [], codex: [], 'amazon-q': [] };

beforeAll(async () => {
  home = await tempDir('redact-corpus');
  data = path.join(home, 'data');
  const bySource: Record<SourceName, SessionSpec[]> = { 'claude-code': [], codex: [], 'amazon-q': [] };
  let counter = 0;
  const newId = (source: SourceName) => {
    counter += 1;
    const tail = String(counter).padStart(12, '0');
    return source === 'codex'
      ? `019cb1a0-${String(counter).padStart(4, '0')}-7000-8000-${tail}`
      : `c0de0000-0000-4000-8000-${tail}`;
  };
  for (const source of Object.keys(bySource) as SourceName[]) {
    const places: Place[] =
      source === 'amazon-q'
        ? ['prompt', 'answer', 'tool input', 'tool output']
        : ['prompt', 'answer', 'thinking', 'tool input', 'tool output'];
    // The main session: every secret in every message place, with the near misses between them; but a tool's
    // output is shown on the page up to RESULT_PAGE_CHARS, so its secrets are spread over sessions of their
    // own, each output within what the page shows (else the share test would pass on secrets never shown).
    const main: SessionSpec = { id: newId(source), cwd: '/home/dev/work/corpus', texts: {} };
    sharedIds[source].push(main.id);
    bySource[source].push(main);
    for (const place of places) {
      const planted = makeSecrets().map((s, i) => ({ ...s, text: `${s.text}\n${nearMisses[i % nearMisses.length]}` }));
      if (place !== 'tool output') {
        for (const s of planted) plants.push({ ...s, source, place, session: main.id });
        main.texts[place] = planted.map((s) => s.text).join('\n\n');
        continue;
      }
      let group: typeof planted = [];
      const flush = () => {
        // A folder each: Amazon Q keeps one conversation per folder.
        const spec: SessionSpec = { id: newId(source), cwd: `/home/dev/work/corpus-${counter + 1}`, texts: {} };
        spec.texts[place] = group.map((s) => s.text).join('\n\n');
        for (const s of group) plants.push({ ...s, source, place, session: spec.id });
        sharedIds[source].push(spec.id);
        bySource[source].push(spec);
        group = [];
      };
      for (const s of planted) {
        const length = [...group, s].map((g) => g.text).join('\n\n').length;
        if (group.length > 0 && length > RESULT_PAGE_CHARS) flush();
        group.push(s);
      }
      flush();
    }
    // Titles (Amazon Q has none of its own) and working directories: token-shaped secrets, a few a session.
    const tokens = makeSecrets().filter((s) => s.pathSafe);
    for (let i = 0; i < tokens.length; i += 6) {
      const group = tokens.slice(i, i + 6);
      if (source !== 'amazon-q') {
        const title = `Rotate: ${group.map((g) => g.text.replace(/\s+/g, ' ')).join(' · ')}`;
        bySource[source].push({ id: newId(source), cwd: '/home/dev/work/titles', title, texts: {} });
        for (const g of group) plants.push({ ...g, source, place: 'title' });
      }
    }
    for (const s of makeSecrets()
      .filter((x) => x.pathSafe)
      .slice(0, 10)) {
      bySource[source].push({ id: newId(source), cwd: `/home/dev/work/${s.secret}`, texts: {} });
      plants.push({ ...s, text: s.secret, source, place: 'cwd' });
    }
  }
  await writeClaude(home, bySource['claude-code']);
  await writeCodex(home, bySource.codex);
  await writeAmazonQ(home, bySource['amazon-q']);
}, 60_000);

describe('redaction over a generated corpus, through the real CLI', () => {
  it('build --share and share leave no planted secret and touch no near miss', async () => {
    const out = path.join(home, 'shared-site');
    const build = await runCli(['build', '--share', '--home', home, '--data', data, '--out', out, '--tz', 'UTC']);
    expect(build.code, build.stderr).toBe(0);
    const site = await readOutput(out);
    const shared = new Map<string, string>();
    for (const id of Object.values(sharedIds).flat()) {
      const file = path.join(home, `${id}.html`);
      const run = await runCli(['share', id, '--no-collect', '--data', data, '--out', file, '--tz', 'UTC']);
      expect(run.code, run.stderr).toBe(0);
      shared.set(id, await readOutput(file));
    }
    // Every planted secret is on the personal site's page… (the corpus really reaches the output)
    const missed: string[] = [];
    let checked = 0;
    for (const p of plants) {
      checked += 1;
      if (leaked(site, p.secret)) missed.push(`build --share: ${p.source} ${p.place} ${p.provider}`);
    }
    for (const p of plants.filter((x) => x.session !== undefined && !['title', 'cwd'].includes(x.place))) {
      checked += 1;
      if (leaked(shared.get(p.session!)!, p.secret)) missed.push(`share: ${p.source} ${p.place} ${p.provider}`);
    }
    const recall = (checked - missed.length) / checked;
    console.log(
      `redaction corpus: recall ${(recall * 100).toFixed(2)} % (${checked - missed.length}/${checked} planted secrets redacted, ` +
        `${new Set(plants.map((p) => p.provider)).size} kinds × ${PLACES.length} places × 3 sources, build --share and share)`,
    );
    expect(missed, missed.join('\n')).toEqual([]);
    expect(recall).toBeGreaterThanOrEqual(0.99);

    const mains = Object.values(sharedIds).map((ids) => shared.get(ids[0]!)!);
    const touched = nearMisses.filter((n) => !site.includes(n) || mains.some((s) => !s.includes(n)));
    expect(touched, touched.join('\n')).toEqual([]);
    // The markers are there: the secrets were replaced, not dropped with their messages.
    expect(site).toContain('[REDACTED:password-phrase]');
    expect(mains[0]).toContain('[REDACTED:cli-password]');
  }, 300_000);

  it('the personal site over the same data shows the secrets (the corpus reaches the pages)', async () => {
    const out = path.join(home, 'personal-site');
    const build = await runCli(['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC']);
    expect(build.code, build.stderr).toBe(0);
    const site = await readOutput(out);
    const absent = plants.filter((p) => p.place !== 'cwd' && !site.includes(p.secret.split('\n')[0]!));
    expect(absent.map((p) => `${p.source} ${p.place} ${p.provider}`)).toEqual([]);
  }, 300_000);
});
