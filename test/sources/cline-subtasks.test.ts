import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { cline } from '../../src/sources/cline/index.ts';
import { REPO, tempDir } from '../helpers/paths.ts';

// Hand-made from RooCodeInc/Roo-Code at cb836567 (packages/types/src/history.ts HistoryItem,
// src/core/task-persistence/TaskHistoryStore.ts history_item.json, src/core/tools/NewTaskTool.ts and
// src/core/webview/ClineProvider.ts delegateParentAndOpenChild / reopenParentFromDelegation): an orchestrator task
// with two `new_task` subtasks, one of which starts a subtask of its own, and a subtask whose parent is gone.
// Numbers below are counted by hand from the files (see docs/formats/cline.md, "Subtasks").
const ROOT = path.join(REPO, 'fixtures/cline/roo-subtasks/rooveterinaryinc.roo-cline');
const P = '7d1e0c52-3b7a-4f0e-8a21-5c0b9e4d1a01';
const C1 = '7d1e0c52-3b7a-4f0e-8a21-5c0b9e4d1a02';
const C2 = '7d1e0c52-3b7a-4f0e-8a21-5c0b9e4d1a03';
const G = '7d1e0c52-3b7a-4f0e-8a21-5c0b9e4d1a04';
const O = '7d1e0c52-3b7a-4f0e-8a21-5c0b9e4d1a05';
const MISSING = 'e0b1c2d3-0000-4000-8000-00000000dead';

async function copy(): Promise<string> {
  const to = path.join(await tempDir('roo-subtasks'), path.basename(ROOT));
  await fs.cp(ROOT, to, { recursive: true });
  return to;
}

