/**
 * Inputs for the hostile-input tests, generated in the tests (nothing big is checked in): Claude transcripts,
 * Codex rollouts and Amazon Q conversation states in the shapes of the fixtures, plus helpers to watch the
 * file system and to run the CLI in a child process.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { REPO } from '../helpers/paths.ts';

export const CWD = '/home/alice/work/hostile';

/** A Claude Code transcript: one prompt and its answer per pair, a minute apart from `start`. */
export function claudeLines(
  sessionId: string,
  pairs: Array<[string, string]>,
  start = '2026-03-10T09:00:00.000Z',
): string[] {
  const lines: string[] = [];
  let t = Date.parse(start);
  let parent: string | null = null;
  pairs.forEach(([prompt, answer], i) => {
    const u = `${sessionId.slice(0, 8)}-u${i}`;
    const a = `${sessionId.slice(0, 8)}-a${i}`;
    lines.push(
      JSON.stringify({
        parentUuid: parent,
        isSidechain: false,
        type: 'user',
        cwd: CWD,
        sessionId,
        version: '2.1.150',
        message: { role: 'user', content: prompt },
        uuid: u,
        timestamp: new Date(t).toISOString(),
      }),
    );
    lines.push(
      JSON.stringify({
        parentUuid: u,
        isSidechain: false,
        type: 'assistant',
        cwd: CWD,
        sessionId,
        version: '2.1.150',
        message: {
          id: `msg_${i}`,
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: answer }],
          usage: { input_tokens: 10, output_tokens: 5 },
        },
        uuid: a,
        timestamp: new Date(t + 5000).toISOString(),
      }),
    );
    parent = a;
    t += 60_000;
  });
  return lines;
}

/** A Codex rollout (event format): session_meta, then a prompt and an answer per pair. */
export function codexLines(id: string, pairs: Array<[string, string]>, start = '2026-03-11T09:00:00.000Z'): string[] {
  let t = Date.parse(start);
  const at = () => new Date((t += 1000)).toISOString();
  const lines = [
    JSON.stringify({
      timestamp: at(),
      type: 'session_meta',
      payload: { id, timestamp: start, cwd: CWD, originator: 'codex_cli_rs', cli_version: '0.98.0', source: 'cli' },
    }),
  ];
  for (const [prompt, answer] of pairs) {
    lines.push(
      JSON.stringify({
        timestamp: at(),
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: prompt }] },
      }),
    );
    lines.push(
      JSON.stringify({
        timestamp: at(),
        type: 'response_item',
        payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: answer }] },
      }),
    );
  }
  return lines;
}

/** An Amazon Q `ConversationState` with one prompt and its answer. */
export function qState(
  conversationId: string,
  prompt: string,
  answer: string,
  startMs = Date.parse('2026-03-12T09:00:00Z'),
) {
  return {
    conversation_id: conversationId,
    next_message: null,
    history: [
      {
        user: {
          additional_context: '',
          env_context: { env_state: { operating_system: 'linux', current_working_directory: CWD } },
          content: { Prompt: { prompt } },
          timestamp: new Date(startMs).toISOString(),
          images: null,
        },
        assistant: { Response: { message_id: `${conversationId}-m1`, content: answer } },
        request_metadata: {
          request_start_timestamp_ms: startMs + 1000,
          stream_end_timestamp_ms: startMs + 5000,
          model_id: 'claude-sonnet-4.5',
        },
      },
    ],
    valid_history_range: [0, 1],
    transcript: [],
    tools: {},
    latest_summary: null,
    model_info: { model_id: 'claude-sonnet-4.5' },
  };
}

/** A JSON text nested `depth` levels deep (arrays), as one line. */
export function deepJson(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

export async function writeLines(file: string, lines: string[]): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${lines.join('\n')}\n`);
}

/** Every path under `dir` (files, directories, links), relative, sorted. */
export async function walkTree(dir: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (at: string): Promise<void> => {
    for (const entry of await fs.readdir(at, { withFileTypes: true }).catch(() => [])) {
      const full = path.join(at, entry.name);
      out.push(path.relative(dir, full));
      if (entry.isDirectory()) await visit(full);
    }
  };
  await visit(dir);
  return out.sort();
}

export interface ChildRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in a child process (through tsx, from the sources), optionally as another user. */
export function spawnCli(
  args: string[],
  options: { uid?: number; gid?: number; env?: NodeJS.ProcessEnv; onSpawn?: (pid: number) => void } = {},
): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(REPO, 'bin', 'agent-logbook.js'), ...args], {
      cwd: REPO,
      env: { ...process.env, AGENT_LOGBOOK_FROM_SOURCE: '1', TZ: 'UTC', ...options.env },
      ...(options.uid !== undefined ? { uid: options.uid, gid: options.gid ?? options.uid } : {}),
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => resolve({ code, signal, stdout, stderr }));
    if (child.pid) options.onSpawn?.(child.pid);
  });
}
