import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { cline } from '../../src/sources/cline/index.ts';
import { candidateRoots, originOf } from '../../src/sources/cline/paths.ts';
import { searchReplaceEdits, splitAssistantText } from '../../src/sources/cline/xml-tools.ts';
import type { SourceContext } from '../../src/sources/source.ts';
import { FIXTURE_HOME, REPO, tempDir } from '../helpers/paths.ts';

// Fixtures built from cline/cline's own types (src/shared/ExtensionMessage.ts ClineMessage / ClineApiReqInfo,
// src/shared/messages/content.ts ClineStorageMessage, ContextTrackerTypes.ts TaskMetadata); see
// docs/formats/cline.md. Expected numbers below are counted by hand from those files.
const CLINE_ROOT = path.join(FIXTURE_HOME, '.config/Code/User/globalStorage/saoudrizwan.claude-dev');
const DEMO_ID = '1767225600000';
const ROO_ROOT = path.join(REPO, 'fixtures/cline/roo/rooveterinaryinc.roo-cline');
const ROO_ID = '0f8e2a4c-1111-4b7e-9c55-2d9e6f3a7b10';

async function copy(dir: string): Promise<string> {
  const to = path.join(await tempDir('cline'), path.basename(dir));
  await fs.cp(dir, to, { recursive: true });
  return to;
}

async function run(dirs: string[], dataDir?: string) {
  const data = dataDir ?? path.join(await tempDir('cline-data'), 'd');
  const warnings: string[] = [];
  const report = await collect({
    home: await tempDir('cline-home'),
    env: {},
    dataDir: data,
    sourceOptions: { explicitHome: 'true', clineDir: dirs },
    sources: [cline],
    onWarning: (w) => warnings.push(`${w.file}:${w.line ?? ''}: ${w.message}`),
  });
  const summaries = JSON.parse(
    await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  const byId = new Map(summaries.map((s) => [s.sessionId, s]));
  const body = async (id: string): Promise<NormalizedMessage[]> =>
    (await readBodyFile(data, byId.get(id)!.body))!.session.messages;
  return { data, report, warnings, byId, body };
}

async function digest(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const e of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const file = path.join(e.parentPath, e.name);
    out[file] = createHash('sha1')
      .update(await fs.readFile(file))
      .digest('hex');
  }
  return out;
}

