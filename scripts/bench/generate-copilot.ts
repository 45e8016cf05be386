/**
 * GitHub Copilot CLI sessions for the benchmark (docs/formats/copilot-cli.md): `~/.copilot/session-state/<uuid>/`
 * with `workspace.yaml` and `events.jsonl`, one event per line chained by `parentId`: `session.start`, per prompt
 * `user.message`, `assistant.turn_start`, `assistant.message` with `reasoningText`, `toolRequests` and
 * `outputTokens`, `tool.execution_start` / `tool.execution_complete` with the output, `assistant.turn_end`; and
 * `session.shutdown` with the per-model token totals and premium requests when the CLI exits.
 */
import path from 'node:path';
import { fileSizes, prng, uuidFrom, wordsFrom } from './generate-claude.ts';
import { iso, outputLines, type SessionProfile, sessionStart, writeText } from './profile.ts';

export const COPILOT_PROFILE: SessionProfile = {
  sessions: 90,
  medianBytes: 45_000,
  maxBytes: 1_500_000,
  totalBytes: 7_000_000,
  projects: 5,
  seed: 23,
};

const WORDS =
  'the webhook handler drops events when the signature header is missing so we verify it first and return a clear error then rerun the integration tests'.split(
    ' ',
  );

export async function generateCopilot(home: string, profile: SessionProfile): Promise<number> {
  const random = prng(profile.seed);
  const words = (n: number) => wordsFrom(WORDS, random, n);
  const sizes = fileSizes({ ...profile, files: profile.sessions, minBytes: 3_000 }, random);
  const root = path.join(home, '.copilot', 'session-state');
  let bytes = 0;
  for (const [i, target] of sizes.entries()) {
    const repo = `hooks-service-${i % profile.projects}`;
    const cwd = `/home/bench/work/${repo}`;
    const id = uuidFrom(random);
    const model = random() < 0.6 ? 'claude-sonnet-4.5' : 'gpt-5.2';
    const started = sessionStart(i, sizes.length, random);
    let t = started;
    let parentId: string | null = null;
    const lines: string[] = [];
    let size = 0;
    const event = (type: string, data: Record<string, unknown>) => {
      const eventId = uuidFrom(random);
      const line = JSON.stringify({ type, data, id: eventId, timestamp: iso(t), parentId });
      parentId = eventId;
      lines.push(line);
      size += line.length + 1;
    };
    event('session.start', {
      sessionId: id,
      version: 1,
      producer: 'copilot-agent',
      copilotVersion: '1.0.55',
      startTime: iso(t),
      selectedModel: model,
      context: { cwd, gitRoot: cwd, branch: 'main', repository: `bench/${repo}` },
    });
    let requests = 0;
    let outputTokens = 0;
    let firstPrompt = '';
    for (let turn = 0; turn === 0 || size < target - 1_500; turn++) {
      t += 60_000 + Math.floor(random() * 900_000);
      const prompt = `${words(6 + Math.floor(random() * 25))}?`;
      firstPrompt ||= prompt;
      const now = `<current_datetime>${iso(t)}</current_datetime>`;
      event('user.message', { content: prompt, transformedContent: `${now}\n\n${prompt}`, attachments: [] });
      event('assistant.turn_start', { turnId: String(turn) });
      const rounds = 1 + Math.floor(random() * 5);
      for (let r = 0; r <= rounds; r++) {
        t += 2_000 + Math.floor(random() * 15_000);
        const last = r === rounds || size >= target - 1_500;
        const tokens = 40 + Math.floor(random() * 600);
        requests++;
        outputTokens += tokens;
        const message = {
          messageId: uuidFrom(random),
          model,
          reasoningText: words(15 + Math.floor(random() * 30)),
          outputTokens: tokens,
        };
        if (last) {
          const answer = `${words(30 + Math.floor(random() * 60))}\n\n- ${words(10)}\n- ${words(10)}`;
          event('assistant.message', { ...message, content: answer, toolRequests: [] });
          break;
        }
        const call = toolCall(cwd, Math.max(3, Math.min(100, Math.floor((target - size) / 150))), words, random);
        const toolCallId = `toolu_${uuidFrom(random).replace(/-/g, '').slice(0, 24)}`;
        const request = { toolCallId, name: call.name, arguments: call.args, type: 'function' };
        event('assistant.message', { ...message, content: words(12), toolRequests: [request] });
        event('tool.execution_start', { toolCallId, toolName: call.name, arguments: call.args });
        t += 500 + Math.floor(random() * 8_000);
        event('tool.execution_complete', {
          toolCallId,
          success: true,
          model,
          result: { content: call.output, detailedContent: call.output },
        });
      }
      event('assistant.turn_end', { turnId: String(turn) });
    }
    t += 5_000;
    const inputTokens = requests * (20_000 + Math.floor(random() * 30_000));
    const cacheReadTokens = Math.floor(inputTokens * 0.7);
    const cacheWriteTokens = Math.floor(inputTokens * 0.1);
    event('session.shutdown', {
      shutdownType: 'routine',
      totalPremiumRequests: requests,
      totalApiDurationMs: requests * 4_000,
      sessionStartTime: started,
      codeChanges: { linesAdded: 0, linesRemoved: 0, filesModified: [] },
      modelMetrics: {
        [model]: {
          requests: { count: requests, cost: requests },
          usage: { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens, reasoningTokens: 0 },
        },
      },
      currentModel: model,
    });
    const workspace = [
      `id: ${id}`,
      `cwd: ${cwd}`,
      `git_root: ${cwd}`,
      `repository: bench/${repo}`,
      'branch: main',
      `summary: ${JSON.stringify(firstPrompt.slice(0, 60))}`,
      'summary_count: 1',
      `created_at: ${iso(started)}`,
      `updated_at: ${iso(t)}`,
    ];
    const dir = path.join(root, id);
    await writeText(path.join(dir, 'workspace.yaml'), `${workspace.join('\n')}\n`);
    bytes += await writeText(path.join(dir, 'events.jsonl'), `${lines.join('\n')}\n`);
  }
  return bytes;
}

function toolCall(cwd: string, lines: number, words: (n: number) => string, random: () => number) {
  const file = `${cwd}/src/webhooks/${words(1)}.ts`;
  const kind = random();
  if (kind < 0.4) return { name: 'view', args: { path: file }, output: outputLines(file, lines, words) };
  if (kind < 0.8) {
    const output = `${outputLines('test/webhooks.test.ts', lines, words)}\n<exited with exit code ${random() < 0.2 ? 1 : 0}>`;
    return { name: 'bash', args: { command: 'npm test', description: words(5) }, output };
  }
  const args = { path: file, old_str: words(8), new_str: outputLines(file, Math.min(lines, 12), words) };
  return { name: 'edit', args, output: `File ${file} updated with changes.` };
}
