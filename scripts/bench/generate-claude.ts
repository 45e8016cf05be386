/**
 * A realistic Claude Code corpus for the benchmark, generated on the fly (never committed).
 * Size profile after ccusage's realistic test data: ~3,142 files / 1.24 GB, median file ~105 KB,
 * a long tail up to ~87 MB. Sessions are streamed lines with thinking, text, tool calls, tool results
 * with structured `toolUseResult`, progress lines, snapshots and the odd base64 screenshot.
 */
import { createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';

export interface ClaudeProfile {
  files: number;
  /** Median file size in bytes. */
  medianBytes: number;
  /** Largest file in bytes. */
  maxBytes: number;
  projects: number;
  seed: number;
}

export const CCUSAGE_PROFILE: ClaudeProfile = {
  files: 3142,
  medianBytes: 105_000,
  maxBytes: 87_000_000,
  projects: 40,
  seed: 42,
};

/** Deterministic PRNG (mulberry32), so two runs generate the same corpus. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** File sizes: log-normal around the median, the largest pinned to the maximum, scaled to the total. */
export function fileSizes(profile: ClaudeProfile, random: () => number): number[] {
  const sizes: number[] = [];
  for (let i = 0; i < profile.files; i++) {
    const u1 = Math.max(random(), 1e-9);
    const u2 = random();
    const normal = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    sizes.push(Math.min(profile.maxBytes, Math.max(2_000, Math.round(profile.medianBytes * Math.exp(1.05 * normal)))));
  }
  sizes.sort((a, b) => b - a);
  if (sizes.length > 0) sizes[0] = profile.maxBytes;
  if (sizes.length > 1) sizes[1] = Math.round(profile.maxBytes * 0.6);
  return sizes;
}

/** A UUID-shaped id from the PRNG. */
function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}

const WORDS =
  'the function returns a value when the request is valid otherwise we throw an error and log the details to the console so the user can see what happened in the build step of the project ログイン 画面 を 修正 します'.split(
    ' ',
  );
const TOOLS = ['Read', 'Bash', 'Edit', 'Grep', 'Glob', 'Write', 'Task', 'TodoWrite', 'WebFetch'];

function words(random: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(WORDS[Math.floor(random() * WORDS.length)]!);
  return out.join(' ');
}

function code(random: () => number, lines: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    out.push(
      `  const value${i} = compute(${Math.floor(random() * 1000)}, "${words(random, 2)}"); // ${words(random, 4)}`,
    );
  }
  return out.join('\n');
}

interface Writer {
  line(record: unknown): void;
  bytes: number;
}

