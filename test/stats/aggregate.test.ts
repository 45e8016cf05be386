import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { HistoryPrompt, SessionSummary } from '../../src/model/session.ts';
import { computeStats } from '../../src/stats/aggregate.ts';
import { buildDayIndexes } from '../../src/stats/indexes.ts';

// Data collected from fixtures/home by test/global-setup.ts. Per-session numbers: fixtures/README.md.
const site = inject('site');

async function load(): Promise<{ summaries: SessionSummary[]; history: HistoryPrompt[] }> {
  const read = async (p: string) => JSON.parse(await fs.readFile(path.join(site.dataDir, p), 'utf8'));
  return { summaries: await read('index/sessions.json'), history: await read('prompts/claude-code.json') };
}

async function statsIn(timeZone: string) {
  const { summaries, history } = await load();
  return computeStats(summaries, buildDayIndexes(summaries, history, timeZone), timeZone, new Date(0));
}

describe('site statistics over the fixtures', () => {
  it('counts patterns: C, E simple; D single tool; A, F multi tool; B incomplete', async () => {
    const stats = await statsIn('UTC');
    expect(stats.sessions).toEqual({ total: 6, bySource: { 'claude-code': 6 } });
    expect(stats.patterns).toEqual({ simple: 2, single_tool: 1, multi_tool: 2, incomplete: 1 });
    expect(stats.patternsBySource['claude-code']).toEqual(stats.patterns);
    expect(stats.patternShares.simple).toBeCloseTo(2 / 6);
  });

  it('describes entries per conversation: A 7, B 8, C 2, D 2, E 1, F 4', async () => {
    const { entriesPerConversation: e } = await statsIn('UTC');
    expect(e.min).toBe(1);
    expect(e.max).toBe(8);
    expect(e.mean).toBe(24 / 6); // 7 + 8 + 2 + 2 + 1 + 4 = 24
    expect(e.median).toBe(3); // sorted 1 2 2 4 7 8 → (2 + 4) / 2
    expect(e.histogram).toEqual([
      { from: 0, to: 0, count: 0 },
      { from: 1, to: 1, count: 1 }, // E
      { from: 2, to: 3, count: 2 }, // C, D
      { from: 4, to: 7, count: 2 }, // F, A
      { from: 8, to: 15, count: 1 }, // B
    ]);
  });

  it('counts tool uses by name and their error rate', async () => {
    const { toolUses } = await statsIn('UTC');
    // A: Read Bash Grep Task Glob; B: Task Edit Edit Write Bash; D: Edit; F: Task Bash → 5 + 5 + 1 + 2
    expect(toolUses.total).toBe(13);
    expect(toolUses.byName).toEqual({ Bash: 3, Edit: 3, Task: 3, Glob: 1, Grep: 1, Read: 1, Write: 1 });
    expect(toolUses.bySource).toEqual({ 'claude-code': 13 });
    expect(toolUses.errorsByName).toEqual({ Bash: 1 }); // A's Bash result has is_error
    expect(toolUses.errorRateByName.Bash).toBeCloseTo(1 / 3);
  });

  it('gives tokens per source, counted once per response', async () => {
    const { tokens } = await statsIn('UTC');
    // Sum of the README table: 520+720+200+200+100+310, 380+475+110+100+50+240, …
    expect(tokens.bySource['claude-code']).toEqual({
      input: 2050,
      output: 1355,
      cacheRead: 21300,
      cacheCreation: 4500,
    });
  });

  it('puts each request on the day it was made, in the zone asked for', async () => {
    const utc = await statsIn('UTC');
    // B crosses midnight UTC. Before: B1–B5 (5 × 100 in, 70+90+25+60+45 out) + its subagent (20 in, 40 out,
    // 300 cache write). A (520/380/6100/1100) is on the same day.
    expect(utc.tokensByDay['2026-03-02']).toEqual({
      'claude-code': { input: 520 + 520, output: 380 + 330, cacheRead: 6100 + 5000, cacheCreation: 1100 + 1300 },
    });
    // After midnight: B6 (110 out) and B7 (35 out).
    expect(utc.tokensByDay['2026-03-03']).toEqual({
      'claude-code': { input: 200, output: 145, cacheRead: 2000, cacheCreation: 400 },
    });

    const tokyo = await statsIn('Asia/Tokyo');
    // +9 h: A is 18:00 JST on 03-02; all of B (08:50–09:20 JST) is on 03-03; C and F on 03-04; D and E on 03-05.
    expect(tokyo.tokensByDay['2026-03-02']!['claude-code']).toEqual({
      input: 520,
      output: 380,
      cacheRead: 6100,
      cacheCreation: 1100,
    });
    expect(tokyo.tokensByDay['2026-03-03']!['claude-code']).toEqual({
      input: 720,
      output: 475,
      cacheRead: 7000,
      cacheCreation: 1700,
    });
    expect(tokyo.tokensByDay['2026-03-04']!['claude-code']).toEqual({
      input: 200 + 310,
      output: 110 + 240,
      cacheRead: 2000 + 3200,
      cacheCreation: 400 + 700,
    });
  });

  it('sums each day: sessions, entries, tool uses, prompts', async () => {
    const tokyo = await statsIn('Asia/Tokyo');
    // 03-03 JST: session B (8 entries, 5 tool uses); prompts: history #4–9 = 6.
    expect(tokyo.days['2026-03-03']).toMatchObject({ sessions: 1, entries: 8, toolUses: 5, prompts: 6 });
    // 03-04 JST: C (2 entries) and F (4 entries, 2 tool uses); prompts: C's 2 (history) + F's 2 (transcript only).
    expect(tokyo.days['2026-03-04']).toMatchObject({ sessions: 2, entries: 6, toolUses: 2, prompts: 4 });
    const utc = await statsIn('UTC');
    // UTC 03-02: A and B; prompts: history #2–6 = 5.
    expect(utc.days['2026-03-02']).toMatchObject({ sessions: 2, prompts: 5 });
    expect(utc.toolUsesByDay['2026-03-02']).toMatchObject({ Read: 1, Grep: 1, Glob: 1 });
  });
});
