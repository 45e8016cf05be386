/**
 * A realistic Claude Code corpus for the benchmark, generated on the fly (never committed).
 * Size profile after ccusage's realistic test data: ~3,142 files / 1.24 GB, median file ~105 KB,
 * a long tail up to ~87 MB. Sessions are streamed lines with thinking, text, tool calls, tool results
 * with structured `toolUseResult`, progress lines, snapshots and the odd base64 screenshot.
 */
import { randomUUID } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';

export interface ClaudeProfile {
  files: number;
  /** Median file size in bytes. */
  medianBytes: number;
  /** Largest file in bytes. */
  maxBytes: number;
  /** All files together, in bytes: the log-normal's spread is fitted to reach it. */
  totalBytes: number;
  projects: number;
  seed: number;
}

export const CCUSAGE_PROFILE: ClaudeProfile = {
  files: 3142,
  medianBytes: 105_000,
  maxBytes: 87_000_000,
  totalBytes: 1_240_000_000,
  projects: 40,
  seed: 42,
};

/**
 * Sizes for a scaled run: the count and the total scale with `scale`, the median stays, and the largest
 * file shrinks more slowly (never below `minMaxBytes`) so that a small corpus still has a long tail.
 */
export function scaleSizes(
  sizes: { count: number; maxBytes: number; totalBytes: number },
  scale: number,
  minCount: number,
  minMaxBytes: number,
): { count: number; maxBytes: number; totalBytes: number } {
  const count = Math.max(minCount, Math.round(sizes.count * scale));
  return {
    count,
    maxBytes: Math.max(minMaxBytes, Math.round(sizes.maxBytes * Math.min(1, scale * 2))),
    totalBytes: Math.round((sizes.totalBytes * count) / sizes.count),
  };
}

export function scaleClaudeProfile(profile: ClaudeProfile, scale: number): ClaudeProfile {
  if (scale === 1) return { ...profile };
  const { count, ...sizes } = scaleSizes({ ...profile, count: profile.files }, scale, 10, 1_000_000);
  return { ...profile, ...sizes, files: count };
}

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

/** A standard normal draw (Box-Muller). */
export function normal(random: () => number): number {
  const u1 = Math.max(random(), 1e-9);
  const u2 = random();
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

export interface SizeProfile {
  files: number;
  medianBytes: number;
  maxBytes: number;
  totalBytes: number;
  /** Smallest file (default 2,000 bytes). */
  minBytes?: number;
}

/**
 * File sizes, largest first: log-normal with the median pinned (the draws are centred on their own median),
 * the largest file pinned to the maximum and the second to 60 % of it, and the spread (sigma) fitted by
 * bisection so that the sizes add up to the total. When the total cannot be reached under the maximum,
 * the widest spread tried (sigma 3) is used.
 */
export function fileSizes(profile: SizeProfile, random: () => number): number[] {
  const minBytes = profile.minBytes ?? 2_000;
  const draws = Array.from({ length: profile.files }, () => normal(random)).sort((a, b) => b - a);
  if (draws.length === 0) return [];
  const mid = draws.length >> 1;
  const centre = draws.length % 2 ? draws[mid]! : (draws[mid - 1]! + draws[mid]!) / 2;
  const sizesFor = (sigma: number) => {
    const sizes = draws.map((z) =>
      Math.min(profile.maxBytes, Math.max(minBytes, Math.round(profile.medianBytes * Math.exp(sigma * (z - centre))))),
    );
    sizes[0] = profile.maxBytes;
    if (sizes.length > 1) sizes[1] = Math.round(profile.maxBytes * 0.6);
    return sizes;
  };
  const sum = (sizes: number[]) => sizes.reduce((a, b) => a + b, 0);
  let low = 0;
  let high = 3;
  if (sum(sizesFor(high)) <= profile.totalBytes) return sizesFor(high);
  for (let i = 0; i < 60; i++) {
    const sigma = (low + high) / 2;
    if (sum(sizesFor(sigma)) < profile.totalBytes) low = sigma;
    else high = sigma;
  }
  return sizesFor((low + high) / 2);
}

/** A UUID-shaped id from the PRNG. */
export function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}

const WORDS =
  'the function returns a value when the request is valid otherwise we throw an error and log the details to the console so the user can see what happened in the build step of the project ログイン 画面 を 修正 します'.split(
    ' ',
  );
const TOOLS = ['Read', 'Bash', 'Edit', 'Grep', 'Glob', 'Write', 'Task', 'TodoWrite', 'WebFetch'];

/** `n` words drawn from `vocabulary`. */
export function wordsFrom(vocabulary: string[], random: () => number, n: number): string {
  const out: string[] = [];
  for (let i = 0; i < n; i++) out.push(vocabulary[Math.floor(random() * vocabulary.length)]!);
  return out.join(' ');
}

