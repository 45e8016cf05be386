import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { HistoryPrompt, SessionSummary } from '../../src/model/session.ts';
import { computeStats } from '../../src/stats/aggregate.ts';
import { buildDayIndexes } from '../../src/stats/indexes.ts';

// Data collected from fixtures/home by test/global-setup.ts. Per-session numbers: fixtures/README.md (Claude
// Code A–F), fixtures/CODEX.md (Codex K1, K2, K3, K5 with subagent K4, K6, L1, T1) and fixtures/AMAZONQ.md
// (Amazon Q / Kiro A–D; Q records no tokens).
const site = inject('site');

async function load(): Promise<{ summaries: SessionSummary[]; history: HistoryPrompt[] }> {
  const read = async (p: string) => JSON.parse(await fs.readFile(path.join(site.dataDir, p), 'utf8'));
  const history = [...(await read('prompts/claude-code.json')), ...(await read('prompts/codex.json'))];
  return { summaries: await read('index/sessions.json'), history };
}

async function claudeOnly(timeZone: string) {
  const { summaries, history } = await load();
  const claude = summaries.filter((s) => s.source === 'claude-code');
  return computeStats(claude, buildDayIndexes(claude, history, timeZone), timeZone, new Date(0));
}

async function statsIn(timeZone: string) {
  const { summaries, history } = await load();
  return computeStats(summaries, buildDayIndexes(summaries, history, timeZone), timeZone, new Date(0));
}

