/**
 * A realistic Codex CLI corpus for the benchmark, generated on the fly (never committed): rollout files
 * `<home>/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid v7>.jsonl` in the current envelope format
 * (FORMATS.md §2.2–2.8: session_meta, turn_context, response_item message / reasoning / function_call /
 * function_call_output / custom_tool_call, event_msg task_started / user_message / agent_reasoning /
 * agent_message / token_count / task_complete), plus `~/.codex/history.jsonl` with every prompt and a
 * `session_index.jsonl` naming some threads. About 300 rollouts, median ~60 KB, the largest a few MB.
 * The folder and file name use local time in the real CLI; here that local time is UTC.
 */
import { createWriteStream, promises as fs, type WriteStream } from 'node:fs';
import path from 'node:path';
import { fileSizes, prng, scaleSizes, uuidFrom, wordsFrom } from './generate-claude.ts';

export interface CodexProfile {
  files: number;
  medianBytes: number;
  maxBytes: number;
  totalBytes: number;
  projects: number;
  seed: number;
}

export const CODEX_PROFILE: CodexProfile = {
  files: 300,
  medianBytes: 60_000,
  maxBytes: 4_000_000,
  totalBytes: 40_000_000,
  projects: 12,
  seed: 7,
};

/** Scaled like the Claude profile (see scaleSizes). */
export function scaleCodexProfile(profile: CodexProfile, scale: number): CodexProfile {
  if (scale === 1) return { ...profile };
  const { count, ...sizes } = scaleSizes({ ...profile, count: profile.files }, scale, 5, 500_000);
  return { ...profile, ...sizes, files: count };
}

