/**
 * Gemini CLI sessions for the benchmark (docs/formats/gemini-cli.md): per project `~/.gemini/tmp/<name>/` with
 * `.project_root`, `logs.json` (every prompt) and `chats/session-<YYYY-MM-DDTHH-MM>-<id8>.jsonl`, append-only:
 * a header, a `$set` checkpoint with the `<session_context>` turn, then per prompt the user message and `gemini`
 * messages written twice (the call while it runs, then again with its result and tokens), `$set` updates and a
 * final `$set.summary`. `~/.gemini/projects.json` maps each project path to its short name.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { fileSizes, prng, uuidFrom, wordsFrom } from './generate-claude.ts';
import { iso, outputLines, type SessionProfile, sessionStart, writeText } from './profile.ts';

export const GEMINI_PROFILE: SessionProfile = {
  sessions: 100,
  medianBytes: 50_000,
  maxBytes: 2_000_000,
  totalBytes: 9_000_000,
  projects: 6,
  seed: 21,
};

const WORDS =
  'the cart total is off by one because the discount rule runs twice so we move it into the pricing service and add a test for the coupon path'.split(
    ' ',
  );

export async function generateGemini(home: string, profile: SessionProfile): Promise<number> {
  const random = prng(profile.seed);
  const words = (n: number) => wordsFrom(WORDS, random, n);
  const sizes = fileSizes({ ...profile, files: profile.sessions, minBytes: 4_000 }, random);
  const root = path.join(home, '.gemini');
  const projects = Array.from({ length: profile.projects }, (_, i) => `/home/bench/work/gemini-shop-${i}`);
  const logs = new Map<string, Array<Record<string, unknown>>>(projects.map((p) => [p, []]));
  let bytes = 0;
  for (const [i, target] of sizes.entries()) {
    const cwd = projects[i % projects.length]!;
    const id = uuidFrom(random);
    let t = sessionStart(i, sizes.length, random);
    const lines: string[] = [];
    let size = 0;
    const put = (record: unknown) => {
      const line = JSON.stringify(record);
      lines.push(line);
      size += line.length + 1;
    };
    const startTime = iso(t);
    put({
      sessionId: id,
      projectHash: createHash('sha256').update(cwd).digest('hex'),
      startTime,
      lastUpdated: startTime,
      kind: 'main',
    });
    const context = `<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n- **Workspace Directories:**\n  - ${cwd}\n- **Directory Structure:**\n${outputLines(`${cwd}/src`, 30, words)}\n</session_context>`;
    put({
      $set: { messages: [{ id: uuidFrom(random), timestamp: iso(t), type: 'user', content: [{ text: context }] }] },
    });
    const model = random() < 0.7 ? 'gemini-2.5-pro' : 'gemini-2.5-flash';
    let prompts = 0;
    while (prompts === 0 || size < target - 1_500) {
      const prompt = `${words(6 + Math.floor(random() * 25))}?`;
      t += 60_000 + Math.floor(random() * 900_000);
      put({ id: uuidFrom(random), timestamp: iso(t), type: 'user', content: [{ text: prompt }] });
      put({ $set: { lastUpdated: iso(t + 10) } });
      logs.get(cwd)!.push({ sessionId: id, messageId: prompts++, timestamp: iso(t), type: 'user', message: prompt });
      const rounds = 1 + Math.floor(random() * 5);
      for (let r = 0; r <= rounds; r++) {
        t += 2_000 + Math.floor(random() * 20_000);
        const last = r === rounds || size >= target - 1_500;
        const input = 8_000 + Math.floor(random() * 60_000);
        const output = 40 + Math.floor(random() * 700);
        const thoughtTokens = Math.floor(random() * 400);
        const cached = Math.floor(input * random() * 0.8);
        const message = {
          id: uuidFrom(random),
          timestamp: iso(t),
          type: 'gemini',
          content: last ? `${words(30 + Math.floor(random() * 60))}\n\n- ${words(10)}\n- ${words(10)}` : '',
          thoughts: [
            { subject: words(3), description: words(20 + Math.floor(random() * 30)), timestamp: iso(t - 900) },
          ],
          model,
        };
        const tokens = {
          input,
          output,
          cached,
          thoughts: thoughtTokens,
          tool: 0,
          total: input + output + thoughtTokens,
        };
        if (last) {
          put({ ...message, tokens });
          break;
        }
        const call = toolCall(cwd, Math.max(3, Math.min(100, Math.floor((target - size) / 150))), words, random);
        const callId = `${call.name}-${t}-${Math.floor(random() * 1e6)}`;
        const running = { id: callId, name: call.name, args: call.args, status: 'executing', timestamp: iso(t) };
        put({ ...message, toolCalls: [running] });
        const response = { id: callId, name: call.name, response: { output: call.output } };
        put({
          ...message,
          tokens,
          toolCalls: [
            {
              ...running,
              result: [{ functionResponse: response }],
              status: 'success',
              timestamp: iso(t + 1_500),
              resultDisplay: call.display,
              displayName: call.displayName,
              description: '',
              renderOutputAsMarkdown: call.name !== 'run_shell_command',
            },
          ],
        });
      }
    }
    put({ $set: { summary: words(5), lastUpdated: iso(t + 1_000) } });
    const stamp = startTime.slice(0, 16).replace(':', '-');
    const file = path.join(root, 'tmp', path.basename(cwd), 'chats', `session-${stamp}-${id.slice(0, 8)}.jsonl`);
    bytes += await writeText(file, `${lines.join('\n')}\n`);
  }
  const registry: Record<string, string> = {};
  for (const cwd of projects) {
    registry[cwd] = path.basename(cwd);
    const dir = path.join(root, 'tmp', path.basename(cwd));
    await writeText(path.join(dir, '.project_root'), cwd);
    await writeText(path.join(dir, 'logs.json'), JSON.stringify(logs.get(cwd), null, 2));
  }
  await writeText(path.join(root, 'projects.json'), JSON.stringify({ projects: registry }, null, 2));
  return bytes;
}

interface Call {
  name: string;
  displayName: string;
  args: Record<string, unknown>;
  output: string;
  display: unknown;
}

function toolCall(cwd: string, lines: number, words: (n: number) => string, random: () => number): Call {
  const file = `${cwd}/src/pricing/${words(1)}.ts`;
  const kind = random();
  if (kind < 0.4) {
    const output = outputLines(file, lines, words);
    return { name: 'read_file', displayName: 'ReadFile', args: { absolute_path: file }, output, display: '' };
  }
  if (kind < 0.75) {
    const output = `Command: npm test\nDirectory: (root)\nOutput: ${outputLines('test/cart.test.ts', lines, words)}\nExit Code: ${random() < 0.2 ? 1 : 0}`;
    const args = { command: 'npm test', description: words(5), dir_path: cwd };
    return { name: 'run_shell_command', displayName: 'Shell', args, output, display: output };
  }
  const oldString = words(8);
  const newString = outputLines(file, Math.min(lines, 12), words);
  return {
    name: 'replace',
    displayName: 'Edit',
    args: { file_path: file, old_string: oldString, new_string: newString },
    output: `Successfully modified file: ${file} (1 replacements).`,
    display: { fileDiff: `@@ -1 +1,12 @@\n-${oldString}\n+${newString}`, fileName: path.basename(file) },
  };
}
