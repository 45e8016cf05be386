import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { createQDatabase } from '../helpers/amazonq-db.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';
import { claudeLines, codexLines, deepJson, qState, writeLines } from './make.ts';

const CLAUDE_ID = '0badbad0-0000-4000-8000-000000000001';
const CODEX_ID = '019cb1a0-0bad-7000-8000-000000000001';

async function texts(data: string, id: string): Promise<string[]> {
  const summaries = JSON.parse(
    await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  const summary = summaries.find((s) => s.id === id);
  expect(summary, id).toBeDefined();
  const body = await readBodyFile(data, summary!.body);
  return body!.session.messages.flatMap((m) => m.segments.map((s) => s.text ?? ''));
}

describe('one bad record costs that record only', () => {
  it('deep nesting, [null] content, odd types and absurd times: warned by file and line, the rest is read', async () => {
    const home = await tempDir('hostile-records');
    const data = path.join(home, 'data');
    const project = path.join(home, '.claude', 'projects', '-home-alice-work-hostile');
    const good = claudeLines(CLAUDE_ID, [
      ['first prompt', 'first answer'],
      ['last prompt', 'answer after the bad lines'],
    ]);
    const claudeFile = path.join(project, `${CLAUDE_ID}.jsonl`);
    await writeLines(claudeFile, [
      good[0]!,
      good[1]!,
      deepJson(100_000), // line 3
      JSON.stringify({ type: 'user', uuid: 'n1', sessionId: CLAUDE_ID, message: { role: 'user', content: [null] } }), // 4
      JSON.stringify({ type: 'user', uuid: 7, message: 'odd' }), // 5
      JSON.stringify({
        type: 'user',
        uuid: 'far',
        timestamp: '+275760-09-13T00:00:00.000Z',
        message: { content: 'far future' },
      }), // 6
      good[2]!,
      good[3]!,
    ]);
    // The same deep line inside a record (not just bare brackets).
    await writeLines(path.join(home, '.claude', 'history.jsonl'), [
      JSON.stringify({ display: 'kept before', timestamp: Date.parse('2026-03-10T08:00:00Z') }),
      JSON.stringify({ display: 'absurd time', timestamp: 1e20 }), // 2
      'null', // 3
      JSON.stringify({ display: { not: 'text' }, timestamp: 5 }), // 4
      `{"display":"deep","timestamp":1773000000000,"x":${deepJson(100_000)}}`, // 5
      JSON.stringify({ display: 'kept after', timestamp: Date.parse('2026-03-10T08:05:00Z'), project: { odd: 1 } }),
    ]);

    const codexGood = codexLines(CODEX_ID, [
      ['codex first', 'codex first answer'],
      ['codex last', 'codex answer after the bad lines'],
    ]);
    const rollout = path.join(
      home,
      '.codex',
      'sessions',
      '2026',
      '03',
      '11',
      `rollout-2026-03-11T09-00-00-${CODEX_ID}.jsonl`,
    );
    await writeLines(rollout, [
      ...codexGood.slice(0, 3),
      `{"timestamp":"2026-03-11T09:00:05Z","type":"response_item","payload":${deepJson(100_000)}}`, // 4
      JSON.stringify({
        timestamp: '2026-03-11T09:00:06Z',
        type: 'response_item',
        payload: { type: 'message', role: 'user', content: [null, 5] },
      }), // 5
      JSON.stringify({ timestamp: 1e20, type: 'event_msg', payload: 'odd' }), // 6
      ...codexGood.slice(3),
    ]);
    await writeLines(path.join(home, '.codex', 'history.jsonl'), [
      JSON.stringify({ session_id: CODEX_ID, ts: 1773219600, text: 'codex kept' }),
      JSON.stringify({ session_id: CODEX_ID, ts: 1e20, text: 'codex absurd' }), // 2
    ]);

    const qDb = path.join(home, '.local', 'share', 'kiro-cli', 'data.sqlite3');
    await createQDatabase(qDb, {
      conversations: [],
      conversationsV2: [
        { key: '/w/a', state: qState('q-deep', 'deep prompt', 'deep answer'), createdAt: 1, updatedAt: 2 },
        { key: '/w/b', state: qState('q-good', 'good q prompt', 'good q answer'), createdAt: 1, updatedAt: 2 },
      ],
    });
    // A conversation nested 100,000 levels deep (written as text: JSON.stringify cannot make it).
    const db = new Database(qDb);
    const row = db.prepare("SELECT value FROM conversations_v2 WHERE conversation_id = 'q-deep'").get() as {
      value: string;
    };
    db.prepare("UPDATE conversations_v2 SET value = ? WHERE conversation_id = 'q-deep'").run(
      row.value.replace('"tools":{}', `"tools":${deepJson(100_000)}`),
    );
    db.close();

    const first = await runCli(['collect', '--home', home, '--data', data, '--verbose']);
    expect(first.stderr).not.toContain('Maximum call stack');
    expect(first.code, first.stderr).toBe(0);
    const warned = (file: string, line: number, text: RegExp) =>
      expect(first.stderr).toMatch(new RegExp(`warning: ${escape(file)}:${line}: ${text.source}`));
    warned(claudeFile, 3, /nested more than 1000 levels deep; the deeper part replaced with a marker/);
    warned(claudeFile, 4, /record not understood \(TypeError: .*\); skipped/);
    warned(claudeFile, 5, /record not understood \(TypeError: uuid is not a string\); skipped/);
    warned(claudeFile, 6, /timestamp "\+275760-09-13T00:00:00.000Z" is outside 2000–2100; ignored/);
    const claudeHistory = path.join(home, '.claude', 'history.jsonl');
    warned(claudeHistory, 2, /timestamp 100000000000000000000 is outside 2000–2100; entry skipped/);
    warned(claudeHistory, 3, /history entry without display text or timestamp; skipped/);
    warned(claudeHistory, 4, /history entry without display text or timestamp; skipped/);
    warned(claudeHistory, 5, /nested more than 1000 levels deep; the deeper part replaced with a marker/);
    warned(rollout, 4, /nested more than 1000 levels deep; the deeper part replaced with a marker/);
    warned(rollout, 6, /timestamp 100000000000000000000 is outside 2000–2100; ignored/);
    warned(
      path.join(home, '.codex', 'history.jsonl'),
      2,
      /ts 100000000000000000000 is outside 2000–2100; entry skipped/,
    );
    expect(first.stderr).toMatch(
      /conversations_v2 row 1 \(\/w\/a\) is nested more than 1000 levels deep; the deeper part replaced with a marker/,
    );

    // Everything after the bad lines is there.
    expect(await texts(data, `claude-code/${CLAUDE_ID}`)).toEqual(
      expect.arrayContaining(['first answer', 'last prompt', 'answer after the bad lines']),
    );
    expect(await texts(data, `codex/${CODEX_ID}`)).toEqual(
      expect.arrayContaining(['codex first answer', 'codex last', 'codex answer after the bad lines']),
    );
    expect(await texts(data, 'amazon-q/q-good')).toEqual(expect.arrayContaining(['good q answer']));
    // Only the deep part of a deep record is lost.
    expect(await texts(data, 'amazon-q/q-deep')).toEqual(expect.arrayContaining(['deep prompt', 'deep answer']));
    const prompts = JSON.parse(await fs.readFile(path.join(data, 'prompts', 'claude-code.json'), 'utf8')) as Array<{
      text: string;
      project?: unknown;
    }>;
    expect(prompts.map((p) => p.text)).toEqual(['deep', 'kept before', 'kept after']);
    expect(prompts[2]!.project).toBeUndefined();
    const codexPrompts = JSON.parse(await fs.readFile(path.join(data, 'prompts', 'codex.json'), 'utf8')) as Array<{
      text: string;
    }>;
    expect(codexPrompts.map((p) => p.text)).toEqual(['codex kept']);
    // No absurd day reached the summaries.
    const index = await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8');
    expect(index).not.toMatch(/275760|\+0?[0-9]{6}-/);

    // Later runs work while the bad files are still there: nothing changed, nothing fails.
    const again = await runCli(['collect', '--home', home, '--data', data]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Claude Code: .*: 0 sessions read, 1 unchanged/);
    const report = await runCli([
      'report',
      '--no-collect',
      '--home',
      home,
      '--data',
      data,
      '--day',
      '2026-03-10',
      '--tz',
      'UTC',
    ]);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('first prompt');
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
