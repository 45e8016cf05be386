import { promises as fs } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { asyncBufferFromFile, parquetReadObjects } from 'hyparquet';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { costJson } from '../../src/insights/cost.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { computeStats } from '../../src/stats/aggregate.ts';
import { buildDayIndexes } from '../../src/stats/indexes.ts';
import { runCli } from '../helpers/cli.ts';
import { writeDemoDatabases } from '../helpers/amazonq-db.ts';
import { COUNTED_ASSISTANTS, FIXTURE_HOME, REPO, tempDir } from '../helpers/paths.ts';

const TOKEN = 'ghp_1234567890abcdefghijklmnopqrstuvwxyzAB';

/** An archive of the fixture home plus the custom-agent fixtures (one message carrying a planted token). */
async function archive(): Promise<{ dataDir: string; summaries: SessionSummary[] }> {
  await writeDemoDatabases(FIXTURE_HOME);
  const messagesDir = path.join(await tempDir('export-messages'), 'agent');
  await fs.cp(path.join(REPO, 'fixtures', 'messages'), messagesDir, { recursive: true });
  await fs.appendFile(
    path.join(messagesDir, 'read-hello.jsonl'),
    `${JSON.stringify({ role: 'user', content: `my token is ${TOKEN}`, timestamp: '2026-03-05T01:01:00Z' })}\n`,
  );
  const dataDir = path.join(await tempDir('export-data'), 'd');
  await collect({
    home: FIXTURE_HOME,
    env: {},
    dataDir,
    sourceOptions: { explicitHome: 'true', messagesDir: [messagesDir], assistants: COUNTED_ASSISTANTS },
  });
  const summaries = JSON.parse(await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8'));
  return { dataDir, summaries };
}

async function query(sql: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const connection = await db.connect();
  const rows = (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  connection.closeSync();
  return rows;
}

describe('export', () => {
  it('parquet: the README DuckDB queries reproduce the stats page totals', async () => {
    const { dataDir, summaries } = await archive();
    const out = path.join(await tempDir('export-out'), 'parquet');
    const run = await runCli([
      'export',
      '--data',
      dataDir,
      '--no-collect',
      '--format',
      'parquet',
      '--out',
      out,
      '--owner',
      'alice',
    ]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^Export: 20 sessions, \d+ messages in .*sessions\.parquet, .*messages\.parquet\.$/m);

    const stats = computeStats(summaries, buildDayIndexes(summaries, [], 'UTC'), 'UTC');
    const cost = costJson(summaries, 'UTC');
    const sessionsFile = path.join(out, 'sessions.parquet');
    const messagesFile = path.join(out, 'messages.parquet');
    const bySource = await query(
      `SELECT source, count(*) AS sessions, sum(tool_uses) AS tool_uses, sum(input_tokens) AS input,
              sum(output_tokens) AS output, sum(cache_read_tokens) AS cache_read,
              sum(cache_creation_tokens) AS cache_write, sum(cost_usd) AS cost_usd
       FROM '${sessionsFile}' GROUP BY source ORDER BY source`,
    );
    expect(Object.fromEntries(bySource.map((r) => [r.source, Number(r.sessions)]))).toEqual(stats.sessions.bySource);
    for (const row of bySource) {
      const source = row.source as string;
      const tokens = stats.tokens.bySource[source]!;
      expect([row.input, row.output, row.cache_read, row.cache_write].map(Number), source).toEqual([
        tokens.input,
        tokens.output,
        tokens.cacheRead,
        tokens.cacheCreation,
      ]);
      expect(Number(row.tool_uses), source).toBe(stats.toolUses.bySource[source] ?? 0);
      if (cost.bySource[source] !== undefined) expect(Number(row.cost_usd)).toBeCloseTo(cost.bySource[source]!, 5);
    }
    const patterns = await query(`SELECT pattern, count(*) AS n FROM '${sessionsFile}' GROUP BY pattern`);
    expect(Object.fromEntries(patterns.map((r) => [r.pattern, Number(r.n)]))).toEqual(
      Object.fromEntries(Object.entries(stats.patterns).filter(([, n]) => n > 0)),
    );
    const tools = await query(
      `SELECT tool_name, count(*) AS uses FROM '${messagesFile}' WHERE source_type = 'tool_call' GROUP BY tool_name`,
    );
    expect(Object.fromEntries(tools.map((r) => [r.tool_name, Number(r.uses)]))).toEqual(stats.toolUses.byName);
    // Message tokens (patches applied) add up to the session totals.
    const [msgTokens] = await query(`SELECT sum(output_tokens) AS output FROM '${messagesFile}'`);
    expect(Number(msgTokens!.output)).toBe(stats.tokens.total.output);

    // Read back with hyparquet too: one row per session, owner in every row.
    const rows = await parquetReadObjects({ file: await asyncBufferFromFile(sessionsFile) });
    expect(rows).toHaveLength(summaries.length);
    expect(new Set(rows.map((r) => r.owner))).toEqual(new Set(['alice']));
    const hello = rows.find((r) => r.session_id === 'read-hello')!;
    // The planted prompt came after the last answer: incomplete.
    expect(hello).toMatchObject({ source: 'messages', pattern: 'incomplete', tool_uses: 1 });
  });

  it('jsonl, and --share redacts secrets and home paths', async () => {
    const { dataDir, summaries } = await archive();
    const plain = path.join(await tempDir('export-out'), 'plain');
    const shared = path.join(await tempDir('export-out'), 'shared');
    expect((await runCli(['export', '--data', dataDir, '--no-collect', '--out', plain])).code).toBe(0);
    expect((await runCli(['export', '--data', dataDir, '--no-collect', '--out', shared, '--share'])).code).toBe(0);
    const lines = (await fs.readFile(path.join(plain, 'sessions.jsonl'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(summaries.length);
    const plainMessages = await fs.readFile(path.join(plain, 'messages.jsonl'), 'utf8');
    expect(plainMessages).toContain(TOKEN);
    expect(plainMessages).toContain('/home/alice');
    const sharedMessages = await fs.readFile(path.join(shared, 'messages.jsonl'), 'utf8');
    const sharedSessions = await fs.readFile(path.join(shared, 'sessions.jsonl'), 'utf8');
    expect(sharedMessages.split('\n').length).toBe(plainMessages.split('\n').length);
    for (const text of [sharedMessages, sharedSessions]) {
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain('/home/alice');
    }
    expect(sharedMessages).toContain('[REDACTED:');
  });
});
