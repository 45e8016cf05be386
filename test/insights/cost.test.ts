import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { costJson, describeCost, sessionsCost } from '../../src/insights/cost.ts';
import { baseModel, PRICES, priceOf, priceTokens } from '../../src/insights/prices.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { tempDir } from '../helpers/paths.ts';

const sonnet = PRICES.models['claude-sonnet-4-5-20250929']!;
const usage = (u: Partial<Record<'input' | 'output' | 'cacheRead' | 'cacheCreation' | 'cacheCreation1h', number>>) => ({
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheCreation: 0,
  ...u,
});

describe('price table', () => {
  it('is dated and names the packages it came from', () => {
    expect(PRICES.asOf).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(PRICES.packages.map((p) => p.package)).toEqual(['ccusage', '@ccusage/codex']);
    // The figures the hand computations below use.
    expect(sonnet.input_cost_per_token).toBe(3e-6);
    expect(sonnet.input_cost_per_token_above_200k_tokens).toBe(6e-6);
  });

  it('maps Bedrock and Vertex ids to their base model and guesses nothing', () => {
    expect(baseModel('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe('claude-sonnet-4-5-20250929');
    expect(baseModel('anthropic.claude-opus-4-1-20250805-v1:0')).toBe('claude-opus-4-1-20250805');
    expect(baseModel('claude-opus-4-1@20250805')).toBe('claude-opus-4-1-20250805');
    expect(baseModel('azure/gpt-5-codex')).toBe('gpt-5-codex');
    expect(priceOf('global.anthropic.claude-sonnet-4-5-20250929-v1:0')?.model).toBe('claude-sonnet-4-5-20250929');
    expect(priceOf('claude-opus-4-6-20260205')?.model).toBe('claude-opus-4-6-20260205');
    expect(priceOf('gpt-5.5')).toBeUndefined();
    expect(priceOf('claude-sonnet')).toBeUndefined();
  });
});

describe('cost tiers (hand-computed)', () => {
  it('input and output', () => {
    // 1000 × $3/M + 1000 × $15/M
    expect(priceTokens(usage({ input: 1000, output: 1000 }), sonnet)).toBeCloseTo(0.018, 12);
  });
  it('5-minute cache writes at the table price (1.25× input)', () => {
    expect(priceTokens(usage({ cacheCreation: 1000 }), sonnet)).toBeCloseTo(0.00375, 12);
  });
  it('1-hour cache writes at 2× input', () => {
    expect(priceTokens(usage({ cacheCreation: 1000, cacheCreation1h: 1000 }), sonnet)).toBeCloseTo(0.006, 12);
    // A mix: 600 5-minute (600 × 3.75e-6) + 400 1-hour (400 × 6e-6)
    expect(priceTokens(usage({ cacheCreation: 1000, cacheCreation1h: 400 }), sonnet)).toBeCloseTo(0.00465, 12);
  });
  it('cache reads', () => {
    expect(priceTokens(usage({ cacheRead: 10_000 }), sonnet)).toBeCloseTo(0.003, 12);
  });
  it('long-context tier', () => {
    // 250000 × $6/M + 1000 × $22.5/M + 1000 1-hour writes × 2 × $6/M
    const long = usage({ input: 250_000, output: 1000, cacheCreation: 1000, cacheCreation1h: 1000 });
    expect(priceTokens(long, sonnet, true)).toBeCloseTo(1.5 + 0.0225 + 0.012, 12);
    // A model without a long tier keeps its one price.
    const opus = PRICES.models['claude-opus-4-6']!;
    expect(priceTokens(usage({ input: 250_000 }), opus, true)).toBeCloseTo(1.25, 12);
  });
  it('Codex cached input at the cached price, reasoning inside output', () => {
    const codex = PRICES.models['gpt-5-codex']!;
    // 2000 × $1.25/M + 8000 cached × $0.125/M + 500 output (300 of them reasoning) × $10/M
    // (Codex's output_tokens already include reasoning_output_tokens.)
    expect(priceTokens(usage({ input: 2000, cacheRead: 8000, output: 500 }), codex)).toBeCloseTo(0.0085, 12);
  });
});

function line(record: Record<string, unknown>): string {
  return JSON.stringify({
    cwd: '/tmp/cost-project',
    sessionId: '99999999-9999-4999-8999-999999999999',
    version: '2.1.150',
    ...record,
  });
}

function assistant(n: number, at: string, model: string, u: Record<string, unknown>): string {
  return line({
    type: 'assistant',
    uuid: `a${n}-${at}`,
    timestamp: at,
    message: { id: `msg_${n}`, model, role: 'assistant', content: [{ type: 'text', text: 'ok' }], usage: u },
  });
}

describe('cost of a collected session', () => {
  it('keeps tokens per model and tier through collect, and prices them', async () => {
    const home = await tempDir('cost-home');
    const dir = path.join(home, '.claude', 'projects', '-tmp-cost-project');
    await fs.mkdir(dir, { recursive: true });
    const user = (n: number, at: string) =>
      line({ type: 'user', uuid: `u${n}`, timestamp: at, message: { role: 'user', content: `prompt ${n}` } });
    const lines = [
      user(1, '2026-03-02T10:00:00.000Z'),
      // Streamed twice: the second line carries the final output count (a patch in the archive). No
      // cache_creation breakdown: 5-minute writes.
      assistant(1, '2026-03-02T10:00:01.000Z', 'claude-sonnet-4-5-20250929', {
        input_tokens: 1000,
        output_tokens: 10,
        cache_creation_input_tokens: 2000,
      }),
      assistant(1, '2026-03-02T10:00:02.000Z', 'claude-sonnet-4-5-20250929', {
        input_tokens: 1000,
        output_tokens: 500,
        cache_creation_input_tokens: 2000,
      }),
      user(2, '2026-03-03T10:00:00.000Z'),
      // Bedrock id, a prompt over 200k tokens, 1-hour writes.
      assistant(2, '2026-03-03T10:00:01.000Z', 'us.anthropic.claude-sonnet-4-5-20250929-v1:0', {
        input_tokens: 10,
        output_tokens: 100,
        cache_read_input_tokens: 250_000,
        cache_creation_input_tokens: 1000,
        cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 1000 },
      }),
      assistant(3, '2026-03-03T10:00:05.000Z', 'my-local-model', { input_tokens: 100, output_tokens: 100 }),
    ];
    await fs.writeFile(path.join(dir, '99999999-9999-4999-8999-999999999999.jsonl'), `${lines.join('\n')}\n`);
    const dataDir = path.join(await tempDir('cost-data'), 'd');
    await collect({ home, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } });
    const summaries = JSON.parse(
      await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8'),
    ) as SessionSummary[];
    const session = summaries.find((s) => s.source === 'claude-code')!;
    expect(session.stats.tokensByModel).toEqual({
      'claude-sonnet-4-5-20250929': { input: 1000, output: 500, cacheRead: 0, cacheCreation: 2000 },
      'us.anthropic.claude-sonnet-4-5-20250929-v1:0 (>200k)': {
        input: 10,
        output: 100,
        cacheRead: 250_000,
        cacheCreation: 1000,
        cacheCreation1h: 1000,
      },
      'my-local-model': { input: 100, output: 100, cacheRead: 0, cacheCreation: 0 },
    });

    const cost = sessionsCost(summaries);
    // msg_1: 1000 × 3e-6 + 500 × 15e-6 + 2000 × 3.75e-6 = 0.018
    // msg_2: 10 × 6e-6 + 100 × 22.5e-6 + 250000 × 6e-7 + 1000 × 12e-6 = 0.16431
    expect(cost.usd).toBeCloseTo(0.18231, 10);
    expect(Object.keys(cost.unpriced)).toEqual(['my-local-model']);
    expect(describeCost(cost)).toContain('not priced: my-local-model');

    const json = costJson(summaries, 'UTC');
    expect(json).toMatchObject({ currency: 'USD', pricesAsOf: PRICES.asOf, label: 'API-equivalent estimate' });
    expect(json.total).toBeCloseTo(0.18231, 6);
    expect(json.bySource['claude-code']).toBeCloseTo(0.18231, 6);
    expect(json.byModel['claude-sonnet-4-5-20250929']).toBeCloseTo(0.18231, 6);
    expect(json.byDay['2026-03-02']).toBeCloseTo(0.018, 6);
    expect(json.byDay['2026-03-03']).toBeCloseTo(0.16431, 6);
    expect(json.unpriced['my-local-model']).toMatchObject({ input: 100, output: 100 });
  });

  it('says "not known" for sessions archived before tokens were kept per model, and Amazon Q has no counts', () => {
    const old = {
      source: 'claude-code',
      startedAt: '2026-03-01T00:00:00.000Z',
      stats: { tokens: { input: 5, output: 5, cacheRead: 0, cacheCreation: 0 }, activity: {} },
    } as unknown as SessionSummary;
    const q = { ...old, source: 'amazon-q', stats: { ...old.stats, tokens: usage({}) } } as SessionSummary;
    const cost = sessionsCost([old, q]);
    expect(cost.usd).toBe(0);
    expect(cost.notKnown).toBe(1);
    expect(describeCost(cost)).toBe(
      'not known for 1 session collected before tokens were kept per model; Amazon Q keeps no token counts',
    );
  });
});
