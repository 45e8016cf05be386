/**
 * Cline task folders for the benchmark (docs/formats/cline.md):
 * `~/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/<epoch ms>/` with
 * `api_conversation_history.json` (native `tool_use` / `tool_result` blocks, thinking, `<environment_details>`
 * on every user turn, `ts` and `modelInfo` on each message), `ui_messages.json` (the task, reasoning, text, tool
 * entries and one `api_req_started` per request with its tokens and cost, placed by `conversationHistoryIndex`)
 * and `task_metadata.json`. A task ends on `attempt_completion`; the user's feedback starts the next round.
 */
import path from 'node:path';
import { fileSizes, prng, uuidFrom, wordsFrom } from './generate-claude.ts';
import { outputLines, type SessionProfile, sessionStart, writeText } from './profile.ts';

export const CLINE_PROFILE: SessionProfile = {
  sessions: 60,
  medianBytes: 80_000,
  maxBytes: 2_500_000,
  totalBytes: 9_000_000,
  projects: 4,
  seed: 31,
};

export function clineTasks(home: string): string {
  return path.join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev', 'tasks');
}

const WORDS =
  'the invoice export times out on large accounts because each row loads its customer so we batch the lookups and stream the csv to the response'.split(
    ' ',
  );

const MODEL = 'claude-sonnet-4-5-20250929';

