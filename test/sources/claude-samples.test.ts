import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Session } from '../../src/model/session.ts';
import { readSession } from '../../src/sources/claude-code/index.ts';
import { listProjectDir } from '../../src/sources/claude-code/paths.ts';
import { sessionStats } from '../../src/stats/session-stats.ts';
import type { CollectWarning } from '../../src/util/warnings.ts';
import { noteSamples, SAMPLES } from '../helpers/paths.ts';

const CLAUDE_SAMPLES = path.join(SAMPLES, 'claude');
const present = noteSamples('the Claude Code reader over the real samples');

/** Reads every session in one sample directory as the collector would. */
async function readDir(dir: string): Promise<{ sessions: Map<string, Session>; warnings: CollectWarning[] }> {
  const warnings: CollectWarning[] = [];
  const listing = await listProjectDir(dir);
  const sessions = new Map<string, Session>();
  for (const files of listing.sessions) {
    const s = await readSession(files, { warn: (w) => warnings.push(w) });
    if (s) sessions.set(files.sessionId, s);
  }
  return { sessions, warnings };
}

describe.skipIf(!present)('the Claude Code reader over every real sample', async () => {
  const dirs = [CLAUDE_SAMPLES];
  for (const entry of present ? await fs.readdir(CLAUDE_SAMPLES, { recursive: true, withFileTypes: true }) : []) {
    if (entry.isDirectory()) dirs.push(path.join(entry.parentPath, entry.name));
  }

  it.each(dirs.map((d) => [path.relative(CLAUDE_SAMPLES, d) || '.', d]))(
    'reads %s without crashing',
    async (_, dir) => {
      const { sessions } = await readDir(dir);
      for (const s of sessions.values()) {
        const stats = sessionStats(s);
        expect(stats.entries).toBeGreaterThanOrEqual(0);
        for (const m of s.messages) expect(m.timestamp).toMatch(/^\d{4}-\d\d-\d\dT/);
      }
    },
  );

  it('spotter-short (2.1.38): one prompt, a streamed response, parallel calls both linked', async () => {
    const { sessions } = await readDir(CLAUDE_SAMPLES);
    const s = sessions.get('spotter-short')!;
    const stats = sessionStats(s);
    expect(stats.prompts).toBe(1);
    expect(stats.toolUsesByName).toEqual({ Bash: 1, Glob: 1 });
    const calls = s.messages.filter((m) => m.source_type === 'tool_call');
    expect(calls.every((c) => c.tool_call!.result_id)).toBe(true);
    // Four streamed lines share one message id: one entry, usage once (its largest output_tokens).
    expect(stats.entries).toBe(1);
    expect(stats.tokens).toEqual({ input: 3, output: 13, cacheRead: 11515, cacheCreation: 13835 });
    expect(s.cwd).toBe('/home/marco/projects/spotter');
  });

  it('daaain edge cases: the malformed lines are warned about by line number and kept', async () => {
    const { warnings, sessions } = await readDir(path.join(CLAUDE_SAMPLES, 'daaain'));
    const shown = warnings.filter((w) => w.file.endsWith('edge_cases.jsonl')).map((w) => `${w.line}: ${w.message}`);
    expect(shown).toEqual([
      '11: message is string, not an object; read what fits the format',
      '13: line is JSON but not a record object; kept as meta',
      '15: line is JSON but not a record object; kept as meta',
      '16: line is JSON but not a record object; kept as meta',
      '14: unknown record type "untyped"; kept as meta',
    ]);
    const lines = sessions.get('edge_cases')!.messages.map((m) => m.raw.line_index);
    expect(lines).toEqual(expect.arrayContaining([13, 14, 15, 16]));
  });

  it('fasthooks (2.0.76): compaction boundary and summary, and the earlier history kept', async () => {
    const { sessions } = await readDir(path.join(CLAUDE_SAMPLES, 'fasthooks'));
    const s = sessions.get('sample_main_transcript')!;
    const kinds = s.messages.map((m) => m.metadata?.kind);
    const boundary = kinds.indexOf('compact_boundary');
    expect(boundary).toBeGreaterThan(0);
    expect(kinds.slice(boundary + 1)).toContain('compact_summary');
    expect(kinds.slice(0, boundary)).toContain('prompt');
  });

  it('sniffly: a file of nothing but a summary is not a session', async () => {
    const { sessions } = await readDir(path.join(CLAUDE_SAMPLES, 'sniffly'));
    expect(sessions.has('ff71dbed-a4f2-4284-a4fc-fe2fb90de929')).toBe(false);
    expect(sessions.size).toBe(2);
  });

  it('agent-sessions subagent layout (2.1.207): the subagent nests under its session', async () => {
    const { sessions } = await readDir(path.join(CLAUDE_SAMPLES, 'agent-sessions-stage0', 'subagent-example'));
    const s = sessions.get('0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f')!;
    expect(s.subagents.map((a) => a.agentId)).toEqual(['a0ad4f44468bdf20d']);
    expect(sessions.size).toBe(1);
  });

  it('agent-sessions fingerprints (2.1.80–2.1.220): every record is kept, rare types as meta', async () => {
    const { sessions } = await readDir(path.join(CLAUDE_SAMPLES, 'agent-sessions-stage0'));
    const s = sessions.get('small')!;
    const raw = await fs.readFile(path.join(CLAUDE_SAMPLES, 'agent-sessions-stage0', 'small.jsonl'), 'utf8');
    const lineCount = raw.split('\n').filter(Boolean).length;
    const linesSeen = new Set([...s.messages, ...s.subagents.flatMap((a) => a.messages)].map((m) => m.raw.line_index));
    expect(linesSeen.size).toBe(lineCount);
    expect(s.messages.filter((m) => m.metadata?.kind === 'unknown').map((m) => m.raw.event_type)).toEqual(
      expect.arrayContaining(['bridge-session', 'atis-latch', 'started', 'result', 'relocated']),
    );
  });
});
