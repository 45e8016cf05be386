/**
 * A realistic Amazon Q Developer CLI database for the benchmark, generated on the fly (never committed):
 * `<home>/.local/share/amazon-q/data.sqlite3` with the CLI's tables (migrations 000–007, FORMATS.md §3.2) and
 * ~150 rows in `conversations(key, value)`: one per directory, each a compact `ConversationState` JSON
 * (§3.3) in the object form of late-2025 builds: prompts, `ToolUse` responses with `execute_bash` / `fs_read` /
 * `fs_write` calls, `ToolUseResults` (Text and Json), request metadata with per-chunk timings, the transcript,
 * the native tool specifications and the model info. `auth_kv` and `state` are created but left empty.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fileSizes, prng, scaleSizes, uuidFrom, wordsFrom } from './generate-claude.ts';

export interface AmazonQProfile {
  conversations: number;
  medianBytes: number;
  maxBytes: number;
  totalBytes: number;
  seed: number;
}

export const AMAZONQ_PROFILE: AmazonQProfile = {
  conversations: 150,
  medianBytes: 30_000,
  maxBytes: 2_500_000,
  totalBytes: 12_000_000,
  seed: 11,
};

/** Scaled like the Claude profile (see scaleSizes). */
export function scaleAmazonQProfile(profile: AmazonQProfile, scale: number): AmazonQProfile {
  if (scale === 1) return { ...profile };
  const { count, ...sizes } = scaleSizes({ ...profile, count: profile.conversations }, scale, 3, 300_000);
  return { ...profile, ...sizes, conversations: count };
}

/** Where the Q CLI keeps its database on Linux (`dirs::data_local_dir()/amazon-q`). */
export function amazonQDatabase(home: string): string {
  return path.join(home, '.local', 'share', 'amazon-q', 'data.sqlite3');
}

const WORDS =
  'the lambda times out because the bucket policy denies the role so we update the template and redeploy the stack then check the logs in cloudwatch again'.split(
    ' ',
  );

function words(random: () => number, n: number): string {
  return wordsFrom(WORDS, random, n);
}

const spec = (name: string, description: string, properties: Record<string, unknown>) => ({
  ToolSpecification: {
    name,
    description,
    input_schema: { json: { type: 'object', properties, required: Object.keys(properties).slice(0, 1) } },
  },
});

/** The native tool set every conversation stores (shortened descriptions; the real ones are longer). */
const NATIVE_TOOLS = [
  spec('execute_bash', 'Execute the specified bash command. '.repeat(12), {
    command: { type: 'string', description: 'Bash command to execute' },
    summary: { type: 'string', description: 'A brief explanation of what the command does' },
  }),
  spec('fs_read', 'Tool for reading files, directories and images. '.repeat(15), {
    operations: { type: 'array', description: 'Array of operations to execute', items: { type: 'object' } },
  }),
  spec('fs_write', 'A tool for creating and editing files. '.repeat(15), {
    command: { type: 'string', enum: ['create', 'str_replace', 'insert', 'append'] },
    path: { type: 'string', description: 'Absolute path to file or directory' },
  }),
  spec('use_aws', 'Make an AWS CLI api call with the specified service, operation, and parameters. '.repeat(8), {
    service_name: { type: 'string' },
    operation_name: { type: 'string' },
    region: { type: 'string' },
  }),
  spec('report_issue', 'Opens the browser to a pre-filled GitHub issue template. '.repeat(4), {
    title: { type: 'string' },
  }),
];

const NATIVE_TOOLS_BYTES = JSON.stringify(NATIVE_TOOLS).length;

interface Entry {
  user: Record<string, unknown>;
  assistant: Record<string, unknown>;
  request_metadata: Record<string, unknown>;
}

