/**
 * Qwen Code sessions for the benchmark (docs/formats/qwen-code.md): per project
 * `~/.qwen/projects/<path with every other character a dash>/chats/<session id>.jsonl`, one `ChatRecord` per line,
 * append-only: per prompt a `user` record, then rounds of an `assistant` record (thought and text parts, a
 * `functionCall`, the OpenAI-compatible `usageMetadata`) and its `tool_result`, a `ui_telemetry` record now and
 * then, and a `custom_title` once the first answer is in. `~/.qwen/tmp/<sha256 of the path>/logs.json` holds
 * every prompt.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileSizes, prng, uuidFrom, wordsFrom } from './generate-claude.ts';
import { iso, outputLines, type SessionProfile, sessionStart, writeText } from './profile.ts';

export const QWEN_PROFILE: SessionProfile = {
  sessions: 40,
  medianBytes: 50_000,
  maxBytes: 1_500_000,
  totalBytes: 3_600_000,
  projects: 3,
  seed: 37,
};

const WORDS =
  'the search index skips deleted notes only on the first page so the cursor keeps them and the count is wrong when a filter is set'.split(
    ' ',
  );

export async function generateQwen(home: string, profile: SessionProfile): Promise<number> {
  const random = prng(profile.seed);
  const words = (n: number) => wordsFrom(WORDS, random, n);
  const sizes = fileSizes({ ...profile, files: profile.sessions, minBytes: 4_000 }, random);
  const root = path.join(home, '.qwen');
  const projects = Array.from({ length: profile.projects }, (_, i) => `/home/bench/work/qwen-notes-${i}`);
  const logs = new Map<string, Array<Record<string, unknown>>>(projects.map((p) => [p, []]));
  let bytes = 0;
  for (const [i, target] of sizes.entries()) {
    const cwd = projects[i % projects.length]!;
    const sessionId = uuidFrom(random);
    let t = sessionStart(i, sizes.length, random);
    const lines: string[] = [];
    let size = 0;
    let parent: string | null = null;
    const put = (type: string, fields: Record<string, unknown>) => {
      const uuid = uuidFrom(random);
      const record = {
        uuid,
        parentUuid: parent,
        sessionId,
        timestamp: iso(t),
        type,
        cwd,
        version: '0.24.4',
        gitBranch: 'main',
        ...fields,
      };
      parent = uuid;
      const line = JSON.stringify(record);
      lines.push(line);
      size += line.length + 1;
    };
    const model = random() < 0.7 ? 'qwen3-coder-plus' : 'qwen3-coder-flash';
    let prompts = 0;
    let titled = false;
    while (prompts === 0 || size < target - 1_500) {
      const prompt = `${words(6 + Math.floor(random() * 25))}?`;
      t += 60_000 + Math.floor(random() * 900_000);
      put('user', {
        message: { role: 'user', parts: [{ text: prompt }] },
        systemPayload: { displayText: prompt, hookContext: '' },
      });
      logs.get(cwd)!.push({ sessionId, messageId: prompts++, timestamp: iso(t), type: 'user', message: prompt });
      const rounds = 1 + Math.floor(random() * 5);
      for (let r = 0; r <= rounds; r++) {
        t += 2_000 + Math.floor(random() * 20_000);
        const last = r === rounds || size >= target - 1_500;
        const prompt = 8_000 + Math.floor(random() * 60_000);
        const reasoning = Math.floor(random() * 400);
        const completion = 40 + Math.floor(random() * 700) + reasoning;
        const usageMetadata = {
          promptTokenCount: prompt,
          candidatesTokenCount: completion,
          thoughtsTokenCount: reasoning,
          totalTokenCount: prompt + completion,
          cachedContentTokenCount: Math.floor(prompt * random() * 0.8),
        };
        const thought = { text: words(20 + Math.floor(random() * 30)), thought: true };
        if (last) {
          const answer = `${words(30 + Math.floor(random() * 60))}\n\n- ${words(10)}\n- ${words(10)}`;
          put('assistant', { model, message: { role: 'model', parts: [thought, { text: answer }] }, usageMetadata });
          if (random() < 0.3) put('system', { subtype: 'ui_telemetry', systemPayload: { uiEvent: { model } } });
          break;
        }
        const call = toolCall(cwd, Math.max(3, Math.min(100, Math.floor((target - size) / 150))), words, random);
        const id = `call_${t.toString(36)}${Math.floor(random() * 1e6)}`;
        put('assistant', {
          model,
          message: { role: 'model', parts: [thought, { functionCall: { id, name: call.name, args: call.args } }] },
          usageMetadata,
        });
        t += 1_500;
        const failed = call.name === 'run_shell_command' && random() < 0.15;
        put('tool_result', {
          message: {
            role: 'user',
            parts: [
              {
                functionResponse: {
                  id,
                  name: call.name,
                  response: failed ? { error: 'Command exited with code: 1' } : { output: call.output },
                },
              },
            ],
          },
          toolCallResult: { callId: id, status: failed ? 'error' : 'success', resultDisplay: call.display },
        });
      }
      if (!titled) {
        put('system', { subtype: 'custom_title', systemPayload: { customTitle: words(5), titleSource: 'auto' } });
        titled = true;
      }
    }
    const dir = cwd.replace(/[^a-zA-Z0-9]/g, '-');
    bytes += await writeText(path.join(root, 'projects', dir, 'chats', `${sessionId}.jsonl`), `${lines.join('\n')}\n`);
  }
  for (const cwd of projects) {
    const hash = createHash('sha256').update(cwd).digest('hex');
    await writeText(path.join(root, 'tmp', hash, 'logs.json'), JSON.stringify(logs.get(cwd), null, 2));
  }
  return bytes;
}

interface Call {
  name: string;
  args: Record<string, unknown>;
  output: string;
  display: unknown;
}

function toolCall(cwd: string, lines: number, words: (n: number) => string, random: () => number): Call {
  const file = `${cwd}/src/search/${words(1)}.ts`;
  const kind = random();
  if (kind < 0.4) {
    return { name: 'read_file', args: { absolute_path: file }, output: outputLines(file, lines, words), display: '' };
  }
  if (kind < 0.75) {
    const output = `Command: npm test\nDirectory: (root)\nOutput: ${outputLines('test/search.test.ts', lines, words)}\nExit Code: 0`;
    return { name: 'run_shell_command', args: { command: 'npm test', description: words(5) }, output, display: output };
  }
  const oldString = words(8);
  const newString = outputLines(file, Math.min(lines, 12), words);
  return {
    name: 'edit',
    args: { file_path: file, old_string: oldString, new_string: newString },
    output: `The file: ${file} has been updated.`,
    display: { fileDiff: `@@ -1 +1,12 @@\n-${oldString}\n+${newString}`, fileName: path.basename(file) },
  };
}