async function run(root: string, dataDir?: string) {
  const data = dataDir ?? path.join(await tempDir('roo-subtasks-data'), 'd');
  const warnings: string[] = [];
  const report = await collect({
    home: await tempDir('roo-subtasks-home'),
    env: {},
    dataDir: data,
    sourceOptions: { explicitHome: 'true', clineDir: [root] },
    sources: [cline],
    onWarning: (w) => warnings.push(`${path.relative(root, w.file)}:${w.line ?? ''}: ${w.message}`),
  });
  const summaries = JSON.parse(
    await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  const byId = new Map(summaries.map((s) => [s.sessionId, s]));
  const body = async (id: string) => (await readBodyFile(data, byId.get(id)!.body))!.session;
  return { data, report, warnings, byId, body };
}

describe('Roo Code subtasks (history_item.json parentTaskId) as threads under their new_task call', () => {
  it('reads a task tree as one session: each subtask a thread under its call, tokens and dollars once', async () => {
    const root = await copy();
    const { byId, warnings, body } = await run(root);
    expect(warnings).toEqual([]);
    // The three subtasks are threads, not sessions; the one whose parent is gone stays a session.
    expect([...byId.keys()].sort()).toEqual([P, O]);
    const s = byId.get(P)!;
    expect(s).toMatchObject({
      title: 'Add a /health endpoint to the API and a test for it',
      cwd: '/home/ana/api',
      startedAt: '2026-03-10T09:00:00.000Z',
      endedAt: '2026-03-10T09:00:40.000Z',
      subagents: 3,
    });
    expect(s.files).toHaveLength(12); // api, ui and history_item.json of four tasks
    expect(s.files).toContain(path.join(root, 'tasks', G, 'history_item.json'));
    // Requests: parent 1000/100 $0.01, 1200/50 $0.008, 1300/40 $0.007; C1 800/200 $0.02, 900/60 $0.006;
    // G 500/100 $0.005; C2 600/80 $0.004. Each once, in this session only.
    expect(s.stats).toMatchObject({
      prompts: 1,
      entries: 7,
      mainEntries: 3,
      subagentEntries: 4,
      tokens: { input: 6300, output: 630, cacheRead: 0, cacheCreation: 0 },
      toolUsesByName: { new_task: 3 },
    });
    expect(s.stats.recordedUsd).toBeCloseTo(0.06, 10);
    const session = await body(P);
    expect(session.subagents.map((a) => [a.agentId, a.agentType, a.parentCallId, a.description])).toEqual([
      [C1, 'code', 'toolu_P1', 'Add GET /health returning {"ok":true} to server.js'], // its id in the result
      [G, 'code', 'toolu_C1a', 'Write the health handler in handlers/health.js'], // nested; by time
      [C2, 'debug', 'toolu_P2', 'Write a test for GET /health and run it'], // "Delegated to child task <id>"
    ]);
    const calls = new Set(
      [...session.messages, ...session.subagents.flatMap((a) => a.messages)].map((m) => m.tool_call?.call_id),
    );
    for (const a of session.subagents) expect(calls.has(a.parentCallId)).toBe(true);
    const c1 = session.subagents[0]!;
    expect(c1.file).toBe(path.join(root, 'tasks', C1, 'api_conversation_history.json'));
    expect(c1.messages.map((m) => m.id)).toContain(`2026-03-10T09:00:20.000Z#${C1}:4`);
    expect(c1.messages.at(-1)!.segments[0]!.text).toBe('Added GET /health to server.js.');
    expect(c1.messages.find((m) => m.metadata?.usage)!.metadata).toMatchObject({
      usage: { input: 800, output: 200 },
      costUsd: 0.02,
    });
    expect(session.messages.some((m) => m.id.includes(C1))).toBe(false);

    const o = byId.get(O)!;
    expect(o).toMatchObject({ title: 'List what util.js exports', subagents: 0 });
    expect(o.stats.tokens).toMatchObject({ input: 300, output: 30 });
    expect((await body(O)).messages[0]!.metadata).toMatchObject({ subagent_of: MISSING, parent_missing: true });
  });

  it('a second collect finds the tree unchanged; a changed subtask reads its whole tree again', async () => {
    const root = await copy();
    const first = await run(root);
    const again = await run(root, first.data);
    expect(again.report.sources.find((r) => r.id === 'cline')).toMatchObject({ sessions: 0, unchanged: 2 });
    const ui = path.join(root, 'tasks', C2, 'ui_messages.json');
    const list = JSON.parse(await fs.readFile(ui, 'utf8')) as unknown[];
    list.push({ ts: 1773133236000, type: 'say', say: 'api_req_started', text: '{"tokensIn": 50, "tokensOut": 5}' });
    await fs.writeFile(ui, JSON.stringify(list));
    const third = await run(root, first.data);
    expect(third.report.sources.find((r) => r.id === 'cline')).toMatchObject({ sessions: 1, unchanged: 1 });
    expect([...third.byId.keys()].sort()).toEqual([P, O]);
    expect(third.byId.get(P)!.stats.tokens).toMatchObject({ input: 6350, output: 635 });
  });

  it('without the parent folder, its subtasks are sessions of their own (a nested one stays a thread)', async () => {
    const root = await copy();
    await fs.rm(path.join(root, 'tasks', P), { recursive: true });
    const { byId, warnings, body } = await run(root);
    expect(warnings).toEqual([]);
    expect([...byId.keys()].sort()).toEqual([C1, C2, O]);
    expect(byId.get(C1)!.subagents).toBe(1);
    expect(byId.get(C1)!.stats.tokens).toMatchObject({ input: 2200, output: 360 });
    expect((await body(C1)).subagents[0]).toMatchObject({ agentId: G, parentCallId: 'toolu_C1a' });
    expect((await body(C2)).messages[0]!.metadata).toMatchObject({ subagent_of: P, parent_missing: true });
  });

  it('a history_item.json that is not JSON: one warning naming it, the task read on its own', async () => {
    const root = await copy();
    await fs.writeFile(path.join(root, 'tasks', C2, 'history_item.json'), '{"id": "trunc');
    const { byId, warnings } = await run(root);
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^tasks/${C2}/history_item\\.json:: not valid JSON`))]);
    expect([...byId.keys()].sort()).toEqual([P, C2, O]);
    expect(byId.get(P)!.subagents).toBe(2);
    expect(byId.get(P)!.stats.tokens.input).toBe(5700);
  });

  it('subtasks an earlier version archived as sessions of their own are folded into the tree: counted once', async () => {
    const root = await copy();
    // Before history_item.json (or before this version), each subtask was read as a session of its own.
    const items = [C1, C2, G].map((id) => path.join(root, 'tasks', id, 'history_item.json'));
    const saved = await Promise.all(items.map((file) => fs.readFile(file)));
    await Promise.all(items.map((file) => fs.rm(file)));
    const before = await run(root);
    expect([...before.byId.keys()].sort()).toEqual([P, C1, C2, G, O].sort());
    const childBodies = [C1, C2, G].map((id) => path.join(before.data, before.byId.get(id)!.body));

    await Promise.all(items.map((file, i) => fs.writeFile(file, saved[i]!)));
    const after = await run(root, before.data);
    expect(after.warnings).toEqual([]);
    expect([...after.byId.keys()].sort()).toEqual([P, O]);
    expect(after.byId.get(P)!.subagents).toBe(3);
    expect(after.byId.get(P)!.stats.tokens.input).toBe(6300);
    // Every token of the archive once: the subtasks' own copies are gone with their bodies.
    const input = [...after.byId.values()].reduce((n, s) => n + s.stats.tokens.input, 0);
    expect(input).toBe(6300 + after.byId.get(O)!.stats.tokens.input);
    for (const body of childBodies) await expect(fs.stat(body)).rejects.toThrow();
  });
});
