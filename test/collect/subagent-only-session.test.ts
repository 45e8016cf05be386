import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { SESSION, tempDir, WEBAPP } from '../helpers/paths.ts';

const SESSION_ID = 'abcd1234-0000-4000-8000-000000000001';

/** Every file of the data directory with its size and modification time. */
async function filesWithTimes(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    const stat = await fs.stat(file);
    out.set(path.relative(dir, file), `${stat.size}:${stat.mtimeMs}`);
  }
  return out;
}

describe('a Claude Code session whose only file is a subagent transcript', () => {
  it('is read once, then left unchanged by every later collect', async () => {
    const home = await tempDir('subagent-home');
    const subagents = path.join(home, '.claude', 'projects', '-home-alice-work-x', SESSION_ID, 'subagents');
    await fs.mkdir(subagents, { recursive: true });
    // A real subagent transcript of the fixtures (session A's), alone under a session with no main transcript.
    await fs.copyFile(
      path.join(WEBAPP, SESSION.A, 'subagents', 'agent-a1b2c3d4e5f6a7b8c.jsonl'),
      path.join(subagents, 'agent-x.jsonl'),
    );
    const dataDir = path.join(await tempDir('subagent-data'), 'data');
    const run = async () => {
      const report = await collect({
        home,
        env: {},
        dataDir,
        sourceOptions: { explicitHome: 'true', assistants: ['claude-code'] },
      });
      const claude = report.sources.find((s) => s.id === 'claude-code')!;
      return {
        sessions: claude.sessions,
        added: claude.added,
        unchanged: claude.unchanged,
        total: report.totalSessions,
      };
    };

    expect(await run()).toEqual({ sessions: 1, added: 1, unchanged: 0, total: 1 });
    const index = JSON.parse(await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8')) as {
      id: string;
      files: string[];
    }[];
    expect(index.map((s) => s.id)).toEqual([`claude-code/${SESSION_ID}`]);
    expect(index[0]!.files).toEqual([path.join(subagents, 'agent-x.jsonl')]);

    const before = await filesWithTimes(dataDir);
    expect(await run()).toEqual({ sessions: 0, added: 0, unchanged: 1, total: 1 });
    expect(await run()).toEqual({ sessions: 0, added: 0, unchanged: 1, total: 1 });
    expect(await filesWithTimes(dataDir)).toEqual(before);

    // A grown subagent file is read again, as any changed session is.
    const file = path.join(subagents, 'agent-x.jsonl');
    const lines = (await fs.readFile(file, 'utf8')).trim().split('\n');
    const last = JSON.parse(lines.at(-1)!) as Record<string, unknown>;
    await fs.appendFile(
      file,
      `${JSON.stringify({ ...last, uuid: 'grown-1', parentUuid: last.uuid, timestamp: '2026-03-02T09:05:00.000Z' })}\n`,
    );
    expect(await run()).toEqual({ sessions: 1, added: 0, unchanged: 0, total: 1 });
  });
});
