import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import { sessionRoute } from '../../src/model/routes.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { createQDatabase } from '../helpers/amazonq-db.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';
import { CWD, claudeLines, codexLines, deepJson, qState, writeLines } from './make.ts';

const CLAUDE_ID = '0badtype-0000-4000-8000-000000000001';
const CODEX_ID = '019cb1a0-0bad-7000-8000-0000000000ff';
const T = '2026-03-10T10:00:00.000Z';

/** Claude records with a wrong type somewhere (a line each, but the scalars: one line per scalar). */
const CLAUDE_BAD: Array<{ label: string; line: string }> = [
  { label: 'message a string', line: JSON.stringify({ type: 'user', uuid: 'b1', timestamp: T, message: 'str' }) },
  { label: 'message null', line: JSON.stringify({ type: 'user', uuid: 'b2', timestamp: T, message: null }) },
  { label: 'message a number', line: JSON.stringify({ type: 'assistant', uuid: 'b3', timestamp: T, message: 7 }) },
  {
    label: 'content a number',
    line: JSON.stringify({ type: 'user', uuid: 'b4', timestamp: T, message: { role: 'user', content: 42 } }),
  },
  {
    label: 'ids as numbers',
    line: JSON.stringify({
      type: 'assistant',
      uuid: 'b5',
      timestamp: T,
      message: { id: 42, role: 'assistant', model: 9, content: [{ type: 'tool_use', id: 7, name: 8, input: {} }] },
    }),
  },
  {
    label: 'timestamp a number',
    line: JSON.stringify({
      type: 'user',
      uuid: 'b6',
      timestamp: 1773000000,
      message: { role: 'user', content: 'numeric time' },
    }),
  },
  {
    label: 'timestamp garbage',
    line: JSON.stringify({
      type: 'user',
      uuid: 'b7',
      timestamp: 'soon',
      message: { role: 'user', content: 'garbage time' },
    }),
  },
  {
    label: 'usage strings',
    line: JSON.stringify({
      type: 'assistant',
      uuid: 'b8',
      timestamp: T,
      message: {
        id: 'msg_b8',
        role: 'assistant',
        content: [{ type: 'text', text: 'usage as text' }],
        usage: { input_tokens: '10', output_tokens: 'many', cache_read_input_tokens: {} },
      },
    }),
  },
  {
    label: 'tool input a string',
    line: JSON.stringify({
      type: 'assistant',
      uuid: 'b9',
      timestamp: T,
      message: {
        id: 'msg_b9',
        role: 'assistant',
        content: [{ type: 'tool_use', id: 'tu9', name: 'Bash', input: 'ls' }],
      },
    }),
  },
  {
    label: 'tool result an object',
    line: JSON.stringify({
      type: 'user',
      uuid: 'b10',
      timestamp: T,
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu9', content: { files: 3 } }] },
    }),
  },
  { label: 'scalar number', line: '42' },
  { label: 'scalar string', line: '"just a string"' },
  { label: 'scalar true', line: 'true' },
  { label: 'scalar null', line: 'null' },
  {
    label: 'tool input 100,000 deep',
    line: `{"type":"assistant","uuid":"b15","timestamp":"${T}","message":{"id":"msg_b15","role":"assistant","content":[{"type":"tool_use","id":"tu15","name":"DeepTool","input":{"x":${deepJson(100_000)}}}]}}`,
  },
];