describe('Cline task folders (native tool calls, ui_messages.json usage)', () => {
  it('reads the demo task: title, cwd, times, model, version, tokens each request once, cost', async () => {
    const root = await copy(CLINE_ROOT);
    const before = await digest(root);
    const { byId, warnings, report, body } = await run([root]);
    expect(warnings).toEqual([]);
    expect(report.sources.find((s) => s.id === 'cline')).toMatchObject({ sessions: 1, found: [root] });
    const s = byId.get(DEMO_ID)!;
    expect(s).toMatchObject({
      source: 'cline',
      title: 'Add a greet function to hello.py and run it',
      cwd: '/home/alice/work/hello',
      startedAt: '2026-01-01T00:00:00.000Z',
      endedAt: '2026-01-01T00:00:12.000Z',
      models: ['claude-sonnet-4-5-20250929'],
      cliVersion: 'Cline 3.51.0 (Visual Studio Code)', // host_name: the copy is outside an editor's folder
    });
    // 4 requests: in 3+4+2+2, out 120+200+60+40, cache writes 9000+300+150+100, reads 0+9000+9300+9450.
    expect(s.stats).toMatchObject({
      prompts: 1,
      entries: 4,
      toolUses: 4,
      toolUsesByName: { read_file: 1, replace_in_file: 1, execute_command: 1, attempt_completion: 1 },
      tokens: { input: 11, output: 420, cacheRead: 27750, cacheCreation: 9550 },
    });
    const messages = await body(DEMO_ID);
    const costs = messages.map((m) => m.metadata?.costUsd).filter((c) => c !== undefined);
    expect(costs).toEqual([0.04, 0.01, 0.005, 0.004]);
    expect(messages[0]).toMatchObject({ role: 'user', metadata: { kind: 'prompt' } });
    expect(messages[1]).toMatchObject({ role: 'system', metadata: { kind: 'injected' } });
    const thinking = messages.find((m) => m.segments.some((g) => g.format === 'thinking'))!;
    expect(thinking.timestamp).toBe('2026-01-01T00:00:02.000Z');
    expect(thinking.segments.map((g) => g.text)).toEqual([
      'The user wants a greet() function. I should read hello.py first.',
      "I'll read the file first.",
    ]);
    const calls = messages.filter((m) => m.source_type === 'tool_call');
    const results = messages.filter((m) => m.source_type === 'tool_result');
    expect(calls.map((c) => c.tool_call!.result_id)).toEqual([...results.map((r) => r.id), undefined]);
    expect(results.map((r) => r.tool_call!.name)).toEqual(calls.slice(0, 3).map((c) => c.tool_call!.name));
    expect(results[0]!.tool_call!.output).toBe("print('hi')\n");
    expect(results[2]!.tool_call!.output).toBe('Command executed.\nOutput:\nHello');
    expect(calls[1]!.tool_call!.arguments_json).toMatchObject({
      path: 'hello.py',
      edits: [{ old_string: "print('hi')", new_string: "def greet():\n    return 'Hello'\n\nprint(greet())" }],
    });
    expect(calls[3]!.tool_call!.status).toBe('unanswered');
    expect(await digest(root)).toEqual(before); // never written
  });

  it('a second collect finds the task unchanged and does not read it', async () => {
    const root = await copy(CLINE_ROOT);
    const first = await run([root]);
    const again = await run([root], first.data);
    expect(again.report.sources.find((s) => s.id === 'cline')).toMatchObject({ sessions: 0, unchanged: 1 });
  });

  it('bad JSON in the API history: one warning naming the file, the task read from ui_messages.json', async () => {
    const root = await copy(CLINE_ROOT);
    const api = path.join(root, 'tasks', DEMO_ID, 'api_conversation_history.json');
    await fs.writeFile(api, '[{"role": "user", "content": "trunc');
    const { byId, warnings, body } = await run([root]);
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`${DEMO_ID}/api_conversation_history\\.json:: not valid JSON`)),
      expect.stringMatching(/ui_messages\.json:: read from the UI messages alone/),
    ]);
    const s = byId.get(DEMO_ID)!;
    expect(s.title).toBe('Add a greet function to hello.py and run it');
    expect(s.stats.tokens).toEqual({ input: 11, output: 420, cacheRead: 27750, cacheCreation: 9550 });
    expect(s.stats.toolUsesByName).toMatchObject({ readFile: 1, editedExistingFile: 1, execute_command: 1 });
    const messages = await body(DEMO_ID);
    const output = messages.find((m) => m.source_type === 'tool_result')!;
    expect(output.tool_call).toMatchObject({ name: 'execute_command', output: 'Hello' });
  });

  it('a bad UI entry costs that entry only, warned with file and place', async () => {
    const root = await copy(CLINE_ROOT);
    const ui = path.join(root, 'tasks', DEMO_ID, 'ui_messages.json');
    const list = JSON.parse(await fs.readFile(ui, 'utf8')) as unknown[];
    list.splice(2, 0, { type: 'say', text: 'no ts' });
    await fs.writeFile(ui, JSON.stringify(list));
    const { byId, warnings } = await run([root]);
    expect(warnings).toEqual([`${ui}:3: not a UI message (an object with "ts" and "type": "say" or "ask"); skipped`]);
    expect(byId.get(DEMO_ID)!.stats.tokens.output).toBe(420);
  });
});