/** One conversation of about `target` bytes of JSON. */
function conversation(target: number, cwd: string, start: number, random: () => number): string {
  const id = uuidFrom(random);
  const history: Entry[] = [];
  const transcript: string[] = [];
  let t = start;
  const offset = '+02:00';
  const local = (ms: number) => {
    const shifted = new Date(ms + 2 * 3_600_000).toISOString().slice(0, 23);
    return `${shifted}${String(Math.floor(random() * 1000)).padStart(3, '0')}${offset}`;
  };
  const env = {
    env_state: { operating_system: 'linux', current_working_directory: cwd, environment_variables: [] },
  };
  const metadata = (messageId: string, tools: Array<[string, string]>, promptLength: number, responseSize: number) => {
    const startMs = (t += 2_000 + Math.floor(random() * 30_000));
    const chunks = 10 + Math.floor(random() * 150);
    const endMs = (t += chunks * 40);
    return {
      request_id: uuidFrom(random),
      message_id: messageId,
      request_start_timestamp_ms: startMs,
      stream_end_timestamp_ms: endMs,
      time_to_first_chunk: { secs: 1, nanos: Math.floor(random() * 1e9) },
      time_between_chunks: Array.from({ length: chunks }, () => ({ secs: 0, nanos: Math.floor(random() * 9e7) })),
      user_prompt_length: promptLength,
      response_size: responseSize,
      chat_conversation_type: tools.length ? 'ToolUse' : 'NotToolUse',
      tool_use_ids_and_names: tools,
      model_id: 'claude-sonnet-4.5',
      message_meta_tags: [],
    };
  };
  let bytes = NATIVE_TOOLS_BYTES + 800; // the tool specs, the context manager, the model info
  while (bytes < target) {
    const prompt = `${words(random, 5 + Math.floor(random() * 25))}?`;
    let user: Record<string, unknown> = {
      additional_context: '',
      env_context: env,
      content: { Prompt: { prompt } },
      timestamp: local((t += 60_000 + Math.floor(random() * 600_000))),
      images: null,
    };
    transcript.push(`> ${prompt}`);
    bytes += prompt.length + 5;
    const calls = Math.floor(random() * 5);
    for (let c = 0, done = false; !done; c++) {
      // The prompt's tool rounds end early when the conversation reached its size: the answer comes next.
      done = c === calls || bytes >= target - 2_000;
      const text = words(random, 10 + Math.floor(random() * 40));
      const messageId = uuidFrom(random);
      let assistant: Record<string, unknown>;
      let tools: Array<[string, string]> = [];
      let results: unknown[] = [];
      if (!done) {
        const callId = `tooluse_${uuidFrom(random).replace(/-/g, '').slice(0, 22)}`;
        const kind = Math.floor(random() * 3);
        const room = Math.max(3, Math.floor((target - bytes) / 120));
        const lines = Math.min(room, 5 + Math.floor(random() * 80));
        const output = Array.from(
          { length: lines },
          (_, i) => `${cwd}/template.yaml:${i + 1}: ${words(random, 6)}`,
        ).join('\n');
        const [name, args, content] =
          kind === 0
            ? [
                'execute_bash',
                { command: `rg -n "${words(random, 1)}" .`, summary: words(random, 5) },
                [{ Json: { exit_status: '0', stdout: output, stderr: '' } }],
              ]
            : kind === 1
              ? ['fs_read', { operations: [{ mode: 'Line', path: `${cwd}/template.yaml` }] }, [{ Text: output }]]
              : [
                  'fs_write',
                  {
                    command: 'str_replace',
                    path: `${cwd}/template.yaml`,
                    old_str: words(random, 8),
                    new_str: output.slice(0, 400),
                  },
                  [{ Text: '' }],
                ];
        tools = [[callId, name]];
        assistant = {
          ToolUse: {
            message_id: messageId,
            content: text,
            tool_uses: [{ id: callId, name, orig_name: name, args, orig_args: args }],
          },
        };
        results = [{ tool_use_id: callId, content, status: 'Success' }];
        transcript.push(`${text}\n[Tool uses: ${name}]`);
      } else {
        const answer = `${text}\n\n\`\`\`yaml\n${words(random, 30)}\n\`\`\``;
        assistant = { Response: { message_id: messageId, content: answer } };
        transcript.push(`${answer}\n[Tool uses: none]`);
      }
      const entry = {
        user,
        assistant,
        request_metadata: metadata(messageId, tools, c === 0 ? prompt.length : 0, text.length),
      };
      bytes += JSON.stringify(entry).length + JSON.stringify(transcript[transcript.length - 1]).length + 1;
      history.push(entry);
      user = {
        additional_context: '',
        env_context: env,
        content: { ToolUseResults: { tool_use_results: results } },
        timestamp: null,
        images: null,
      };
    }
  }
  return JSON.stringify({
    conversation_id: id,
    next_message: null,
    history,
    valid_history_range: [0, history.length],
    transcript,
    tools: { native___: NATIVE_TOOLS },
    context_manager: {
      max_context_files_size: 150_000,
      current_profile: 'q_cli_default',
      paths: ['AmazonQ.md', 'README.md', '.amazonq/rules/**/*.md'],
      hooks: {},
    },
    context_message_length: 2_000 + Math.floor(random() * 8_000),
    latest_summary: null,
    model_info: {
      model_name: 'claude-sonnet-4.5',
      model_id: 'claude-sonnet-4.5',
      context_window_tokens: 200_000,
    },
    file_line_tracker: {},
    mcp_enabled: true,
  });
}

/** Writes the database (replacing one that exists); returns its size in bytes. */
export async function generateAmazonQ(
  home: string,
  profile: AmazonQProfile,
  log: (s: string) => void = () => {},
): Promise<number> {
  const random = prng(profile.seed);
  const sizes = fileSizes({ ...profile, files: profile.conversations, minBytes: 5_000 }, random);
  const file = amazonQDatabase(home);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.rm(file, { force: true });
  const db = new Database(file);
  try {
    db.exec(`
      CREATE TABLE migrations(id INTEGER PRIMARY KEY, version INTEGER NOT NULL, migration_time INTEGER NOT NULL);
      CREATE TABLE history(id INTEGER PRIMARY KEY, command TEXT, shell TEXT, pid INTEGER, session_id TEXT, cwd TEXT,
        start_time INTEGER, end_time INTEGER, duration INTEGER, hostname TEXT, exit_code INTEGER);
      CREATE TABLE state(key TEXT PRIMARY KEY, value BLOB);
      CREATE TABLE auth_kv(key TEXT PRIMARY KEY, value TEXT);
      CREATE TABLE conversations(key TEXT PRIMARY KEY, value TEXT);
    `);
    const migration = db.prepare('INSERT INTO migrations(id, version, migration_time) VALUES (?, ?, ?)');
    for (let v = 0; v < 8; v++) migration.run(v, v, 1_746_000_000 + v);
    const insert = db.prepare('INSERT OR REPLACE INTO conversations(key, value) VALUES (?, ?)');
    const start = Date.parse('2026-01-05T00:00:00Z');
    const span = 130 * 86_400_000;
    db.transaction(() => {
      for (const [i, size] of sizes.entries()) {
        // One row per directory: Q overwrites a directory's conversation when a new chat starts there.
        const cwd = `/home/bench/work/q-service-${i % 30}/module-${Math.floor(i / 30)}`;
        const at = start + Math.floor((i / sizes.length) * span) + Math.floor(random() * 3_600_000);
        insert.run(cwd, conversation(size, cwd, at, random));
        if (i % 50 === 0) log(`  amazon-q: ${i}/${sizes.length} conversations`);
      }
    })();
  } finally {
    db.close();
  }
  return (await fs.stat(file)).size;
}