function words(random: () => number, n: number): string {
  return wordsFrom(WORDS, random, n);
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

/**
 * Streams one session of about `target` bytes to `file` (never more than one round in memory, and the
 * stream's backpressure is respected, so a multi-GB session costs no memory). Returns the bytes written.
 */
export async function writeClaudeSession(
  file: string,
  target: number,
  cwd: string,
  start: number,
  random: () => number,
  onProgress?: (bytes: number) => void,
): Promise<number> {
  const sessionId = path.basename(file, '.jsonl');
  const stream = createWriteStream(file);
  const w: Writer = {
    bytes: 0,
    line(record) {
      const text = `${JSON.stringify(record)}\n`;
      this.bytes += Buffer.byteLength(text);
      if (!stream.write(text) && !pending) pending = new Promise<void>((r) => stream.once('drain', () => r()));
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
      // Small sessions get small tool results, so that files end close to their target size.
      const room = Math.max(3, Math.floor((target - w.bytes) / 250));
      const body = code(random, Math.min(room, 20 + Math.floor(random() * 120)));
      const image = random() < 0.01 && target - w.bytes > 1_000_000;
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
    onProgress?.(w.bytes);
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
    total += await writeClaudeSession(
      path.join(dir, `${uuidFrom(random)}.jsonl`),
      size,
      cwd,
      start + i * 3_600_000,
      random,
    );
    if (i % 200 === 0) log(`  claude: ${i}/${sizes.length} files, ${(total / 1e6).toFixed(0)} MB`);
  }
  return total;
}

/**
 * Appends `count` lines to a Claude session the way a running session does: a prompt, then the assistant's
 * streamed reply (thinking and text lines of one message), chained on the file's last record. Only the tail
 * of the file is read, so this works on a multi-GB session too.
 */
export async function appendClaudeLines(file: string, count: number): Promise<void> {
  const last = await lastRecord(file, (r) => typeof r.uuid === 'string' && typeof r.timestamp === 'string');
  const sessionId = typeof last?.sessionId === 'string' ? last.sessionId : path.basename(file, '.jsonl');
  let parent = typeof last?.uuid === 'string' ? last.uuid : null;
  let t = Date.parse(typeof last?.timestamp === 'string' ? last.timestamp : '2026-01-05T00:00:00Z');
  let messageId = '';
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const uuid = randomUUID();
    const common = {
      parentUuid: parent,
      isSidechain: false,
      userType: 'external',
      cwd: typeof last?.cwd === 'string' ? last.cwd : '/home/bench/work',
      sessionId,
      version: typeof last?.version === 'string' ? last.version : '2.1.38',
      gitBranch: 'main',
    };
    t += 5_000;
    if (i % 3 === 0) messageId = `msg_bench${randomUUID().replace(/-/g, '').slice(0, 20)}`;
    const record =
      i % 3 === 0
        ? { type: 'user', message: { role: 'user', content: `bench: one more change (${i + 1}/${count})` } }
        : {
            type: 'assistant',
            requestId: `req_bench${messageId.slice(9)}`,
            message: {
              model: 'claude-opus-4-6',
              id: messageId,
              type: 'message',
              role: 'assistant',
              content: [
                i % 3 === 1
                  ? { type: 'thinking', thinking: 'The user wants one more change.', signature: 'Es'.padEnd(200, 'x') }
                  : { type: 'text', text: 'Done: the change is in place.' },
              ],
              stop_reason: null,
              usage: {
                input_tokens: 12,
                cache_creation_input_tokens: 300,
                cache_read_input_tokens: 40_000,
                output_tokens: 25,
              },
            },
          };
    lines.push(JSON.stringify({ ...common, ...record, uuid, timestamp: new Date(t).toISOString() }));
    parent = uuid;
  }
  await fs.appendFile(file, `${lines.join('\n')}\n`);
}

/** The last complete JSON line of a file that `accept`s, reading backwards from the end in growing chunks. */
async function lastRecord(
  file: string,
  accept: (record: Record<string, unknown>) => boolean,
): Promise<Record<string, unknown> | undefined> {
  const handle = await fs.open(file, 'r');
  try {
    const { size } = await handle.stat();
    for (let length = Math.min(size, 1 << 20); ; length = Math.min(size, length * 4)) {
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      const lines = buffer.toString('utf8').split('\n');
      if (length < size) lines.shift(); // cut mid-line
      for (const line of lines.reverse()) {
        if (!line.trim()) continue;
        try {
          const record = JSON.parse(line) as unknown;
          if (record && typeof record === 'object' && accept(record as Record<string, unknown>))
            return record as Record<string, unknown>;
        } catch {
          // Not a whole line: keep looking.
        }
      }
      if (length >= size || length >= 256 << 20) return undefined;
    }
  } finally {
    await handle.close();
  }
}