/** Codex rollout lines that are cut, binary, wrong-typed or too deep. */
/** `quiet`: kept as the format allows, so no warning (real rollouts hold exec_command arguments that are not JSON). */
function codexBad(): Array<{ label: string; line: string; quiet?: boolean }> {
  const at = '2026-03-11T09:30:00.000Z';
  const item = (payload: unknown) => JSON.stringify({ timestamp: at, type: 'response_item', payload });
  return [
    { label: 'truncated', line: '{"timestamp":"2026-03-11T09:30:00Z","type":"response_item","payload":{"type":"mess' },
    { label: 'binary', line: Buffer.from([0x00, 0xff, 0xfe, 0x01, 0x7b, 0x80]).toString('latin1') },
    {
      label: 'payload a string',
      line: JSON.stringify({ timestamp: at, type: 'response_item', payload: 'odd' }),
    },
    { label: 'payload null', line: JSON.stringify({ timestamp: at, type: 'event_msg', payload: null }) },
    { label: 'type a number', line: JSON.stringify({ timestamp: at, type: 42, payload: { type: 'message' } }) },
    {
      quiet: true,
      label: 'arguments not JSON',
      line: item({ type: 'function_call', name: 'shell', call_id: 'c1', arguments: '{"command": [ls' }),
    },
    {
      label: 'arguments 100,000 deep',
      line: item({ type: 'function_call', name: 'shell', call_id: 'c2', arguments: deepJson(100_000) }),
    },
    {
      label: 'output an object',
      line: item({ type: 'function_call_output', call_id: 'c1', output: { ok: 1 } }),
    },
    {
      label: 'payload 100,000 deep',
      line: `{"timestamp":"${at}","type":"response_item","payload":${deepJson(100_000)}}`,
    },
    { label: 'message content a number', line: item({ type: 'message', role: 'user', content: 42 }) },
  ];
}

