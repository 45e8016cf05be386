import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { amazonQ } from '../../src/sources/amazon-q/index.ts';
import { createQDatabase, loadQFixture, Q_FILES, Q_IDS } from '../helpers/amazonq-db.ts';
import { REPO, tempDir } from '../helpers/paths.ts';

const FIXTURE = path.join(REPO, 'fixtures', 'kiro');
const A = 'a1b2c3d4-0000-4000-8000-00000000000a';
const B = 'b2c3d4e5-0000-4000-8000-00000000000b';

async function kiroHome(): Promise<string> {
  const dir = path.join(await tempDir('kiro'), '.kiro');
  await fs.cp(FIXTURE, dir, { recursive: true });
  return dir;
}

async function run(kiroDir: string, dataDir: string, options: Record<string, string[]> = {}) {
  const warnings: string[] = [];
  const report = await collect({
    home: await tempDir('kiro-home'),
    env: {},
    dataDir,
    sourceOptions: { explicitHome: 'true', kiroDir: [kiroDir], amazonqDb: [], ...options },
    sources: [amazonQ],
    onWarning: (w) => warnings.push(`${path.basename(w.file)}:${w.line ?? ''}: ${w.message}`),
  });
  const summaries = JSON.parse(
    await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  return { report, warnings, byId: new Map(summaries.map((s) => [s.sessionId, s])) };
}

async function body(dataDir: string, summary: SessionSummary): Promise<NormalizedMessage[]> {
  return (await readBodyFile(dataDir, summary.body))!.session.messages;
}

async function hashes(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const name of (await fs.readdir(dir, { recursive: true })).sort()) {
    const file = path.join(dir, name);
    if ((await fs.stat(file)).isFile())
      out[name] = createHash('sha1')
        .update(await fs.readFile(file))
        .digest('hex');
  }
  return out;
}