/** Writes one session of about `target` bytes. */
async function writeSession(file: string, target: number, cwd: string, start: number, random: () => number) {
  const sessionId = path.basename(file, '.jsonl');
  const stream = createWriteStream(file);
  const w: Writer = {
    bytes: 0,
    line(record) {
      const text = `${JSON.stringify(record)}\n`;
      this.bytes += Buffer.byteLength(text);
      if (!stream.write(text)) pending = new Promise<void>((r) => stream.once('drain', () => r()));
    },
  };
  let pending: Promise<unknown> | undefined;
  let t = start;
  let parent: string | null = null;
  const common = () => ({
    parentUuid: parent,
    isSidechain: false,
    userType: 'external',
    cwd,
    sessionId,
    version: '2.1.38',
    gitBranch: 'main',
  });
  const stamp = () => new Date((t += 1000 + Math.floor(random() * 20_000))).toISOString();
  const next = (record: Record<string, unknown>) => {
    const uuid = uuidFrom(random);
    w.line({ ...common(), ...record, uuid, timestamp: stamp() });
    parent = uuid;
    return uuid;
  };
  w.line({ type: 'summary', summary: words(random, 5), leafUuid: uuidFrom(random) });
  while (w.bytes < target) {
    next({ type: 'user', message: { role: 'user', content: words(random, 8 + Math.floor(random() * 30)) } });
    const rounds = Math.floor(random() * 4);
    for (let r = 0; r <= rounds && w.bytes < target; r++) {
      const messageId = `msg_${uuidFrom(random).replace(/-/g, '').slice(0, 24)}`;
      const requestId = `req_${uuidFrom(random).replace(/-/g, '').slice(0, 24)}`;
      const usage = (out: number) => ({
        input_tokens: 3 + Math.floor(random() * 50),
        cache_creation_input_tokens: Math.floor(random() * 5000),
        cache_read_input_tokens: Math.floor(random() * 50_000),
        output_tokens: out,
      });
      const assistant = (block: unknown, out: number) =>
        next({
          type: 'assistant',
          requestId,
          message: {
            model: 'claude-opus-4-6',
            id: messageId,
            type: 'message',
            role: 'assistant',
            content: [block],
            stop_reason: null,
            usage: usage(out),
          },
        });
      if (random() < 0.6)
        assistant({ type: 'thinking', thinking: words(random, 60), signature: 'Es'.padEnd(200, 'x') }, 10);
      assistant({ type: 'text', text: `${words(random, 40)}\n\n\`\`\`ts\n${code(random, 6)}\n\`\`\`` }, 10);
      const last = r === rounds;
      if (last) continue;
      const tool = TOOLS[Math.floor(random() * TOOLS.length)]!;
      const toolUseId = `toolu_${uuidFrom(random).replace(/-/g, '').slice(0, 24)}`;
      const callUuid = assistant(
        {
          type: 'tool_use',
          id: toolUseId,
          name: tool,
          input: { file_path: `${cwd}/src/file${r}.ts`, command: 'npm test' },
        },
        100 + Math.floor(random() * 900),
      );
      if (random() < 0.3) {
        next({
          type: 'progress',
          data: { type: 'bash_progress', output: words(random, 20), elapsedTimeSeconds: 2 },
          toolUseID: toolUseId,
          parentToolUseID: toolUseId,
        });
      }
      const body = code(random, 20 + Math.floor(random() * 120));
      const image = random() < 0.01;
      next({
        type: 'user',
        sourceToolAssistantUUID: callUuid,
        message: {
          role: 'user',
          content: [
            image
              ? {
                  tool_use_id: toolUseId,
                  type: 'tool_result',
                  content: [
                    {
                      type: 'image',
                      source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo'.padEnd(400_000, 'A') },
                    },
                  ],
                }
              : { tool_use_id: toolUseId, type: 'tool_result', content: body },
          ],
        },
        toolUseResult:
          tool === 'Read'
            ? {
                type: 'text',
                file: { filePath: `${cwd}/src/file${r}.ts`, content: body, numLines: 40, startLine: 1, totalLines: 40 },
              }
            : { stdout: body.slice(0, 2000), stderr: '', interrupted: false, isImage: false },
      });
      if (pending) {
        await pending;
        pending = undefined;
      }
    }
    if (random() < 0.2) {
      w.line({
        type: 'file-history-snapshot',
        messageId: uuidFrom(random),
        snapshot: { messageId: uuidFrom(random), trackedFileBackups: {}, timestamp: new Date(t).toISOString() },
        isSnapshotUpdate: false,
      });
    }
    if (pending) {
      await pending;
      pending = undefined;
    }
  }
  await new Promise<void>((resolve, reject) =>
    stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
  return w.bytes;
}

/** Writes `<home>/.claude/projects/...` and returns the total bytes written. */
export async function generateClaude(
  home: string,
  profile: ClaudeProfile,
  log: (s: string) => void = () => {},
): Promise<number> {
  const random = prng(profile.seed);
  const sizes = fileSizes(profile, random);
  const projects = Array.from({ length: profile.projects }, (_, i) => `/home/bench/work/project-${i}`);
  let total = 0;
  const start = Date.parse('2026-01-05T00:00:00Z');
  for (const [i, size] of sizes.entries()) {
    const cwd = projects[i % projects.length]!;
    const dir = path.join(home, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
    await fs.mkdir(dir, { recursive: true });
    total += await writeSession(path.join(dir, `${uuidFrom(random)}.jsonl`), size, cwd, start + i * 3_600_000, random);
    if (i % 200 === 0) log(`  claude: ${i}/${sizes.length} files, ${(total / 1e6).toFixed(0)} MB`);
  }
  return total;
}