async function body(data: string, id: string): Promise<NormalizedMessage[]> {
  const summaries = JSON.parse(
    await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  const summary = summaries.find((s) => s.id === id);
  expect(summary, id).toBeDefined();
  return (await readBodyFile(data, summary!.body))!.session.messages;
}

const textsOf = (messages: NormalizedMessage[]) => messages.flatMap((m) => m.segments.map((s) => s.text ?? ''));

describe('a record with wrong types costs that record only', () => {
  it('collect keeps every good record around each bad one, warns by file:line, and build writes the pages', async () => {
    const home = await tempDir('hostile-types');
    const data = path.join(home, 'data');
    const out = path.join(home, 'out');

    // Claude: a good prompt and answer before and after every bad line.
    const pairs = Array.from({ length: CLAUDE_BAD.length + 1 }, (_, i): [string, string] => [
      `claude prompt ${i}`,
      `claude answer ${i}`,
    ]);
    const good = claudeLines(CLAUDE_ID, pairs);
    const claudeFile = path.join(home, '.claude', 'projects', '-home-alice-work-hostile', `${CLAUDE_ID}.jsonl`);
    const claudeLinesOut: string[] = [good[0]!, good[1]!];
    const claudeBadAt: Array<{ label: string; line: number }> = [];
    CLAUDE_BAD.forEach((bad, i) => {
      claudeLinesOut.push(bad.line);
      claudeBadAt.push({ label: bad.label, line: claudeLinesOut.length });
      claudeLinesOut.push(good[2 * (i + 1)]!, good[2 * (i + 1) + 1]!);
    });
    await writeLines(claudeFile, claudeLinesOut);

    // Codex: the same around each bad line.
    const bad = codexBad();
    const codexGood = codexLines(
      CODEX_ID,
      Array.from({ length: bad.length + 1 }, (_, i): [string, string] => [`codex prompt ${i}`, `codex answer ${i}`]),
    );
    const rollout = path.join(
      home,
      '.codex',
      'sessions',
      '2026',
      '03',
      '11',
      `rollout-2026-03-11T09-00-00-${CODEX_ID}.jsonl`,
    );
    const codexOut: string[] = codexGood.slice(0, 3);
    const codexBadAt: Array<{ label: string; line: number }> = [];
    bad.forEach((b, i) => {
      codexOut.push(b.line);
      if (!b.quiet) codexBadAt.push({ label: b.label, line: codexOut.length });
      codexOut.push(...codexGood.slice(3 + 2 * i, 5 + 2 * i));
    });
    await fs.mkdir(path.dirname(rollout), { recursive: true });
    await fs.writeFile(rollout, Buffer.from(`${codexOut.join('\n')}\n`, 'latin1'));

    // Amazon Q: one tool argument nested 100,000 levels (written as text: JSON.stringify cannot make it).
    const state = qState('q-deep-arg', 'q prompt before the tool', 'unused');
    const entry = state.history[0]! as Record<string, unknown>;
    entry.assistant = {
      ToolUse: {
        message_id: 'q-m1',
        content: 'q text with the tool call',
        tool_uses: [{ id: 'qt1', name: 'fs_read', args: { path: 'DEEP' } }],
      },
    };
    const qDb = path.join(home, '.local', 'share', 'kiro-cli', 'data.sqlite3');
    await createQDatabase(qDb, {
      conversations: [],
      conversationsV2: [{ key: CWD, state, createdAt: 1, updatedAt: 2 }],
    });
    const Database = (await import('better-sqlite3')).default;
    const db = new Database(qDb);
    const row = db.prepare('SELECT value FROM conversations_v2').get() as { value: string };
    db.prepare('UPDATE conversations_v2 SET value = ?').run(row.value.replace('"DEEP"', deepJson(100_000)));
    db.close();

    const collect = await runCli(['collect', '--home', home, '--data', data, '--verbose']);
    expect(collect.stderr).not.toMatch(/Maximum call stack|is not a function/);
    expect(collect.code, collect.stderr).toBe(0);
    for (const { label, line } of claudeBadAt) {
      expect(collect.stderr, label).toContain(`warning: ${claudeFile}:${line}: `);
    }
    for (const { label, line } of codexBadAt) {
      expect(collect.stderr, label).toContain(`warning: ${rollout}:${line}: `);
    }

    const claude = await body(data, `claude-code/${CLAUDE_ID}`);
    expect(textsOf(claude)).toEqual(expect.arrayContaining(pairs.flat()));
    const deepCall = claude.find((m) => m.tool_call?.name === 'DeepTool');
    expect(deepCall, 'the deep call is kept, its input cut').toBeDefined();
    expect(JSON.stringify(deepCall!.tool_call!.arguments_json)).toContain('[cut: nested deeper than');
    const codex = await body(data, `codex/${CODEX_ID}`);
    expect(textsOf(codex)).toEqual(
      expect.arrayContaining(
        codexGood.length > 0 ? bad.flatMap((_, i) => [`codex prompt ${i}`, `codex answer ${i}`]) : [],
      ),
    );
    expect(textsOf(codex)).toEqual(
      expect.arrayContaining([`codex prompt ${bad.length}`, `codex answer ${bad.length}`]),
    );
    const q = await body(data, 'amazon-q/q-deep-arg');
    expect(textsOf(q)).toEqual(expect.arrayContaining(['q prompt before the tool', 'q text with the tool call']));
    const qCall = q.find((m) => m.tool_call?.name === 'fs_read');
    expect(qCall, 'the Q call is kept').toBeDefined();
    expect(JSON.stringify(qCall!.tool_call!.arguments_json)).toContain('[cut: nested deeper than');
    for (const m of [...claude, ...codex, ...q]) {
      for (const s of m.segments) if (s.text !== undefined) expect(typeof s.text).toBe('string');
      expect(typeof m.id).toBe('string');
      expect(typeof m.timestamp).toBe('string');
    }

    const build = await runCli(['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC']);
    expect(build.stderr).not.toMatch(/is not a function|connection is not open/);
    expect(build.code, build.stderr).toBe(0);
    const page = await fs.readFile(path.join(out, sessionRoute('claude-code', `${CLAUDE_ID}`), 'index.html'), 'utf8');
    expect(page, build.stderr).toContain('claude prompt 0');
    expect(page).toContain(`claude answer ${CLAUDE_BAD.length}`);
    const codexPage = await fs.readFile(path.join(out, sessionRoute('codex', CODEX_ID), 'index.html'), 'utf8');
    expect(codexPage).toContain(`codex answer ${bad.length}`);
  });
});