describe('Kiro CLI sessions (~/.kiro/sessions/cli/<id>.jsonl + <id>.json)', () => {
  it('reads prompts, thinking, tool calls joined to results, tokens per turn, and keeps unknown records', async () => {
    const kiro = await kiroHome();
    const before = await hashes(kiro);
    const data = path.join(await tempDir('kiro-data'), 'd');
    const { warnings, byId, report } = await run(kiro, data);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(new RegExp(`^${A}\\.jsonl:4: `));

    const a = byId.get(A)!;
    expect(a).toMatchObject({
      source: 'amazon-q',
      title: 'Add a health check endpoint to server.ts',
      cwd: '/home/alice/work/api',
      startedAt: '2026-05-28T20:26:40.000Z',
      endedAt: '2026-05-28T20:31:50.000Z',
      models: ['claude-sonnet-4.5'],
      cliVersion: 'Kiro CLI',
    });
    // Turn 1: 1200/300/5000/100; turn 2: 800/50/0/0 (docs/formats/kiro.md: per user turn, counted once).
    expect(a.stats).toMatchObject({
      prompts: 2,
      toolUses: 3,
      toolUsesByName: { read: 1, shell: 1, write: 1 },
      toolErrors: 1,
      tokens: { input: 2000, output: 350, cacheRead: 5000, cacheCreation: 100 },
    });
    const messages = await body(data, a);
    const call = (name: string) => messages.find((m) => m.source_type === 'tool_call' && m.tool_call?.name === name)!;
    expect(call('shell').tool_call).toMatchObject({
      call_id: 'tooluse_shell1',
      status: 'error',
      arguments_json: { command: 'npm test', __tool_use_purpose: 'Run the tests' },
    });
    const shellResult = messages.find((m) => m.id === call('shell').tool_call!.result_id)!;
    expect(shellResult.tool_call).toMatchObject({ name: 'shell', output: '1 failing\nexit status: 1' });
    const readResult = messages.find((m) => m.id === call('read').tool_call!.result_id)!;
    expect(readResult.tool_call?.output).toContain("import express from 'express';");
    expect(call('write').tool_call?.status).toBe('completed');
    const thinking = messages.find((m) => m.metadata?.kind === 'thinking')!;
    expect(thinking.segments).toEqual([
      { channel: 'output', type: 'text', format: 'thinking', text: 'I should read server.ts and run the tests first.' },
    ]);
    expect(JSON.stringify(messages)).not.toContain('c2lnbmF0dXJl'); // the signature is not kept
    // Times: the prompt's own, the turn's end on its last record, the time before it elsewhere (estimated).
    const done = messages.find((m) => m.segments[0]?.text === 'Done: GET /health answers ok.')!;
    expect(done.timestamp).toBe('2026-05-28T20:27:10.123Z');
    expect(call('read').timestamp_estimated).toBe(true);
    const unknown = messages.find((m) => m.metadata?.kind === 'unknown')!;
    expect(unknown.raw).toMatchObject({ event_type: 'Checkpoint', line_index: 8, record: { kind: 'Checkpoint' } });
    const compaction = messages.find((m) => m.metadata?.kind === 'compact_summary')!;
    expect(compaction.segments[0]?.text).toBe('The user added GET /health to server.ts and a test for it.');
    expect(messages.filter((m) => m.metadata?.usage).map((m) => m.metadata?.usage)).toEqual([
      { input: 1200, output: 300, cacheRead: 5000, cacheCreation: 100 },
      { input: 800, output: 50, cacheRead: 0, cacheCreation: 0 },
    ]);

    // No sidecar, no counts: title from the first prompt, tokens not recorded, /clear kept as an event.
    const b = byId.get(B)!;
    expect(b).toMatchObject({ title: 'What does ls -la do?', cwd: '', startedAt: '2026-05-28T21:26:40.000Z' });
    expect(b.stats.tokens).toEqual({ input: 0, output: 0, cacheRead: 0, cacheCreation: 0 });
    expect((await body(data, b)).some((m) => m.metadata?.subtype === 'Clear')).toBe(true);

    expect(await hashes(kiro)).toEqual(before); // never written

    // Nothing changed: nothing is read again. One grown session is read again, alone.
    const again = await run(kiro, data);
    expect(again.report.sources.find((s) => s.id === 'amazon-q')).toMatchObject({ unchanged: 2 });
    await fs.appendFile(
      path.join(kiro, 'sessions', 'cli', `${B}.jsonl`),
      JSON.stringify({
        version: 'v1',
        kind: 'Prompt',
        data: { message_id: 'q4', content: [{ kind: 'text', data: 'thanks' }], meta: { timestamp: 1780003700 } },
      }) + '\n',
    );
    const grown = await run(kiro, data);
    expect(grown.report.sources.find((s) => s.id === 'amazon-q')).toMatchObject({ unchanged: 1, sessions: 1 });
    expect(grown.byId.get(B)!.stats.prompts).toBe(2);
  });

  it('is one session when the same conversation is also a conversations_v2 row: the fresher copy wins', async () => {
    const kiro = await kiroHome();
    const dir = path.join(kiro, 'sessions', 'cli');
    // A Kiro session of Q_IDS.B, newer than the database row, and the database (schema: test/helpers/amazonq-db.ts).
    const meta = JSON.parse(await fs.readFile(path.join(dir, `${A}.json`), 'utf8'));
    meta.session_id = Q_IDS.B;
    meta.session_state.rts_model_state.conversation_id = Q_IDS.B;
    await fs.writeFile(path.join(dir, `${Q_IDS.B}.json`), JSON.stringify(meta));
    await fs.copyFile(path.join(dir, `${A}.jsonl`), path.join(dir, `${Q_IDS.B}.jsonl`));
    const db = path.join(await tempDir('kiro-db'), 'kiro-cli', 'data.sqlite3');
    const state = loadQFixture(Q_FILES.B);
    await createQDatabase(db, {
      conversationsV2: [
        {
          key: '/home/alice/work/api',
          state,
          createdAt: Date.parse('2026-03-01T00:00:00Z'),
          updatedAt: Date.parse('2026-03-01T01:00:00Z'),
        },
      ],
    });
    const data = path.join(await tempDir('kiro-data'), 'd');
    const first = await run(kiro, data, { amazonqDb: [db] });
    const merged = first.byId.get(Q_IDS.B)!;
    expect(first.byId.size).toBe(3);
    expect(merged.title).toBe('Add a health check endpoint to server.ts'); // the Kiro session's copy
    expect(merged.files.sort()).toEqual(
      [db, path.join(dir, `${Q_IDS.B}.json`), path.join(dir, `${Q_IDS.B}.jsonl`)].sort(),
    );

    const second = await run(kiro, data, { amazonqDb: [db] });
    expect(second.report.sources.find((s) => s.id === 'amazon-q')).toMatchObject({ unchanged: 3 });
    expect(second.byId.get(Q_IDS.B)!.title).toBe('Add a health check endpoint to server.ts');
  });

  it('looks in $KIRO_HOME for the real home, <home>/.kiro under an explicit --home', async () => {
    const kiro = await kiroHome();
    const home = path.dirname(kiro);
    const ctx = (options: Record<string, string>, env: Record<string, string>) =>
      ({ home: '/nowhere', env, options, warn: () => {}, archived: new Set<string>() }) as never;
    expect((await amazonQ.locate(ctx({}, { KIRO_HOME: kiro }))).found).toEqual([path.join(kiro, 'sessions', 'cli')]);
    expect((await amazonQ.locate(ctx({ explicitHome: 'true' }, { KIRO_HOME: kiro }))).found).toEqual([]);
    const real = await amazonQ.locate({
      home,
      env: {},
      options: { explicitHome: 'true' },
      warn: () => {},
      archived: new Set(),
    });
    expect(real.found).toEqual([path.join(kiro, 'sessions', 'cli')]);
  });
});