describe('Roo Code tasks (XML tool calls in text, api messages with ts)', () => {
  it('splits XML calls, joins "[tool] Result:" blocks, keeps an unknown role, matches requests by time', async () => {
    const root = await copy(ROO_ROOT);
    const api = path.join(root, 'tasks', ROO_ID, 'api_conversation_history.json');
    const list = JSON.parse(await fs.readFile(api, 'utf8')) as unknown[];
    list.push({ role: 'critic', content: 'looks fine', ts: 1767261611000 });
    await fs.writeFile(api, JSON.stringify(list));
    const { byId, warnings, body } = await run([root]);
    expect(warnings).toEqual([`${api}:6: unknown role "critic"; kept as meta`]);
    const s = byId.get(ROO_ID)!;
    expect(s).toMatchObject({
      title: 'Rename foo to bar in util.js',
      cwd: '/home/bob/proj',
      startedAt: '2026-01-01T10:00:00.000Z',
      endedAt: '2026-01-01T10:00:11.000Z',
      cliVersion: 'Roo Code',
      models: [],
    });
    expect(s.stats).toMatchObject({
      entries: 2,
      toolUsesByName: { apply_diff: 1, attempt_completion: 1 },
      tokens: { input: 2200, output: 80, cacheRead: 0, cacheCreation: 0 },
    });
    const messages = await body(ROO_ID);
    const first = messages.find((m) => m.role === 'assistant')!;
    expect(first.segments).toEqual([expect.objectContaining({ format: 'thinking', text: 'I need to edit util.js.' })]);
    expect(first.metadata).toMatchObject({ usage: { input: 1000, output: 50 }, costUsd: 0.00375 });
    const diff = messages.find((m) => m.tool_call?.name === 'apply_diff')!;
    expect(diff.tool_call!.arguments_json).toMatchObject({
      path: 'util.js',
      edits: [{ old_string: 'function foo() {}', new_string: 'function bar() {}' }],
    });
    const result = messages.find((m) => m.id === diff.tool_call!.result_id)!;
    expect(result.tool_call).toMatchObject({
      name: 'apply_diff',
      status: 'completed',
      output: 'Changes successfully applied to util.js',
    });
    const completion = messages.find(
      (m) => m.tool_call?.name === 'attempt_completion' && m.source_type === 'tool_call',
    )!;
    expect(completion.tool_call).toMatchObject({
      arguments_json: { result: 'Renamed foo to bar.' },
      status: 'completed',
    });
    const unknown = messages.find((m) => m.metadata?.kind === 'unknown')!;
    expect(unknown.raw.record).toEqual({ role: 'critic', content: 'looks fine', ts: 1767261611000 });
  });
});

describe('paths and parsing', () => {
  const ctx = (home: string, options: SourceContext['options'] = { explicitHome: 'true' }): SourceContext => ({
    home,
    env: { CLINE_DIR: '/elsewhere/.cline', APPDATA: '/mnt/c/Users/a/AppData/Roaming' },
    options,
    warn: () => undefined,
    archived: new Set(),
  });

  it('looks in each editor per OS, remote servers and ~/.cline/data; --home ignores the environment', () => {
    const roots = candidateRoots(ctx('/h'));
    expect(roots).toContain('/h/.config/Code/User/globalStorage/saoudrizwan.claude-dev');
    expect(roots).toContain('/h/Library/Application Support/Cursor/User/globalStorage/rooveterinaryinc.roo-cline');
    expect(roots).toContain('/h/AppData/Roaming/Windsurf/User/globalStorage/kilocode.kilo-code');
    expect(roots).toContain('/h/.vscode-server/data/User/globalStorage/saoudrizwan.claude-dev');
    expect(roots).toContain('/h/.cline/data');
    expect(roots.some((r) => r.startsWith('/elsewhere') || r.startsWith('/mnt/c'))).toBe(false);
    const withEnv = candidateRoots(ctx('/h', {}));
    expect(withEnv).toContain('/elsewhere/.cline/data');
    expect(withEnv).toContain('/mnt/c/Users/a/AppData/Roaming/Code/User/globalStorage/saoudrizwan.claude-dev');
  });

  it('names the extension and editor of a folder', () => {
    expect(originOf('/h/.config/Cursor/User/globalStorage/kilocode.kilo-code')).toEqual({
      product: 'Kilo Code',
      editor: 'Cursor',
    });
    expect(originOf('/h/.vscode-server/data/User/globalStorage/saoudrizwan.claude-dev')).toEqual({
      product: 'Cline',
      editor: 'vscode-server',
    });
    expect(originOf('/h/.cline/data')).toEqual({ product: 'Cline', editor: 'CLI' });
  });

  it('reads both SEARCH/REPLACE dialects and a call cut off at the end of the text', () => {
    expect(
      searchReplaceEdits(
        '<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n------- SEARCH\nc\n=======\nd\n+++++++ REPLACE',
      ),
    ).toEqual([
      { old_string: 'a', new_string: 'b' },
      { old_string: 'c', new_string: 'd' },
    ]);
    expect(splitAssistantText('Running it.\n<execute_command>\n<command>ls -la</command>\n')).toEqual([
      { kind: 'text', text: 'Running it.' },
      expect.objectContaining({ kind: 'call', name: 'execute_command', input: { command: 'ls -la' } }),
    ]);
  });
});
