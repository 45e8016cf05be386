import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';

const SESSION_ID = 'c0ffee00-0000-4000-8000-0000000000c0';
// Assembled at run time so that no secret-shaped string sits in the repository.
const SECRETS = {
  aws: ['AKIA', 'Z7QW3ERT5YU2IOPA'].join(''),
  github: ['ghp_', 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8'].join(''),
  anthropic: ['sk-ant-api03-', 'Xy9'.repeat(30), 'AA'].join(''),
  password: ['hunter', '2-correct-horse'].join(''),
  slack: ['xoxb-', '123456789012-1234567890123-', 'AbCdEfGhIjKlMnOpQrStUvWx'].join(''),
};
const HOME = '/home/carol';
const EMAIL = ['carol.smith', '@example.org'].join('');

async function writeHome(home: string): Promise<void> {
  const dir = path.join(home, '.claude', 'projects', '-home-carol-work-shop');
  await fs.mkdir(dir, { recursive: true });
  const common = { cwd: `${HOME}/work/shop`, sessionId: SESSION_ID, isSidechain: false, version: '2.1.38' };
  const usage = { input_tokens: 10, output_tokens: 5 };
  const records = [
    { type: 'custom-title', customTitle: `Rotate ${SECRETS.aws}`, sessionId: SESSION_ID },
    {
      ...common,
      type: 'user',
      uuid: 'u1',
      timestamp: '2026-06-01T10:00:00.000Z',
      message: { role: 'user', content: `My key is ${SECRETS.aws}, mail ${EMAIL}, repo in ${HOME}/work/shop` },
    },
    {
      ...common,
      type: 'assistant',
      uuid: 'a1',
      timestamp: '2026-06-01T10:00:05.000Z',
      message: {
        id: 'msg1',
        role: 'assistant',
        model: 'm',
        usage,
        content: [
          { type: 'thinking', thinking: `The token ${SECRETS.github} must not leak`, signature: 's' },
          { type: 'text', text: `Set \`ANTHROPIC_API_KEY=${SECRETS.anthropic}\` in \`${HOME}/.env\`.` },
          {
            type: 'tool_use',
            id: 'call1',
            name: 'Bash',
            input: { command: `cat ${HOME}/.env && echo password=${SECRETS.password}` },
          },
        ],
      },
    },
    {
      ...common,
      type: 'user',
      uuid: 'r1',
      timestamp: '2026-06-01T10:00:06.000Z',
      toolUseResult: { stdout: `SLACK_TOKEN=${SECRETS.slack}\nfile:///home/carol/work/shop/x.ts`, stderr: '' },
      message: {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 'call1',
            content: `SLACK_TOKEN=${SECRETS.slack}\npassword: ${SECRETS.password}`,
          },
        ],
      },
    },
    {
      ...common,
      type: 'assistant',
      uuid: 'a2',
      timestamp: '2026-06-01T10:00:09.000Z',
      message: { id: 'msg2', role: 'assistant', model: 'm', usage, content: [{ type: 'text', text: 'Done.' }] },
    },
  ];
  await fs.writeFile(path.join(dir, `${SESSION_ID}.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  await fs.writeFile(
    path.join(home, '.claude', 'history.jsonl'),
    `${JSON.stringify({ display: `My key is ${SECRETS.aws}`, timestamp: Date.parse('2026-06-01T09:59:59Z'), project: `${HOME}/work/shop`, sessionId: SESSION_ID })}\n`,
  );
}

async function allText(dir: string): Promise<string> {
  let text = '';
  for (const rel of await fs.readdir(dir, { recursive: true })) {
    const full = path.join(dir, rel);
    if (!(await fs.stat(full)).isFile()) continue;
    // A session's Markdown is gzipped: what it holds is what counts.
    const bytes = await fs.readFile(full);
    text += `\n${rel}\n${(bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes).toString('utf8')}`;
  }
  return text;
}

let home: string;
let data: string;

beforeAll(async () => {
  home = await tempDir('share');
  data = path.join(home, 'data');
  await writeHome(home);
});

describe('share builds', () => {
  it('build --share leaves no planted secret, home path, user name or e-mail anywhere in the output', async () => {
    const out = path.join(home, 'shared-site');
    const run = await runCli(['build', '--share', '--home', home, '--data', data, '--out', out, '--tz', 'UTC']);
    expect(run.code).toBe(0);
    const text = await allText(out);
    for (const [name, secret] of Object.entries(SECRETS)) expect(text.includes(secret), name).toBe(false);
    expect(text).not.toContain(HOME);
    expect(text).not.toMatch(/carol/i);
    expect(text).not.toContain(EMAIL);
    // The markers say what was there, in the title, the prompt, the thinking, the tool input and output.
    const page = await fs.readFile(path.join(out, 'sessions', 'claude-code', SESSION_ID, 'index.html'), 'utf8');
    for (const marker of [
      'aws-access-key',
      'github-token',
      'anthropic-api-key',
      'password-assignment',
      'slack-token',
    ]) {
      expect(page).toContain(`[REDACTED:${marker}]`);
    }
    expect(page).toContain('~/work/shop');
    expect(page).toContain('A shared copy');
  });

  it('the personal site over the same data is not redacted', async () => {
    const out = path.join(home, 'personal-site');
    expect((await runCli(['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC'])).code).toBe(0);
    const page = await fs.readFile(path.join(out, 'sessions', 'claude-code', SESSION_ID, 'index.html'), 'utf8');
    expect(page).toContain(SECRETS.aws);
    expect(page).not.toContain('A shared copy');
  });

  it('share writes one self-contained file: inline CSS, no script, nothing to fetch, nothing secret', async () => {
    const file = path.join(home, 'one.html');
    const run = await runCli([
      'share',
      SESSION_ID,
      '--home',
      home,
      '--data',
      data,
      '--out',
      file,
      '--tz',
      'UTC',
      '--omit',
      'thinking',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /Shared claude-code\/c0ffee00-0000-4000-8000-0000000000c0: .*one\.html .*without thinking/,
    );
    const html = await fs.readFile(file, 'utf8');
    for (const secret of Object.values(SECRETS)) expect(html).not.toContain(secret);
    expect(html).not.toMatch(/carol/i);
    expect(html).not.toMatch(/<script|<link|src="(?!data:)|href="\//);
    expect(html).toContain('<style>');
    expect(html).toContain('Thinking omitted from this shared copy.');
    expect(html).not.toContain('must not leak');
    // The file has no script, so it promises no keys.
    expect(html).not.toContain('<kbd>j</kbd>');
  });

  it('rejects --omit values it does not know and --sessions without --share', async () => {
    expect((await runCli(['share', SESSION_ID, '--no-collect', '--data', data, '--omit', 'everything'])).code).toBe(2);
    expect((await runCli(['build', '--no-such', '--data', data])).code).toBe(2);
    expect((await runCli(['build', '--sessions', SESSION_ID, '--home', home, '--data', data])).code).toBe(2);
    expect((await runCli(['share', 'nope', '--no-collect', '--data', data])).code).toBe(2);
  });
});
