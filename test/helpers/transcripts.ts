import { promises as fs } from 'node:fs';
import path from 'node:path';

/** Appends a new prompt to a Claude Code transcript, continuing from its last record (as a running session
 * would write it). */
export async function appendPrompt(transcript: string, text: string, timestamp: string): Promise<void> {
  const lines = (await fs.readFile(transcript, 'utf8')).trimEnd().split('\n');
  const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
  const record = {
    parentUuid: last.uuid,
    isSidechain: false,
    userType: 'external',
    cwd: last.cwd,
    sessionId: last.sessionId,
    version: last.version,
    gitBranch: last.gitBranch,
    type: 'user',
    message: { role: 'user', content: text },
    uuid: `aaaaaaaa-0000-4000-8000-${String(lines.length).padStart(12, '0')}`,
    timestamp,
  };
  await fs.appendFile(transcript, `${JSON.stringify(record)}\n`);
}

/** Writes a Claude Code transcript of `turns` prompts, each answered, a minute apart from `start`, in the project
 * `/home/alice/work/long`; `say(t)` gives turn t's prompt and answer. Returns its path. */
export async function writeTurns(
  home: string,
  sessionId: string,
  turns: number,
  start: string,
  say: (turn: number) => { prompt: string; answer: string | ContentBlock[] },
): Promise<string> {
  const dir = path.join(home, '.claude', 'projects', '-home-alice-work-long');
  await fs.mkdir(dir, { recursive: true });
  const common = { cwd: '/home/alice/work/long', sessionId, version: '2.1.38', isSidechain: false };
  const lines: string[] = [];
  for (let t = 0; t < turns; t++) {
    const at = (s: number) => new Date(Date.parse(start) + t * 60_000 + s * 1000).toISOString();
    const { prompt, answer } = say(t);
    lines.push(
      JSON.stringify({
        ...common,
        type: 'user',
        uuid: `u${t}`,
        timestamp: at(0),
        message: { role: 'user', content: prompt },
      }),
      JSON.stringify({
        ...common,
        type: 'assistant',
        uuid: `a${t}`,
        timestamp: at(1),
        message: {
          id: `m${t}`,
          role: 'assistant',
          model: 'claude-sonnet-4-5',
          content: typeof answer === 'string' ? [{ type: 'text', text: answer }] : answer,
          usage: { input_tokens: 1, output_tokens: 1 },
        },
      }),
    );
  }
  const file = path.join(dir, `${sessionId}.jsonl`);
  await fs.writeFile(file, `${lines.join('\n')}\n`);
  return file;
}

/** A block of a Claude Code message's content (text, tool_use, …). */
export type ContentBlock = Record<string, unknown>;

/** Writes a Claude Code subagent of the session whose transcript is `transcript`, started by the call `callId`
 * (of the main thread or of another subagent): its task, then its answer. */
export async function writeSubagent(
  transcript: string,
  agent: { id: string; callId: string; task: string; answer: string | ContentBlock[] },
): Promise<void> {
  const dir = path.join(transcript.replace(/\.jsonl$/, ''), 'subagents');
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(
    path.join(dir, `agent-${agent.id}.meta.json`),
    JSON.stringify({ agentType: 'Explore', description: agent.task, toolUseId: agent.callId }),
  );
  const sessionId = path.basename(transcript, '.jsonl');
  const common = { isSidechain: true, cwd: '/home/alice/work/long', sessionId, agentId: agent.id };
  const lines = [
    {
      ...common,
      parentUuid: null,
      type: 'user',
      uuid: `${agent.id}-1`,
      timestamp: '2026-03-06T09:30:00.000Z',
      message: { role: 'user', content: agent.task },
    },
    {
      ...common,
      parentUuid: `${agent.id}-1`,
      type: 'assistant',
      uuid: `${agent.id}-2`,
      timestamp: '2026-03-06T09:30:05.000Z',
      message: {
        id: `msg_${agent.id}`,
        role: 'assistant',
        model: 'claude-sonnet-4-5',
        content: typeof agent.answer === 'string' ? [{ type: 'text', text: agent.answer }] : agent.answer,
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    },
  ];
  await fs.writeFile(
    path.join(dir, `agent-${agent.id}.jsonl`),
    `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`,
  );
}