/** A UUID v7 (time-ordered, as Codex writes since late 2025) for the given time. */
function uuidV7(ms: number, random: () => number): string {
  const time = ms.toString(16).padStart(12, '0');
  const rest = uuidFrom(random).replace(/-/g, '');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${rest.slice(13, 16)}-8${rest.slice(17, 20)}-${rest.slice(20)}`;
}

const WORDS =
  'the handler returns early when the token is missing so we add a check and a test for the retry path in the worker queue then update the docs and run the linter again'.split(
    ' ',
  );

function words(random: () => number, n: number): string {
  return wordsFrom(WORDS, random, n);
}

function sourceLines(random: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(
      `src/worker/queue.ts:${i + 1}:  if (!job.${words(random, 1)}) return retry(${Math.floor(random() * 100)});`,
    );
  }
  return out.join('\n');
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function base64ish(random: () => number, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE64[Math.floor(random() * 64)];
  return out;
}

const BASE_INSTRUCTIONS = `You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI on a user's computer.\n\n## General\n\n${'- Prefer rg over grep; keep edits small and focused; explain what changed and why.\n'.repeat(40)}`;
const DEVELOPER = `<permissions instructions>Filesystem sandboxing defines which files can be read or written. sandbox_mode is workspace-write: the sandbox permits reading files, and editing files in cwd and writable_roots. Network access is restricted. Approval policy is on-request: commands that need more permissions ask the user first.</permissions instructions>`;

interface Line {
  (type: string, payload: unknown, at?: number): void;
}

/** Streams one rollout of about `target` bytes; returns the bytes written and the prompts typed. */
async function writeRollout(
  file: string,
  target: number,
  id: string,
  cwd: string,
  start: number,
  random: () => number,
): Promise<{ bytes: number; prompts: Array<{ ts: number; text: string }> }> {
  const stream: WriteStream = createWriteStream(file);
  let bytes = 0;
  let pending: Promise<void> | undefined;
  let t = start;
  const line: Line = (type, payload, at) => {
    if (at !== undefined) t = at;
    const text = `${JSON.stringify({ timestamp: new Date(t).toISOString(), type, payload })}\n`;
    bytes += Buffer.byteLength(text);
    if (!stream.write(text) && !pending) pending = new Promise<void>((r) => stream.once('drain', () => r()));
  };
  const tick = (max = 4000) => (t += 1 + Math.floor(random() * max));
  const prompts: Array<{ ts: number; text: string }> = [];
  const model = random() < 0.7 ? 'gpt-5.3-codex' : 'gpt-5.2';
  const total = {
    input_tokens: 0,
    cached_input_tokens: 0,
    output_tokens: 0,
    reasoning_output_tokens: 0,
    total_tokens: 0,
  };
  let last = { ...total };
  const rateLimits = () => ({
    limit_id: 'codex',
    limit_name: null,
    primary: { used_percent: Math.floor(random() * 80), window_minutes: 300, resets_at: Math.floor(t / 1000) + 9000 },
    secondary: {
      used_percent: Math.floor(random() * 50),
      window_minutes: 10080,
      resets_at: Math.floor(t / 1000) + 400_000,
    },
    credits: { has_credits: false, unlimited: false, balance: null },
    plan_type: null,
  });
  const tokenCount = (fresh: boolean) => {
    if (fresh) {
      const input = 20_000 + Math.floor(random() * 60_000);
      const cached = Math.floor(input * random() * 0.9);
      const reasoning = Math.floor(random() * 300);
      const output = reasoning + 50 + Math.floor(random() * 600);
      last = {
        input_tokens: input,
        cached_input_tokens: cached,
        output_tokens: output,
        reasoning_output_tokens: reasoning,
        total_tokens: input + output,
      };
      for (const k of Object.keys(total) as Array<keyof typeof total>) total[k] += last[k];
    }
    line('event_msg', {
      type: 'token_count',
      info: { total_token_usage: { ...total }, last_token_usage: { ...last }, model_context_window: 272_000 },
      rate_limits: rateLimits(),
    });
  };
  const turnContext = (turnId: string) =>
    line('turn_context', {
      turn_id: turnId,
      cwd,
      approval_policy: 'on-request',
      sandbox_policy: {
        type: 'workspace-write',
        writable_roots: [cwd],
        network_access: false,
        exclude_tmpdir_env_var: false,
        exclude_slash_tmp: false,
      },
      model,
      personality: 'pragmatic',
      collaboration_mode: {
        mode: 'default',
        settings: { model, reasoning_effort: 'medium', developer_instructions: null },
      },
      effort: 'medium',
      summary: 'auto',
      truncation_policy: { mode: 'tokens', limit: 10_000 },
    });
  const reasoning = () => {
    const title = `**${words(random, 3)}**`;
    tick();
    line('event_msg', { type: 'agent_reasoning', text: title });
    line('response_item', {
      type: 'reasoning',
      summary: [{ type: 'summary_text', text: `${title}\n\n${words(random, 25)}` }],
      content: null,
      encrypted_content: `gAAAAAB${base64ish(random, 800 + Math.floor(random() * 2400))}`,
    });
  };
  const say = (text: string, phase: 'commentary' | 'final_answer') => {
    tick();
    line('event_msg', { type: 'agent_message', message: text });
    line('response_item', { type: 'message', role: 'assistant', content: [{ type: 'output_text', text }], phase });
  };

  line(
    'session_meta',
    {
      id,
      timestamp: new Date(start).toISOString(),
      cwd,
      originator: 'codex_cli_rs',
      cli_version: '0.104.0',
      source: 'cli',
      model_provider: 'openai',
      base_instructions: { text: BASE_INSTRUCTIONS },
      git: {
        commit_hash: uuidFrom(random).replace(/-/g, '').padEnd(40, '0'),
        branch: 'main',
        repository_url: `git@github.com:bench/${path.basename(cwd)}.git`,
      },
    },
    start + 300,
  );
  line('response_item', { type: 'message', role: 'developer', content: [{ type: 'input_text', text: DEVELOPER }] });
  line('response_item', {
    type: 'message',
    role: 'user',
    content: [
      {
        type: 'input_text',
        text: `# AGENTS.md instructions for ${cwd}\n\n<INSTRUCTIONS>\n${words(random, 120)}\n</INSTRUCTIONS>`,
      },
      {
        type: 'input_text',
        text: `<environment_context>\n  <cwd>${cwd}</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>workspace-write</sandbox_mode>\n  <network_access>restricted</network_access>\n  <shell>zsh</shell>\n</environment_context>`,
      },
    ],
  });

  // A turn ends with a reasoning item, the final answer and its events (~3 KB): stop the turn's tool rounds
  // early enough for the file to end near its target.
  const end = target - 3_000;
  for (let turn = 0; turn === 0 || bytes < end; turn++) {
    const turnId = uuidV7(t, random);
    tick(60_000);
    line('event_msg', {
      type: 'task_started',
      turn_id: turnId,
      model_context_window: 272_000,
      collaboration_mode_kind: 'default',
    });
    const prompt = `${words(random, 6 + Math.floor(random() * 30))}?`;
    const image =
      random() < 0.03 && target - bytes > 600_000
        ? `data:image/png;base64,iVBORw0KGgo${base64ish(random, 150_000)}`
        : undefined;
    line('response_item', {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: prompt }, ...(image ? [{ type: 'input_image', image_url: image }] : [])],
    });
    line('event_msg', {
      type: 'user_message',
      message: prompt,
      images: image ? [image] : [],
      local_images: [],
      text_elements: [],
    });
    prompts.push({ ts: Math.floor(t / 1000), text: prompt });
    turnContext(turnId);
    line('event_msg', { type: 'token_count', info: null, rate_limits: rateLimits() });
    const rounds = 1 + Math.floor(random() * 8);
    for (let r = 0; r < rounds && bytes < end; r++) {
      reasoning();
      say(words(random, 15 + Math.floor(random() * 30)), 'commentary');
      const callId = `call_${base64ish(random, 24).replace(/[+/]/g, 'x')}`;
      tick();
      const room = Math.max(3, Math.floor((end - bytes) / 160));
      const outputLines = Math.min(room, 5 + Math.floor(random() * 120));
      if (random() < 0.15) {
        line('response_item', {
          type: 'custom_tool_call',
          status: 'completed',
          call_id: callId,
          name: 'apply_patch',
          input: `*** Begin Patch\n*** Update File: src/worker/queue.ts\n@@\n${sourceLines(random, Math.min(room, 20))
            .split('\n')
            .map((l) => `+${l}`)
            .join('\n')}\n*** End Patch\n`,
        });
        tokenCount(true);
        tick(1500);
        line('response_item', {
          type: 'custom_tool_call_output',
          call_id: callId,
          output: JSON.stringify({
            output: 'Success. Updated the following files:\nM src/worker/queue.ts\n',
            metadata: { exit_code: 0, duration_seconds: 0.1 },
          }),
        });
      } else {
        const cmd = random() < 0.5 ? `rg -n "${words(random, 1)}" src` : 'npm test -- --reporter=dot';
        line('response_item', {
          type: 'function_call',
          name: 'exec_command',
          arguments: JSON.stringify({ cmd, workdir: cwd, yield_time_ms: 10_000 }),
          call_id: callId,
        });
        tokenCount(true);
        tick(20_000);
        const exit = random() < 0.1 ? 1 : 0;
        line('response_item', {
          type: 'function_call_output',
          call_id: callId,
          output: `Chunk ID: ${base64ish(random, 6)}\nWall time: ${(random() * 5).toFixed(4)} seconds\nProcess exited with code ${exit}\nOriginal token count: ${outputLines * 30}\nOutput:\n${sourceLines(random, outputLines)}\n`,
        });
      }
      turnContext(turnId);
      tokenCount(false);
      if (pending) {
        await pending;
        pending = undefined;
      }
    }
    reasoning();
    const answer = `${words(random, 40 + Math.floor(random() * 80))}\n\n- ${words(random, 10)}\n- ${words(random, 10)}`;
    say(answer, 'final_answer');
    tokenCount(true);
    tick(50);
    line('event_msg', { type: 'task_complete', turn_id: turnId, last_agent_message: answer });
    if (pending) {
      await pending;
      pending = undefined;
    }
  }
  await new Promise<void>((resolve, reject) =>
    stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return { bytes, prompts };
}

