import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { geminiCli } from '../../src/sources/gemini-cli/index.ts';
import { REPO, tempDir } from '../helpers/paths.ts';

// Hand-made from google-gemini/gemini-cli at 5411f113: packages/core/src/core/logger.ts (saveCheckpoint:
// `checkpoint-<encodeTagName(tag)>.json`, `{history, authType}`; loadCheckpoint also takes a bare Content[]),
// packages/cli/src/ui/commands/chatCommand.ts (`/chat save`), environmentContext.ts (the setup turn),
// core/turn.ts and utils/generateContentResponseUtilities.ts (functionCall / functionResponse ids). In tmp/web:
// `before refactor` (newer form, ids on calls and responses), `legacy` (a bare list, the older setup turn and its
// "Got it" reply, a call without an id, one entry that is not a Content) and `typo`, whose only prompt is the
// recorded session 5b2c9e1a's (logs.json).
const FIXTURE = path.join(REPO, 'fixtures/gemini-cli/checkpoints');
const WEB = 'tmp/web';
const RECORDED = '5b2c9e1a-7d3f-4c21-9e0b-1f2a3b4c5d6e';
const SAVED = new Date('2026-03-06T12:00:00.000Z');

async function copy(): Promise<string> {
  const to = path.join(await tempDir('gemini-ckpt'), '.gemini');
  await fs.cp(FIXTURE, to, { recursive: true });
  for (const name of await fs.readdir(path.join(to, WEB))) {
    if (name.startsWith('checkpoint-')) await fs.utimes(path.join(to, WEB, name), SAVED, SAVED);
  }
  return to;
}