export async function generateCline(home: string, profile: SessionProfile): Promise<number> {
  const random = prng(profile.seed);
  const words = (n: number) => wordsFrom(WORDS, random, n);
  const sizes = fileSizes({ ...profile, files: profile.sessions, minBytes: 4_000 }, random);
  let bytes = 0;
  for (const [i, target] of sizes.entries()) {
    const cwd = `/home/bench/work/billing-app-${i % profile.projects}`;
    const started = sessionStart(i, sizes.length, random);
    let t = started;
    const api: Array<Record<string, unknown>> = [];
    const ui: Array<Record<string, unknown>> = [];
    let size = 0;
    const push = (list: Array<Record<string, unknown>>, value: Record<string, unknown>) => {
      list.push(value);
      size += JSON.stringify(value).length;
    };
    const environment = () => ({
      type: 'text',
      text: `<environment_details>\n# Visual Studio Code Visible Files\nsrc/export/invoices.ts\n\n# Current Time\n${new Date(t).toUTCString()}\n\n# Current Working Directory (${cwd}) Files\n${outputLines('src', 20, words)}\n\n# Current Mode\nACT MODE\n</environment_details>`,
    });
    const say = (what: string, text: string, extra: Record<string, unknown> = {}) =>
      push(ui, { ts: t, type: 'say', say: what, text, conversationHistoryIndex: api.length - 1, ...extra });
    const assistant = (content: unknown[]) => {
      const tokensIn = 2 + Math.floor(random() * 40);
      const tokensOut = 40 + Math.floor(random() * 600);
      const cacheWrites = 200 + Math.floor(random() * 3_000);
      const cacheReads = 10_000 + Math.floor(random() * 60_000);
      const cost = Math.round(tokensIn * 0.3 + tokensOut * 1.5 + cacheWrites * 0.375 + cacheReads * 0.03) / 1e5;
      const request = { request: '<task>…</task>', tokensIn, tokensOut, cacheWrites, cacheReads, cost };
      // The request sent the last user message and is answered by the assistant message pushed next.
      push(ui, {
        ts: t,
        type: 'say',
        say: 'api_req_started',
        text: JSON.stringify(request),
        conversationHistoryIndex: api.length - 2,
      });
      t += 2_000 + Math.floor(random() * 15_000);
      push(api, {
        role: 'assistant',
        content,
        ts: t,
        modelInfo: { modelId: MODEL, providerId: 'anthropic', mode: 'act' },
      });
    };
    const task = `${words(6 + Math.floor(random() * 25))}?`;
    push(ui, { ts: t, type: 'say', say: 'task', text: task, conversationHistoryIndex: -1 });
    push(api, { role: 'user', content: [{ type: 'text', text: `<task>\n${task}\n</task>` }, environment()], ts: t });
    for (let round = 0; round === 0 || size < target - 2_000; round++) {
      const calls = 1 + Math.floor(random() * 5);
      for (let c = 0; c < calls && size < target - 2_000; c++) {
        const call = toolCall(cwd, Math.max(3, Math.min(100, Math.floor((target - size) / 200))), words, random);
        const id = `toolu_${uuidFrom(random).replace(/-/g, '').slice(0, 24)}`;
        const thinking = words(15 + Math.floor(random() * 30));
        const note = words(10 + Math.floor(random() * 20));
        assistant([
          { type: 'thinking', thinking, signature: uuidFrom(random) },
          { type: 'text', text: note },
          { type: 'tool_use', id, name: call.name, input: call.input },
        ]);
        say('reasoning', thinking);
        say('text', note);
        say(call.uiKind, call.uiText);
        t += 500 + Math.floor(random() * 8_000);
        push(api, {
          role: 'user',
          content: [{ type: 'tool_result', tool_use_id: id, content: call.output }, environment()],
          ts: t,
        });
      }
      const id = `toolu_${uuidFrom(random).replace(/-/g, '').slice(0, 24)}`;
      const summary = `${words(30 + Math.floor(random() * 60))}\n\n- ${words(10)}\n- ${words(10)}`;
      assistant([{ type: 'tool_use', id, name: 'attempt_completion', input: { result: summary } }]);
      say('completion_result', summary);
      if (size >= target - 2_000) break;
      t += 60_000 + Math.floor(random() * 900_000);
      const feedback = `${words(6 + Math.floor(random() * 20))}.`;
      say('user_feedback', feedback);
      const answer = 'The user has provided feedback on the results. Try to incorporate their input and try again.';
      push(api, {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: id, content: answer },
          { type: 'text', text: `<feedback>\n${feedback}\n</feedback>` },
          environment(),
        ],
        ts: t,
      });
    }
    push(ui, {
      ts: t + 500,
      type: 'ask',
      ask: 'completion_result',
      text: '',
      conversationHistoryIndex: api.length - 1,
    });
    const metadata = {
      files_in_context: [],
      model_usage: [{ ts: started + 50, model_id: MODEL, model_provider_id: 'anthropic', mode: 'act' }],
      environment_history: [
        {
          ts: started + 40,
          os_name: 'linux',
          os_version: '6.8.0',
          os_arch: 'x64',
          host_name: 'Visual Studio Code',
          host_version: '1.108.1',
          cline_version: '3.51.0',
        },
      ],
    };
    const dir = path.join(clineTasks(home), String(started));
    bytes += await writeText(path.join(dir, 'api_conversation_history.json'), JSON.stringify(api));
    bytes += await writeText(path.join(dir, 'ui_messages.json'), JSON.stringify(ui));
    bytes += await writeText(path.join(dir, 'task_metadata.json'), JSON.stringify(metadata));
  }
  return bytes;
}

/** A native tool call as Cline sends it, its result, and the UI entry the extension shows for it. */
function toolCall(cwd: string, lines: number, words: (n: number) => string, random: () => number) {
  const file = `src/export/${words(1)}.ts`;
  const kind = random();
  if (kind < 0.45) {
    const uiText = JSON.stringify({ tool: 'readFile', path: file, content: `${cwd}/${file}` });
    return {
      name: 'read_file',
      input: { path: file },
      output: outputLines(file, lines, words),
      uiKind: 'tool',
      uiText,
    };
  }
  if (kind < 0.8) {
    const output = `Command executed.\nOutput:\n${outputLines('test/export.test.ts', lines, words)}`;
    return {
      name: 'execute_command',
      input: { command: 'npm test', requires_approval: false },
      output,
      uiKind: 'command',
      uiText: 'npm test',
    };
  }
  const diff = `------- SEARCH\n${words(8)}\n=======\n${outputLines(file, Math.min(lines, 12), words)}\n+++++++ REPLACE`;
  const uiText = JSON.stringify({ tool: 'editedExistingFile', path: file, diff });
  return {
    name: 'replace_in_file',
    input: { path: file, diff },
    output: `The content was successfully saved to ${file}.`,
    uiKind: 'tool',
    uiText,
  };
}