describe('site statistics over the fixtures', () => {
  it('counts patterns per source and overall', async () => {
    const stats = await statsIn('UTC');
    expect(stats.sessions).toEqual({ total: 17, bySource: { 'claude-code': 6, codex: 7, 'amazon-q': 4 } });
    // Claude: C, E simple; D single tool; A, F multi tool; B incomplete.
    expect(stats.patternsBySource['claude-code']).toEqual({ simple: 2, single_tool: 1, multi_tool: 2, incomplete: 1 });
    // Amazon Q: B simple; A, D multi tool; C incomplete (its last element's response is ToolUse).
    expect(stats.patternsBySource['amazon-q']).toEqual({ simple: 1, single_tool: 0, multi_tool: 2, incomplete: 1 });
    // Codex: K6 simple; K3, K5, T1 single tool; K1 multi tool; K2 (unanswered call), L1 (prompt last) incomplete.
    expect(stats.patternsBySource.codex).toEqual({ simple: 1, single_tool: 3, multi_tool: 1, incomplete: 2 });
    expect(stats.patterns).toEqual({ simple: 4, single_tool: 4, multi_tool: 5, incomplete: 4 });
    expect(stats.patternShares.simple).toBeCloseTo(4 / 17);
  });

  it('describes entries per conversation over the main thread (Claude 5 7 2 2 1 3; Codex 6 4 2 2 1 3 2; Q 5 2 2 6)', async () => {
    // Subagent entries are a figure of their own: A's subagent 2, B's legacy agent file 1, F's inline sidechain
    // 1, Codex K5's K4 2.
    const claude = (await claudeOnly('UTC')).entriesPerConversation;
    expect(claude.mean).toBe(20 / 6); // 5 + 7 + 2 + 2 + 1 + 3 = 20
    expect(claude.median).toBe(2.5); // sorted 1 2 2 3 5 7 → (2 + 3) / 2
    const stats = await statsIn('UTC');
    const e = stats.entriesPerConversation;
    expect(e.min).toBe(1);
    expect(e.max).toBe(7);
    expect(e.mean).toBe(55 / 17); // 20 + 20 + 15
    expect(e.median).toBe(2); // sorted 1 1 2 2 2 2 2 2 [2] 3 3 4 5 5 6 6 7
    expect(e.histogram).toEqual([
      { from: 0, to: 0, count: 0 },
      { from: 1, to: 1, count: 2 }, // Claude E, Codex K6
      { from: 2, to: 3, count: 9 }, // Claude C, D, F; Codex K3, K5, T1, L1; Q B, C
      { from: 4, to: 7, count: 6 }, // Claude A, B; Codex K1, K2; Q A, D
    ]);
    expect(stats.subagentEntries).toEqual({ total: 6, conversations: 4 });
  });

  it('counts tool uses by name and their error rate', async () => {
    const { toolUses } = await statsIn('UTC');
    // Claude A: Read Bash Grep Task Glob; B: Task Edit Edit Write Bash; D: Edit; F: Task Bash → 5 + 5 + 1 + 2 = 13.
    // Q A: fs_read 2, execute_bash, fs_write; C: execute_bash, fs_read, search_issues; D: fs_read, fs_write 2,
    // execute_bash → 4 + 3 + 4 = 11.
    // Codex K1: exec_command 3, shell, apply_patch; K2: shell 2, apply_patch; K3: exec_command; K5: spawn_agent,
    // exec_command (subagent K4); L1: local_shell, shell; T1: shell → 5 + 3 + 1 + 2 + 2 + 1 = 14.
    expect(toolUses.bySource).toEqual({ 'claude-code': 13, codex: 14, 'amazon-q': 11 });
    expect(toolUses.total).toBe(38);
    expect(toolUses.byName).toEqual({
      exec_command: 5,
      shell: 5,
      fs_read: 4,
      Bash: 3,
      Edit: 3,
      Task: 3,
      execute_bash: 3,
      fs_write: 3,
      apply_patch: 2,
      Glob: 1,
      Grep: 1,
      Read: 1,
      Write: 1,
      local_shell: 1,
      search_issues: 1,
      spawn_agent: 1,
    });
    // Claude A's Bash result has is_error; Codex K1's call_k1_c exited 1 and L1's local_shell failed; Q A's
    // execute_bash (A2) failed. Q A4 was cancelled: not an error.
    expect(toolUses.errorsByName).toEqual({ Bash: 1, exec_command: 1, execute_bash: 1, local_shell: 1 });
    expect(toolUses.errors).toBe(4);
    // Q A4, the fs_write the user cancelled, is a refusal, counted apart.
    expect(toolUses.refusals).toBe(1);
    expect(toolUses.refusalsByName).toEqual({ fs_write: 1 });
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
    expect(tokyo.tokensByDay['2026-03-04']!.codex).toEqual({
      input: 13000,
      output: 1150,
      cacheRead: 27000,
      cacheCreation: 0,
    });
    // L1 and T1 (03-03) record no tokens: no Codex figure there rather than zeros.
    expect(Object.keys(tokyo.tokensByDay['2026-03-03']!)).toEqual(['claude-code']);
    expect(tokyo.tokensByDay['2026-03-04']!['claude-code']).toEqual({
      input: 200 + 310,
      output: 110 + 240,
      cacheRead: 2000 + 3200,
      cacheCreation: 400 + 700,
    });
  });

  it('sums each day: sessions, entries, tool uses, prompts', async () => {
    const tokyo = await statsIn('Asia/Tokyo');
    // 03-03 JST: Claude B (8 entries, 5 tool uses), Codex L1 (3, 2), T1 (2, 1); prompts: Claude history #4–9 = 6,
    // L1's 2 and T1's 1 (transcripts only).
    expect(tokyo.days['2026-03-03']).toMatchObject({ sessions: 3, entries: 13, toolUses: 8, prompts: 9 });
    // 03-04 JST: Claude C (2 entries) and F (4 entries, 2 tool uses), Codex K1 (6, 5); prompts: C's 2 (history),
    // F's 2 (transcript only), K1's 2 (Codex history).
    expect(tokyo.days['2026-03-04']).toMatchObject({ sessions: 3, entries: 12, toolUses: 7, prompts: 6 });
    const utc = await statsIn('UTC');
    // UTC 03-02: Claude A and B; prompts: Claude history #2–6 = 5, Codex history #5 = 1.
    expect(utc.days['2026-03-02']).toMatchObject({ sessions: 2, prompts: 6 });
    expect(utc.toolUsesByDay['2026-03-02']).toMatchObject({ Read: 1, Grep: 1, Glob: 1 });
  });
});