function two(n: number): string {
  return String(n).padStart(2, '0');
}

/**
 * Writes `<home>/.codex/sessions/…`, `history.jsonl` and `session_index.jsonl`; returns the bytes of the
 * rollouts. Sessions are spread over the same months as the Claude corpus.
 */
export async function generateCodex(
  home: string,
  profile: CodexProfile,
  log: (s: string) => void = () => {},
): Promise<number> {
  const random = prng(profile.seed);
  // The session header (instructions, environment) and one short turn take ~8 KB.
  const sizes = fileSizes({ ...profile, minBytes: 8_000 }, random);
  const root = path.join(home, '.codex');
  await fs.mkdir(root, { recursive: true });
  const projects = Array.from({ length: profile.projects }, (_, i) => `/home/bench/work/codex-app-${i}`);
  const start = Date.parse('2026-01-05T00:00:00Z');
  const span = 130 * 86_400_000;
  const history: Array<{ session_id: string; ts: number; text: string }> = [];
  const index: string[] = [];
  let total = 0;
  for (const [i, size] of sizes.entries()) {
    const at = start + Math.floor((i / sizes.length) * span) + Math.floor(random() * 3_600_000);
    const d = new Date(at);
    const id = uuidV7(at, random);
    const stamp = `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}-${two(d.getUTCMinutes())}-${two(d.getUTCSeconds())}`;
    const dir = path.join(root, 'sessions', stamp.slice(0, 4), stamp.slice(5, 7), stamp.slice(8, 10));
    await fs.mkdir(dir, { recursive: true });
    const written = await writeRollout(
      path.join(dir, `rollout-${stamp}-${id}.jsonl`),
      size,
      id,
      projects[i % projects.length]!,
      at,
      random,
    );
    total += written.bytes;
    for (const p of written.prompts) history.push({ session_id: id, ts: p.ts, text: p.text });
    if (random() < 0.2) {
      index.push(
        JSON.stringify({ id, thread_name: words(random, 4), updated_at: new Date(at + 3_600_000).toISOString() }),
      );
    }
    if (i % 100 === 0) log(`  codex: ${i}/${sizes.length} files, ${(total / 1e6).toFixed(0)} MB`);
  }
  history.sort((a, b) => a.ts - b.ts);
  await fs.writeFile(path.join(root, 'history.jsonl'), history.map((h) => `${JSON.stringify(h)}\n`).join(''));
  await fs.writeFile(path.join(root, 'session_index.jsonl'), index.map((line) => `${line}\n`).join(''));
  return total;
}
