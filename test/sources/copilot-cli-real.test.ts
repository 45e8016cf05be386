import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { copilotCli } from '../../src/sources/copilot-cli/index.ts';
import { REPO, tempDir } from '../helpers/paths.ts';

// A real Copilot CLI 1.0.49-1 session copied unchanged (fixtures/copilot-cli/real/SOURCES.md). Every value
// below was read from its events.jsonl and workspace.yaml by hand, not taken from the reader.
const REAL = path.join(REPO, 'fixtures', 'copilot-cli', 'real', 'session-medium');
const ID = '66957610-db49-4dea-972d-c079e1898044';

describe('Copilot CLI: a real session (session-medium)', () => {
  it('reads its title, times, model, prompt, tool call, tokens and premium requests, without warnings', async () => {
    const dir = path.join(await tempDir('copilot-real'), 'copilot-home');
    const sessionDir = path.join(dir, 'session-state', ID);
    await fs.mkdir(path.dirname(sessionDir), { recursive: true });
    await fs.cp(REAL, sessionDir, { recursive: true });
    const dataDir = path.join(await tempDir('copilot-real-data'), 'd');
    const warnings: string[] = [];
    const report = await collect({
      home: await tempDir('copilot-real-home'),
      env: {},
      dataDir,
      sourceOptions: { explicitHome: 'true', copilotDir: [dir] },
      sources: [copilotCli],
      onWarning: (w) => warnings.push(`${w.file}:${w.line ?? ''}: ${w.message}`),
    });
    expect(warnings).toEqual([]);
    expect(report.sources.find((s) => s.id === 'copilot-cli')).toMatchObject({ sessions: 1 });

    const summaries = JSON.parse(
      await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8'),
    ) as SessionSummary[];
    expect(summaries.map((s) => s.sessionId)).toEqual([ID]);
    const s = summaries[0]!;
    expect(s).toMatchObject({
      source: 'copilot-cli',
      title: 'list available models', // workspace.yaml `name` (it has no `summary`)
      cwd: '/Users/testuser',
      cliVersion: '1.0.49-1',
      startedAt: '2026-05-17T01:06:01.405Z', // session.start's record; its data.startTime is 01:06:01.382Z
      endedAt: '2026-05-17T01:06:15.182Z', // session.shutdown
      models: ['claude-sonnet-4.6'],
      subagents: 0,
    });
    expect(s.gitBranch).toBeUndefined();
    expect(s.files.sort()).toEqual([path.join(sessionDir, 'events.jsonl'), path.join(sessionDir, 'workspace.yaml')]);
    expect(s.prompts.map((p) => [p.timestamp, p.text])).toEqual([
      ['2026-05-17T01:06:07.047Z', 'list available models'],
    ]);
    expect(s.stats).toMatchObject({
      prompts: 1,
      entries: 2, // two assistant.message records: the report_intent call, then the answer
      toolRounds: 1,
      toolUses: 1,
      toolUsesByName: { report_intent: 1 },
      toolErrors: 0,
      premiumRequests: 1, // totalPremiumRequests 1; modelMetrics requests.cost 1
    });
    // modelMetrics claude-sonnet-4.6 usage: inputTokens 48243 = 4 + cacheRead 24072 + cacheWrite 24167 (tokenDetails
    // input.tokenCount is 4); outputTokens 414 = 79 + 335, the two messages' outputTokens.
    const tokens = { input: 4, output: 414, cacheRead: 24072, cacheCreation: 24167 };
    expect(s.stats.tokens).toEqual(tokens);
    expect(s.stats.tokensByModel).toEqual({ 'claude-sonnet-4.6': tokens });

    const body = (await readBodyFile(dataDir, s.body))!.session;
    expect(body.subagents).toEqual([]);
    const msgs = body.messages;
    const call = msgs.find((m) => m.source_type === 'tool_call')!;
    expect(call.tool_call).toMatchObject({
      call_id: 'toolu_01AyqWYHijwfcmwT1AJwqqPs',
      name: 'report_intent',
      status: 'completed',
    });
    expect(call.tool_call!.arguments_json).toEqual({ intent: 'Listing available models' });
    const result = msgs.find((m) => m.source_type === 'tool_result')!;
    expect(result.tool_call).toMatchObject({ call_id: 'toolu_01AyqWYHijwfcmwT1AJwqqPs', output: 'Intent logged' });
    const answer = msgs.find((m) => m.segments.some((g) => g.text?.startsWith('Here are the available models:')))!;
    expect(answer.metadata).toMatchObject({ kind: 'response', model: 'claude-sonnet-4.6', output_tokens: 335 });
    expect(answer.segments.find((g) => g.format === 'text')!.text).toContain(
      "I'm currently powered by **Claude Sonnet 4.6**.",
    );
    const thinking = msgs.flatMap((m) => m.segments).filter((g) => g.format === 'thinking');
    expect(thinking.map((g) => g.text)).toEqual(['The user wants to list available models.']);
    expect(msgs.find((m) => m.raw.event_type === 'system.message')).toMatchObject({
      role: 'system',
      metadata: { kind: 'injected' },
    });
  });
});
