/**
 * Every share output reads the archive through one lens. Markers (a home path, the user name it holds, this
 * host's name, an e-mail, secrets) are planted in every field the sources fill: titles, working directories,
 * branches, prompts, answers, thinking, tool input and output, the files a tool call edits (the reports'
 * "Changed" lists), prompt history; for Claude Code, Codex and Amazon Q. Then `build --share`, `share`,
 * `export --share` and `mcp --share` run for real and every file they write and every answer is searched.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createQDatabase, type QState } from '../helpers/amazonq-db.ts';
import { runCli } from '../helpers/cli.ts';
import { startMcp, type McpRun } from '../helpers/mcp.ts';
import { tempDir } from '../helpers/paths.ts';
import { decodeEntities } from '../helpers/html.ts';

const USER = 'mkzorblat';
const HOME = `/home/${USER}`;
const CWD = `${HOME}/work/garden`;
const EMAIL = ['zorblat.mk', '@example.org'].join('');
// Assembled at run time so that no secret-shaped string sits in the repository.
const SECRETS = {
  aws: ['AKIA', 'Z7QW3ERT5YU2IOPM'].join(''),
  discord: ['MTE3NzU2OTQ3MzE2NTc0MjA5OA', 'GkPq3x', 'Vt8rWm2ZqL5nYb7Hc4Jd9Kf1Gs6Ua3Xe0Pw'].join('.'),
};
/** This machine's name: the anonymizer hides the host it runs on (a generic name would not be hidden). */
const HOST = os.hostname().split('.')[0]!;
const HOST_MARKED = HOST.length >= 3 && !/^(localhost|local|host)$/i.test(HOST);

/** A text carrying every marker, tagged with where it was planted. */
const marked = (place: string) =>
  `${place}: ${HOME}/notes.md by ${USER} on ${HOST_MARKED ? HOST : 'x'} <${EMAIL}> key ${SECRETS.aws} bot ${SECRETS.discord}`;

const CLAUDE_ID = 'c1a0de00-0000-4000-8000-00000000001a';
const CODEX_ID = '019cb1a0-00aa-7000-8000-0000000000aa';
const Q_ID = 'a0a0a0a0-aaaa-4aaa-8aaa-aaaaaaaaaa0a';
const at = (s: number) => new Date(Date.parse('2026-06-03T10:00:00Z') + s * 1000).toISOString();

async function writeClaude(home: string): Promise<void> {
  const dir = path.join(home, '.claude', 'projects', `-home-${USER}-work-garden`);
  await fs.mkdir(dir, { recursive: true });
  const common = { cwd: CWD, sessionId: CLAUDE_ID, isSidechain: false, version: '2.1.38', gitBranch: `${USER}/fix` };
  const usage = { input_tokens: 10, output_tokens: 5 };
  const edit = { file_path: `${CWD}/src/plant.ts`, old_string: marked('old'), new_string: marked('new') };
  const records = [
    { type: 'custom-title', customTitle: marked('title'), sessionId: CLAUDE_ID },
    { ...common, type: 'user', uuid: 'u1', timestamp: at(0), message: { role: 'user', content: marked('prompt') } },
    {
      ...common,
      type: 'assistant',
      uuid: 'a1',
      timestamp: at(5),
      message: {
        id: 'm1',
        role: 'assistant',
        model: 'm',
        usage,
        content: [
          { type: 'thinking', thinking: marked('thinking'), signature: 's' },
          { type: 'text', text: marked('answer') },
          { type: 'tool_use', id: 'e1', name: 'Edit', input: edit },
          { type: 'tool_use', id: 'w1', name: 'Write', input: { file_path: `${HOME}/.bashrc`, content: marked('w') } },
          { type: 'tool_use', id: 'b1', name: 'Bash', input: { command: `cat ${HOME}/.env # ${marked('bash')}` } },
        ],
      },
    },
    ...['e1', 'w1', 'b1'].map((id, i) => ({
      ...common,
      type: 'user',
      uuid: `r${i}`,
      timestamp: at(6 + i),
      toolUseResult: { stdout: marked(`stdout ${id}`), stderr: marked('stderr'), filePath: edit.file_path },
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: marked(`result ${id}`) }] },
    })),
    {
      ...common,
      type: 'assistant',
      uuid: 'a2',
      timestamp: at(12),
      message: { id: 'm2', role: 'assistant', model: 'm', usage, content: [{ type: 'text', text: 'Done.' }] },
    },
  ];
  await fs.writeFile(path.join(dir, `${CLAUDE_ID}.jsonl`), `${records.map((r) => JSON.stringify(r)).join('\n')}\n`);
  const history = { display: marked('history'), timestamp: Date.parse(at(-1)), project: CWD, sessionId: CLAUDE_ID };
  await fs.writeFile(path.join(home, '.claude', 'history.jsonl'), `${JSON.stringify(history)}\n`);
}