async function run(dir: string, dataDir?: string) {
  const data = dataDir ?? path.join(await tempDir('gemini-ckpt-data'), 'd');
  const warnings: string[] = [];
  const report = await collect({
    home: await tempDir('gemini-ckpt-home'),
    env: {},
    dataDir: data,
    sourceOptions: { explicitHome: 'true', geminiDir: [dir] },
    sources: [geminiCli],
    onWarning: (w) => warnings.push(`${path.relative(dir, w.file)}:${w.line ?? ''}: ${w.message}`),
  });
  const summaries = JSON.parse(
    await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  const byId = new Map(summaries.map((s) => [s.sessionId, s]));
  const body = async (id: string) => (await readBodyFile(data, byId.get(id)!.body))!.session;
  return { data, report, warnings, byId, body, gemini: report.sources.find((r) => r.id === 'gemini-cli')! };
}

describe('Gemini CLI checkpoints (/chat save)', () => {
  it('keeps a checkpoint no recorded session holds, titled by its tag, every time estimated from the mtime', async () => {
    const dir = await copy();
    const { byId, warnings, body } = await run(dir);
    expect(warnings).toEqual([
      `${WEB}/checkpoint-legacy.json:7: not a Content (an object with "role" and "parts"); kept as unknown`,
    ]);
    // `typo` holds only the recorded session's prompt: it adds nothing.
    expect([...byId.keys()].sort()).toEqual([RECORDED, 'checkpoint-web-before%20refactor', 'checkpoint-web-legacy']);
    const s = byId.get('checkpoint-web-before%20refactor')!;
    expect(s).toMatchObject({
      title: 'Checkpoint: before refactor',
      cwd: '/home/ana/web',
      startedAt: SAVED.toISOString(),
      endedAt: SAVED.toISOString(),
      models: [],
      files: [path.join(dir, WEB, 'checkpoint-before%20refactor.json')],
    });
    expect(s.stats).toMatchObject({
      prompts: 2,
      toolUses: 3,
      toolUsesByName: { read_file: 1, replace: 1, run_shell_command: 1 },
      toolErrors: 1,
      tokens: { input: 0, output: 0, cacheRead: 0, cacheCreation: 0 },
    });
    const messages = (await body(s.sessionId)).messages;
    expect(messages.every((m) => m.timestamp === SAVED.toISOString() && m.timestamp_estimated === true)).toBe(true);
    expect(messages.map((m) => m.metadata?.kind ?? m.source_type)).toEqual([
      'injected',
      'prompt',
      'response',
      'response',
      'tool_result',
      'response',
      'prompt',
      'response',
      'response',
      'tool_result',
      'tool_result',
      'response',
    ]);
    expect(messages[2]!.segments.map((g) => [g.format, g.text])).toEqual([
      ['thinking', 'Let me look at the layout styles first.'],
      ['text', 'I will read the stylesheet.'],
    ]);
    const calls = messages.filter((m) => m.source_type === 'tool_call');
    const results = messages.filter((m) => m.source_type === 'tool_result');
    expect(calls.map((c) => [c.tool_call!.name, c.tool_call!.status, c.tool_call!.result_id])).toEqual(
      results.map((r) => [r.tool_call!.name, r.tool_call!.status, r.id]),
    );
    expect(calls[0]!.tool_call!.arguments_json).toEqual({ absolute_path: '/home/ana/web/src/layout.css' });
    expect(results[0]!.tool_call!.output).toBe('.navbar { position: fixed; top: 0; }\n.header { margin-top: 0; }');
    expect(results[2]!.tool_call).toMatchObject({
      status: 'error',
      output: 'Command exited with code 1: 2 tests failed',
    });

    const legacy = (await body('checkpoint-web-legacy')).messages;
    expect(legacy.map((m) => [m.role, m.metadata?.kind])).toEqual([
      ['system', 'injected'],
      ['system', 'injected'], // "Got it. Thanks for the context!"
      ['user', 'prompt'],
      ['tool', 'response'],
      ['tool', undefined],
      ['assistant', 'response'],
      ['meta', 'unknown'],
    ]);
    // The call has no id, its response the one the CLI made up: joined by name and order.
    expect(legacy[3]!.tool_call).toMatchObject({
      name: 'list_directory',
      status: 'completed',
      result_id: legacy[4]!.id,
    });
    expect(legacy[4]!.tool_call!.output).toBe(
      'Directory listing for /home/ana/web/src/pages:\nabout.astro\nindex.astro',
    );
    expect(legacy[6]!.raw?.record).toBe('not a content');
  });

  it('a second collect reads nothing; a copy is kept once its prompts leave the recorded sessions', async () => {
    const dir = await copy();
    const first = await run(dir);
    // The copy is known by its stamp and logs.json's: made unreadable in place with the same stamp, it is not read.
    const typo = path.join(dir, WEB, 'checkpoint-typo.json');
    const size = (await fs.stat(typo)).size;
    const handle = await fs.open(typo, 'r+');
    await handle.write('{'.repeat(size), 0);
    await handle.close();
    await fs.utimes(typo, SAVED, SAVED);
    const again = await run(dir, first.data);
    expect(again.gemini).toMatchObject({ sessions: 0, unchanged: 3 });
    expect(again.warnings).toEqual([]);
    // The prompt log no longer ties "Fix the typo in README.md" to the recorded session.
    const logs = path.join(dir, WEB, 'logs.json');
    await fs.writeFile(logs, '[]');
    await fs.cp(path.join(FIXTURE, WEB, 'checkpoint-typo.json'), typo);
    const third = await run(dir, first.data);
    expect(third.gemini).toMatchObject({ sessions: 1, unchanged: 3 });
    expect(third.byId.get('checkpoint-web-typo')).toMatchObject({ title: 'Checkpoint: typo', stats: { prompts: 1 } });
  });

  it('a checkpoint that is not JSON, or not a history: one warning naming it, the others read', async () => {
    const dir = await copy();
    await fs.writeFile(path.join(dir, WEB, 'checkpoint-legacy.json'), '[{"role": "user", "parts": [');
    await fs.writeFile(path.join(dir, WEB, 'checkpoint-odd.json'), '{"messages": []}');
    execFileSync('mkfifo', [path.join(dir, WEB, 'checkpoint-pipe.json')]);
    const { byId, warnings } = await run(dir);
    expect(warnings).toEqual([
      `${WEB}/checkpoint-pipe.json:: a FIFO (named pipe), not a regular file; skipped`,
      expect.stringMatching(/^tmp\/web\/checkpoint-legacy\.json:: not valid JSON/),
      `${WEB}/checkpoint-odd.json:: not a checkpoint (a list of {role, parts}, or {history: [...]}); skipped`,
    ]);
    expect([...byId.keys()].sort()).toEqual([RECORDED, 'checkpoint-web-before%20refactor']);
  });
});
