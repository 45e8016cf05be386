import { promises as fs } from 'node:fs';

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
