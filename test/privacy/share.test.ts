import { describe, expect, it } from 'vitest';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { Session, SessionSummary } from '../../src/model/session.ts';
import { createAnonymizer } from '../../src/privacy/anonymize.ts';
import { renderMarkdown } from '../../src/transcript/markdown.ts';
import { createRedactor } from '../../src/privacy/redact.ts';
import { OMITTED_NOTES, shareSession, shareSummary, type OmitPart } from '../../src/privacy/share.ts';

// Assembled at run time so the file itself holds nothing a secret scanner would flag.
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
let seed = 11;
const fill = (n: number, alphabet = ALNUM): string => {
  let out = '';
  for (let i = 0; i < n; i++) {
    seed = (seed * 48271) % 2147483647;
    out += alphabet[seed % alphabet.length];
  }
  return out;
};
const b64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

const S = {
  github: ['gh', 'p_', fill(36)].join(''),
  aws: ['AK', 'IA', fill(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')].join(''),
  awsSecret: fill(40, `${ALNUM}+/`),
  anthropic: ['sk-', 'ant-api03-', fill(93), 'AA'].join(''),
  openai: ['sk-', 'proj-', fill(60)].join(''),
  slack: ['xo', 'xb-', '123456789012-1234567890123-', fill(24)].join(''),
  jwt: `${b64url({ alg: 'HS256', typ: 'JWT' })}.${b64url({ sub: 'x', iat: 1 })}.${fill(43)}`,
  password: 'Tr0ub4dor-3x-horse',
  dbPassword: 'pa55-W0rd-db',
  apiKey: 'k29-Xz81Qp-77',
  subagent: ['np', 'm_', fill(36)].join(''),
  pem: ['-----BEGIN OPENSSH PRIVATE KEY-----', fill(64), fill(40), '-----END OPENSSH PRIVATE KEY-----'].join('\n'),
};
const PLANTED = Object.values(S);
const IDENTITY = ['/Users/alice', 'alice', 'alices-mbp', 'a.wong@corp.example', '-Users-alice'];
const PNG = `data:image/png;base64,${fill(400, `${ALNUM}+/`)}`;

function message(id: string, fields: Partial<NormalizedMessage>): NormalizedMessage {
  return {
    id,
    timestamp: `2025-01-01T00:00:0${id.length % 10}.000Z`,
    role: 'assistant',
    source_type: 'message',
    segments: [],
    raw: {
      event_type: 'assistant',
      file_path: '/Users/alice/.claude/projects/-Users-alice-code-app/s1.jsonl',
      line_index: 1,
    },
    ...fields,
  };
}

function plantedSession(): Session {
  const responseText = `Done. I used \`${S.anthropic}\` in **/Users/alice/code/app**. Thanks alice!`;
  const args = {
    command: `curl -H 'Authorization: Bearer ${S.jwt}' https://api.example.org`,
    env: { DB_PASSWORD: S.dbPassword, HOME: '/Users/alice' },
  };
  const output = `$ cat /Users/alice/code/app/.env\nAWS_SECRET_ACCESS_KEY=${S.awsSecret}\nDATABASE_URL=postgres://app:${S.dbPassword}@db/app`;
  return {
    source: 'claude-code',
    sessionId: '3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f',
    title: `Fix login for alice with ${S.github}`,
    cwd: '/Users/alice/code/app',
    gitBranch: 'alice/fix-login',
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T01:00:00.000Z',
    models: ['claude-sonnet-4-5'],
    files: ['/Users/alice/.claude/projects/-Users-alice-code-app/s1.jsonl'],
    warnings: [`line 9 of /Users/alice/.claude/x.jsonl: bad JSON near token=${S.apiKey}`],
    messages: [
      message('m1', {
        role: 'user',
        metadata: { kind: 'prompt', cwd: '/Users/alice/code/app' },
        segments: [
          {
            channel: 'input',
            type: 'text',
            format: 'text',
            text: `Use key ${S.aws} and password=${S.password}; repo /Users/alice/code/app, mail a.wong@corp.example`,
          },
          {
            channel: 'input',
            type: 'image',
            format: 'image',
            media: { media_type: 'image/png', data_uri: PNG, url: 'file:///Users/alice/shot.png', size_bytes: 300 },
          },
        ],
      }),
      message('m2', {
        metadata: { kind: 'response', model: 'claude-sonnet-4-5' },
        segments: [
          { channel: 'output', type: 'text', format: 'thinking', text: `Slack token ${S.slack} on alices-mbp` },
          { channel: 'output', type: 'text', format: 'text', text: responseText, html: renderMarkdown(responseText) },
        ],
      }),
      message('m3', {
        source_type: 'tool_call',
        tool_call: {
          call_id: 'toolu_01',
          name: 'Bash',
          status: 'completed',
          arguments: JSON.stringify(args, null, 2),
          arguments_json: args,
          result_id: 'm4',
        },
      }),
      message('m4', {
        role: 'tool',
        source_type: 'tool_result',
        segments: [
          { channel: 'output', type: 'image', format: 'image', media: { media_type: 'image/png', data_uri: PNG } },
        ],
        tool_call: {
          call_id: 'toolu_01',
          name: 'unknown',
          status: 'completed',
          output,
          output_json: { stdout: output, file: { filePath: '/Users/alice/code/app/.env' } },
        },
      }),
      message('m5', {
        source_type: 'tool_call',
        // Codex writes the arguments as it got them: compact JSON, no arguments_json.
        tool_call: {
          call_id: 'call_2',
          name: 'shell',
          status: 'completed',
          arguments: JSON.stringify({
            cmd: ['bash', '-lc', `export OPENAI_API_KEY=${S.openai}`],
            workdir: '/Users/alice/code',
          }),
        },
      }),
      message('m6', {
        role: 'meta',
        source_type: 'meta',
        raw: {
          event_type: 'mystery',
          file_path: '/Users/alice/.codex/sessions/x.jsonl',
          line_index: 6,
          record: { type: 'mystery', payload: { api_key: S.apiKey, key: S.pem, path: '/home/alice/x' } },
        },
      }),
    ],
    subagents: [
      {
        agentId: 'a1',
        agentType: 'general-purpose',
        description: 'Look at /Users/alice/code/app',
        parentCallId: 'toolu_01',
        file: '/Users/alice/.claude/projects/-Users-alice-code-app/s1/subagents/agent-a1.jsonl',
        messages: [
          message('s1', {
            role: 'user',
            metadata: { kind: 'prompt' },
            segments: [{ channel: 'input', type: 'text', format: 'text', text: `npm token ${S.subagent}` }],
          }),
        ],
      },
    ],
  };
}

// Every planted secret, by where it sits, and the markers it yields. Secrets inside tool input show
// twice (the JSON and the JSON text rebuilt from it).
const EXPECTED_MARKERS: Record<string, number> = {
  'github-token': 1, // title
  'password-assignment': 1 + 1 + 2 + 1, // warning, prompt, tool input DB_PASSWORD (×2), raw.record api_key
  'aws-access-key': 1, // prompt
  'slack-token': 1, // thinking
  'anthropic-api-key': 1, // answer text (the HTML shows the same text)
  jwt: 2, // tool input command (×2)
  'aws-secret-key': 2, // tool output, output_json.stdout
  'url-credentials': 2, // tool output, output_json.stdout
  'openai-api-key': 1, // Codex arguments text
  'private-key': 1, // raw.record
  'npm-token': 1, // subagent prompt
};

const options = () => ({
  redactor: createRedactor(),
  anonymizer: createAnonymizer({ home: '/Users/alice', userName: 'alice', hostName: 'alices-mbp.local' }),
});

const count = (text: string, needle: string): number => text.split(needle).length - 1;

function assertNothingLeaks(json: string): void {
  for (const secret of PLANTED) expect(json).not.toContain(secret);
  for (const part of IDENTITY) expect(json.toLowerCase()).not.toContain(part.toLowerCase());
  expect(json).not.toContain('data:image');
}

describe('shareSession', () => {
  it('redacts and anonymizes every string a page can show', () => {
    const { session, redactions } = shareSession(plantedSession(), options());
    const json = JSON.stringify(session);
    assertNothingLeaks(json);
    const markers = Object.values(EXPECTED_MARKERS).reduce((a, b) => a + b, 0);
    // The answer's marker appears in its text and its HTML.
    expect(count(json, '[REDACTED:')).toBe(markers + 1);
    for (const [rule, n] of Object.entries(EXPECTED_MARKERS)) {
      const inHtml = rule === 'anthropic-api-key' ? 1 : 0;
      expect(count(json, `[REDACTED:${rule}]`), rule).toBe(n + inHtml);
    }
    // The tool input text rebuilt from its redacted JSON is not counted a second time.
    expect(redactions).toBe(markers - 2);
  });

  it('keeps the structure and what is not personal', () => {
    const original = plantedSession();
    const { session } = shareSession(original, options());
    expect(session.sessionId).toBe(original.sessionId);
    expect(session.messages.map((m) => m.id)).toEqual(original.messages.map((m) => m.id));
    expect(session.title).toBe('Fix login for <user> with [REDACTED:github-token]');
    expect(session.cwd).toBe('~/code/app');
    expect(session.gitBranch).toBe('<user>/fix-login');
    expect(session.files).toEqual(['~/.claude/projects/~-code-app/s1.jsonl']);
    expect(session.messages[0]?.segments[0]?.text).toBe(
      'Use key [REDACTED:aws-access-key] and password=[REDACTED:password-assignment]; repo ~/code/app, mail <email>',
    );
    expect(session.messages[0]?.metadata).toEqual({ kind: 'prompt', cwd: '~/code/app' });
    expect(session.messages[1]?.metadata).toEqual({ kind: 'response', model: 'claude-sonnet-4-5' });
    expect(session.subagents[0]?.description).toBe('Look at ~/code/app');
    expect(session.subagents[0]?.agentType).toBe('general-purpose');
  });

  it('renders the HTML again from the redacted text, placeholders shown as text', () => {
    const { session } = shareSession(plantedSession(), options());
    const answer = session.messages[1]?.segments[1];
    expect(answer?.text).toBe('Done. I used `[REDACTED:anthropic-api-key]` in **~/code/app**. Thanks <user>!');
    expect(answer?.html).toBe(
      '<p>Done. I used <code>[REDACTED:anthropic-api-key]</code> in <strong>~/code/app</strong>. Thanks &lt;user&gt;!</p>\n',
    );
    // Segments that had no HTML get none.
    expect(session.messages[0]?.segments[0]?.html).toBeUndefined();
  });

  it('rebuilds tool input JSON text from the redacted JSON, and keeps other JSON text valid', () => {
    const { session } = shareSession(plantedSession(), options());
    const call = session.messages[2]?.tool_call;
    expect(call?.arguments).toBe(JSON.stringify(call?.arguments_json, null, 2));
    expect(call?.arguments_json).toEqual({
      command: "curl -H 'Authorization: Bearer [REDACTED:jwt]' https://api.example.org",
      env: { DB_PASSWORD: '[REDACTED:password-assignment]', HOME: '~' },
    });
    expect(JSON.parse(session.messages[4]?.tool_call?.arguments ?? '')).toEqual({
      cmd: ['bash', '-lc', 'export OPENAI_API_KEY=[REDACTED:openai-api-key]'],
      workdir: '~/code',
    });
    expect(session.messages[3]?.tool_call?.output).toBe(
      '$ cat ~/code/app/.env\nAWS_SECRET_ACCESS_KEY=[REDACTED:aws-secret-key]\nDATABASE_URL=postgres://[REDACTED:url-credentials]@db/app',
    );
  });

  it('drops image data (pixels cannot be redacted) but says so', () => {
    const { session } = shareSession(plantedSession(), options());
    expect(session.messages[0]?.segments[1]?.media).toEqual({
      media_type: 'image/png',
      url: 'file://~/shot.png',
      size_bytes: 300,
      omitted: OMITTED_NOTES.image,
    });
    expect(session.messages[3]?.segments[0]?.media?.data_uri).toBeUndefined();
  });

  it('does not touch the session it was given', () => {
    const original = plantedSession();
    const before = structuredClone(original);
    shareSession(original, { ...options(), omit: new Set<OmitPart>(['thinking', 'tool-output', 'tool-input']) });
    expect(original).toEqual(before);
  });

  it('omits thinking, tool output and tool input on request, with a note', () => {
    const omit = new Set<OmitPart>(['thinking', 'tool-output', 'tool-input']);
    const { session, redactions } = shareSession(plantedSession(), { ...options(), omit });
    const json = JSON.stringify(session);
    assertNothingLeaks(json);
    const thinking = session.messages[1]?.segments[0];
    expect(thinking).toEqual({ channel: 'output', type: 'text', format: 'thinking', text: OMITTED_NOTES.thinking });
    const call = session.messages[2]?.tool_call;
    expect(call?.arguments).toBe(OMITTED_NOTES['tool-input']);
    expect(call?.arguments_json).toBeUndefined();
    const result = session.messages[3];
    expect(result?.tool_call?.output).toBe(OMITTED_NOTES['tool-output']);
    expect(result?.tool_call?.output_json).toBeUndefined();
    expect(result?.segments).toEqual([]);
    expect(session.messages[4]?.tool_call?.arguments).toBe(OMITTED_NOTES['tool-input']);
    // What is left: title, warning, prompt (2), answer, raw.record (2), subagent prompt.
    expect(redactions).toBe(8);
    expect(count(json, '[REDACTED:slack-token]')).toBe(0);
    expect(count(json, '[REDACTED:jwt]')).toBe(0);
  });

  it('omits only what is asked', () => {
    const { session } = shareSession(plantedSession(), { ...options(), omit: new Set<OmitPart>(['tool-output']) });
    expect(session.messages[1]?.segments[0]?.text).toBe('Slack token [REDACTED:slack-token] on <host>');
    expect(session.messages[2]?.tool_call?.arguments_json).toBeDefined();
    expect(session.messages[3]?.tool_call?.output).toBe(OMITTED_NOTES['tool-output']);
  });
});

describe('shareSummary', () => {
  const summary: SessionSummary = {
    id: 'claude-code/3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f',
    source: 'claude-code',
    sessionId: '3f2b8c1e-9d4a-4e7b-8c2d-1a2b3c4d5e6f',
    title: `Deploy with ${S.github}`,
    cwd: '/Users/alice/code/app',
    project: 'alice/app',
    gitBranch: 'alice/deploy',
    startedAt: '2025-01-01T00:00:00.000Z',
    endedAt: '2025-01-01T01:00:00.000Z',
    models: ['gpt-5'],
    files: ['/Users/alice/.codex/sessions/2025/01/01/rollout.jsonl'],
    sourcePresent: true,
    collectedAt: '2025-01-02T00:00:00.000Z',
    subagents: 0,
    stats: {
      entries: 1,
      toolRounds: 0,
      toolUses: 0,
      toolUsesByName: {},
      toolErrors: 0,
      toolErrorsByName: {},
      prompts: 2,
      messages: 2,
      pattern: 'simple',
      tokens: { input: 1, output: 1, cacheRead: 0, cacheCreation: 0 },
      activity: {},
    },
    prompts: [
      { timestamp: '2025-01-01T00:00:00.000Z', text: `my key is ${S.aws}, home /Users/alice` },
      // Shortened for the index, cutting the token below the length its rule needs.
      { timestamp: '2025-01-01T00:01:00.000Z', text: `please use ${S.github.slice(0, 20)}…` },
    ],
    body: 'sessions/claude-code/3f2b8c1e.json',
  };

  it('redacts and anonymizes the index fields, including a token cut by shortening', () => {
    const { summary: shared, redactions } = shareSummary(summary, options());
    const json = JSON.stringify(shared);
    for (const secret of [S.github, S.aws, S.github.slice(0, 20)]) expect(json).not.toContain(secret);
    expect(json.toLowerCase()).not.toContain('alice');
    expect(shared.title).toBe('Deploy with [REDACTED:github-token]');
    expect(shared.project).toBe('<user>/app');
    expect(shared.files).toEqual(['~/.codex/sessions/2025/01/01/rollout.jsonl']);
    expect(shared.prompts.map((p) => p.text)).toEqual([
      'my key is [REDACTED:aws-access-key], home ~',
      'please use [REDACTED:truncated-token]…',
    ]);
    expect(redactions).toBe(3);
    expect(shared.stats).toEqual(summary.stats);
    expect(shared.body).toBe(summary.body);
  });
});