async function writeCodex(home: string): Promise<void> {
  const dir = path.join(home, '.codex', 'sessions', '2026', '06', '03');
  await fs.mkdir(dir, { recursive: true });
  const t = (k: number) => at(3600 + k);
  const patch = `*** Begin Patch\n*** Update File: ${CWD}/lib/codex.py\n@@\n-a\n+${marked('patch')}\n*** End Patch\n`;
  const lines = [
    {
      timestamp: t(0),
      type: 'session_meta',
      payload: {
        id: CODEX_ID,
        timestamp: t(0),
        cwd: CWD,
        originator: 'codex_cli_rs',
        cli_version: '0.98.0',
        source: 'cli',
        git: { commit_hash: 'a1b2c3d', branch: `${USER}/codex`, repository_url: `git@example.invalid:${USER}/g.git` },
      },
    },
    {
      timestamp: t(1),
      type: 'response_item',
      payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: marked('codex prompt') }] },
    },
    { timestamp: t(1), type: 'event_msg', payload: { type: 'user_message', message: marked('codex prompt') } },
    { timestamp: t(2), type: 'turn_context', payload: { cwd: CWD, approval_policy: 'on-request', model: 'gpt-5' } },
    {
      timestamp: t(3),
      type: 'response_item',
      payload: { type: 'reasoning', summary: [{ type: 'summary_text', text: marked('codex thinking') }] },
    },
    {
      timestamp: t(4),
      type: 'response_item',
      payload: { type: 'custom_tool_call', status: 'completed', call_id: 'p1', name: 'apply_patch', input: patch },
    },
    {
      timestamp: t(5),
      type: 'response_item',
      payload: { type: 'custom_tool_call_output', call_id: 'p1', output: marked('codex output') },
    },
    {
      timestamp: t(6),
      type: 'response_item',
      payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: marked('codex answer') }] },
    },
  ];
  await fs.writeFile(
    path.join(dir, `rollout-2026-06-03T11-00-00-${CODEX_ID}.jsonl`),
    `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
  );
  await fs.writeFile(
    path.join(home, '.codex', 'session_index.jsonl'),
    `${JSON.stringify({ id: CODEX_ID, thread_name: marked('codex title'), updated_at: t(6) })}\n`,
  );
  const history = { session_id: CODEX_ID, ts: Math.floor(Date.parse(t(1)) / 1000), text: marked('codex history') };
  await fs.writeFile(path.join(home, '.codex', 'history.jsonl'), `${JSON.stringify(history)}\n`);
}

async function writeAmazonQ(home: string): Promise<void> {
  const env = { env_state: { operating_system: 'linux', current_working_directory: CWD, environment_variables: [] } };
  const write = { command: 'create', path: `${CWD}/q/amazon.md`, file_text: marked('q file') };
  const state: QState = {
    conversation_id: Q_ID,
    next_message: null,
    history: [
      [
        { additional_context: marked('q context'), env_context: env, content: { Prompt: { prompt: marked('q') } } },
        {
          ToolUse: {
            message_id: 'q1',
            content: marked('q says'),
            tool_uses: [{ id: 'qt1', name: 'fs_write', orig_name: 'fs_write', args: write, orig_args: write }],
          },
        },
      ],
      [
        {
          additional_context: '',
          env_context: env,
          content: {
            ToolUseResults: {
              tool_use_results: [{ tool_use_id: 'qt1', content: [{ Text: marked('q result') }], status: 'Success' }],
            },
          },
        },
        { Response: { message_id: 'q2', content: marked('q answer') } },
      ],
    ],
    valid_history_range: [0, 2],
    transcript: [],
    tools: {},
  };
  await createQDatabase(path.join(home, '.local', 'share', 'amazon-q', 'data.sqlite3'), {
    conversations: [{ key: CWD, state }],
    mtime: new Date(at(7200)),
  });
}

/** Every file under a directory (or one file), HTML entities and JSON escapes undone, Pagefind's gzip opened. */
async function readOutput(target: string): Promise<string> {
  const files = (await fs.stat(target)).isFile()
    ? [target]
    : (await fs.readdir(target, { recursive: true })).map((rel) => path.join(target, rel));
  let text = '';
  for (const file of files) {
    if (!(await fs.stat(file)).isFile() || /\.(png|ico|woff2?|wasm)$/.test(file)) continue;
    let bytes = await fs.readFile(file);
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
    text += `\n== ${path.relative(target, file)}\n${decode(bytes.toString('utf8'))}`;
  }
  return text;
}

function decode(text: string): string {
  return decodeEntities(text)
    .replace(/\\u002f/gi, '/')
    .replace(/\\\//g, '/');
}

const MARKERS: Array<[string, RegExp]> = [
  ['user name / home path', new RegExp(USER, 'i')],
  ['e-mail', new RegExp(EMAIL.replace(/\./g, '\\.'), 'i')],
  ['aws key', new RegExp(SECRETS.aws)],
  ['discord bot token', new RegExp(SECRETS.discord.split('.')[2]!)],
  // Its first part alone, as a prompt preview cut inside the token shows it.
  ['discord bot token (cut)', new RegExp(SECRETS.discord.slice(0, 12))],
  ...(HOST_MARKED
    ? [['host name', new RegExp(`(?<![A-Za-z0-9_-])${HOST}(?![A-Za-z0-9_-])`, 'i')] as [string, RegExp]]
    : []),
];

/** Each marker found, with the file (`== path`) and the line it is on. */
function leaks(output: string): string[] {
  const found: string[] = [];
  let file = '';
  for (const line of output.split('\n')) {
    if (line.startsWith('== ')) file = line.slice(3);
    for (const [name, pattern] of MARKERS) {
      if (pattern.test(line)) found.push(`${name} in ${file}: ${line.trim().slice(0, 160)}`);
    }
  }
  return found;
}

let root: string;
let home: string;
let data: string;

beforeAll(async () => {
  root = await tempDir('markers');
  home = path.join(root, 'home');
  data = path.join(root, 'data');
  await writeClaude(home);
  await writeCodex(home);
  await writeAmazonQ(home);
  const collect = await runCli(['collect', '--home', home, '--data', data]);
  expect(collect.code, collect.stderr).toBe(0);
  // The markers are really in the archive (so a clean output means the lens cleaned them).
  const index = await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8');
  for (const id of [CLAUDE_ID, CODEX_ID, Q_ID]) expect(index).toContain(id);
  expect(index).toContain(`${CWD}/src/plant.ts`);
  expect(index).toContain(`${CWD}/lib/codex.py`);
  expect(index).toContain(`${CWD}/q/amazon.md`);
}, 120_000);

describe('share outputs see only what the share lens cleaned', () => {
  it('build --share: no marker in any page, Markdown file, search fragment or JSON', async () => {
    const out = path.join(root, 'site');
    const run = await runCli(['build', '--share', '--home', home, '--data', data, '--out', out, '--tz', 'UTC']);
    expect(run.code, run.stderr).toBe(0);
    const site = await readOutput(out);
    // The pages are there: the day and week reports list the edited files, relative to the anonymized project.
    const day = await fs.readFile(path.join(out, 'days', '2026-06-03.md'), 'utf8');
    expect(day).toContain('src/plant.ts');
    expect(day).toContain('lib/codex.py');
    expect(day).toContain('~/.bashrc');
    expect(site).toContain('[REDACTED:');
    expect(leaks(site)).toEqual([]);
  }, 180_000);

  it('share: the one-page file has no marker', async () => {
    // One session: each build costs seconds, and the site above already has every source's pages.
    for (const id of [CLAUDE_ID]) {
      const file = path.join(root, `${id}.html`);
      const run = await runCli(['share', id, '--no-collect', '--data', data, '--out', file, '--tz', 'UTC']);
      expect(run.code, run.stderr).toBe(0);
      const html = await readOutput(file);
      expect(html).toContain('[REDACTED:');
      expect(leaks(html), id).toEqual([]);
    }
  }, 180_000);

  it('export --share: no marker in the tables', async () => {
    const out = path.join(root, 'export');
    const run = await runCli(['export', '--share', '--data', data, '--out', out, '--format', 'jsonl']);
    expect(run.code, run.stderr).toBe(0);
    const tables = await readOutput(out);
    expect(tables).toContain(CLAUDE_ID);
    expect(leaks(tables)).toEqual([]);
  });

  describe('mcp --share', () => {
    let mcp: McpRun;
    beforeAll(async () => {
      mcp = await startMcp(['--no-collect', '--data', data, '--tz', 'UTC', '--share']);
    }, 60_000);
    afterAll(async () => {
      await mcp?.close();
    });

    it('no tool answers with a marker', async () => {
      const calls: Array<[string, Record<string, unknown>]> = [
        ['list_projects', {}],
        ['list_sessions', {}],
        ['stats', {}],
        [
          'get_history_by_date',
          { since: '2026-06-03', until: '2026-06-03', include_thinking: true, include_tool_calls: true },
        ],
        ['get_history_by_project', { project: 'garden', include_thinking: true, include_tool_calls: true }],
        ['search', { query: 'notes' }],
        ['search', { query: 'plant' }],
        ['day_report', { date: '2026-06-03' }],
        ['day_report', { date: '2026-06-03', format: 'json' }],
        ['week_report', { week: '2026-W23' }],
        ['week_report', { week: '2026-W23', format: 'json' }],
        ...[CLAUDE_ID, CODEX_ID, Q_ID].flatMap((session): Array<[string, Record<string, unknown>]> => [
          ['get_session', { session, include_thinking: true, max_chars: 1_000_000 }],
          ['get_session_detail', { session, include_thinking: true, include_tool_calls: true, max_chars: 1_000_000 }],
        ]),
      ];
      const found: string[] = [];
      let all = '';
      for (const [tool, args] of calls) {
        const answer = await mcp.call(tool, args);
        expect(answer.isError ?? false, `${tool}: ${answer.text}`).toBe(false);
        const text = `== ${tool} ${JSON.stringify(args)}\n${answer.text}\n${JSON.stringify(answer.structuredContent ?? {})}`;
        all += text;
        found.push(...leaks(decode(text)));
      }
      for (const id of [CLAUDE_ID, CODEX_ID, Q_ID]) {
        const resource = await mcp.client.readResource({
          uri: `logbook://session/${id.startsWith('019') ? 'codex' : id === Q_ID ? 'amazon-q' : 'claude-code'}/${id}`,
        });
        found.push(...leaks(decode(`== resource ${id}\n${JSON.stringify(resource)}`)));
      }
      expect(all).toContain('src/plant.ts');
      expect(found).toEqual([]);
    }, 120_000);
  });
});
