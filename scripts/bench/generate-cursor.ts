/**
 * Cursor chats for the benchmark (docs/formats/cursor.md), of three kinds as a real user has them: an agent
 * conversation written both as a transcript (`~/.cursor/projects/<slug>/agent-transcripts/<uuid>/<uuid>.jsonl`:
 * `<user_query>` prompts and `tool_use` blocks, no times, no results) and as its composer in the editor's
 * `~/.config/Cursor/User/globalStorage/state.vscdb` (`composerData:<id>` and one `bubbleId:<id>:<bubble>` row
 * per turn, with thinking, tool results and token counts); a transcript alone (the CLI agent), every other one
 * with the CLI's chat store beside it (`~/.cursor/chats/<md5>/<id>/store.db`: generate-cursor-cli.ts); and an
 * editor chat alone, its folder named by `workspaceStorage/<id>/workspace.json`. `ItemTable` holds settings only.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { fileSizes, prng, uuidFrom, wordsFrom } from './generate-claude.ts';
import { writeCliStore } from './generate-cursor-cli.ts';
import { iso, outputLines, type SessionProfile, sessionStart, writeText } from './profile.ts';

export const CURSOR_PROFILE: SessionProfile = {
  sessions: 90,
  medianBytes: 40_000,
  maxBytes: 1_500_000,
  totalBytes: 6_000_000,
  projects: 5,
  seed: 27,
};

/** Where the editor keeps its global database on Linux. */
export function cursorDatabase(home: string): string {
  return path.join(home, '.config', 'Cursor', 'User', 'globalStorage', 'state.vscdb');
}

const WORDS =
  'the dashboard chart flickers on resize because the effect subscribes twice so we memoize the handler and debounce the layout pass before rendering'.split(
    ' ',
  );

type Row = [key: string, value: string];

/** Interleaved so that even the two chats of a small corpus are of two kinds. */
const KINDS = ['both', 'transcript', 'editor', 'both', 'transcript', 'both', 'both', 'editor', 'transcript', 'both'];

export async function generateCursor(home: string, profile: SessionProfile): Promise<number> {
  const random = prng(profile.seed);
  const words = (n: number) => wordsFrom(WORDS, random, n);
  const sizes = fileSizes({ ...profile, files: profile.sessions, minBytes: 3_000 }, random);
  const projects = Array.from({ length: profile.projects }, (_, i) => `/home/bench/work/dash-board-${i}`);
  const rows: Row[] = [];
  const workspaces = new Set<number>();
  let bytes = 0;
  let cliChats = 0;
  for (const [i, target] of sizes.entries()) {
    const p = i % projects.length;
    const cwd = projects[p]!;
    const id = uuidFrom(random);
    // Half are agent chats kept in both places, 3 in 10 a CLI transcript only, the rest editor chats only.
    const kind = KINDS[i % KINDS.length]!;
    const started = sessionStart(i, sizes.length, random);
    let t = started;
    const transcript: string[] = [];
    const bubbles: Array<Record<string, unknown>> = [];
    let size = 0;
    const line = (role: string, content: unknown[]) => {
      const text = JSON.stringify({ role, message: { content } });
      transcript.push(text);
      if (kind !== 'editor') size += text.length + 1;
    };
    const bubble = (fields: Record<string, unknown>) => {
      const value = { _v: 3, bubbleId: uuidFrom(random), createdAt: iso(t), ...fields };
      bubbles.push(value);
      if (kind !== 'transcript') size += JSON.stringify(value).length;
    };
    const model = random() < 0.6 ? 'claude-4.5-sonnet' : 'gpt-5';
    let title = '';
    for (let turn = 0; turn === 0 || size < target - 1_500; turn++) {
      t += 60_000 + Math.floor(random() * 900_000);
      const prompt = `${words(6 + Math.floor(random() * 25))}?`;
      title ||= prompt.slice(0, 50);
      line('user', [{ type: 'text', text: `<user_query>\n${prompt}\n</user_query>` }]);
      bubble({ type: 1, text: prompt });
      const rounds = 1 + Math.floor(random() * 5);
      for (let r = 0; r < rounds && size < target - 1_500; r++) {
        t += 2_000 + Math.floor(random() * 15_000);
        const call = toolCall(cwd, Math.max(3, Math.min(100, Math.floor((target - size) / 200))), words, random);
        const note = words(10 + Math.floor(random() * 20));
        line('assistant', [
          { type: 'text', text: note },
          { type: 'tool_use', name: call.agentName, input: call.agentInput },
        ]);
        bubble({
          type: 2,
          text: note,
          thinking: { text: words(15 + Math.floor(random() * 30)) },
          toolFormerData: {
            tool: call.tool,
            name: call.editorName,
            toolCallId: `toolu_${uuidFrom(random).replace(/-/g, '').slice(0, 24)}`,
            rawArgs: JSON.stringify(call.editorArgs),
            result: JSON.stringify(call.result),
            status: 'completed',
          },
          tokenCount: { inputTokens: 0, outputTokens: 0 },
        });
      }
      t += 3_000 + Math.floor(random() * 10_000);
      const answer = `${words(30 + Math.floor(random() * 60))}\n\n- ${words(10)}\n- ${words(10)}`;
      line('assistant', [{ type: 'text', text: answer }]);
      const input = 10_000 + Math.floor(random() * 60_000);
      const output = 100 + Math.floor(random() * 900);
      bubble({
        type: 2,
        text: answer,
        modelInfo: { modelName: model },
        tokenCount: { inputTokens: input, outputTokens: output },
      });
    }
    if (kind !== 'editor') {
      const dir = path.join(
        home,
        '.cursor',
        'projects',
        cwd.slice(1).replace(/[^A-Za-z0-9]+/g, '-'),
        'agent-transcripts',
        id,
      );
      const file = path.join(dir, `${id}.jsonl`);
      bytes += await writeText(file, `${transcript.join('\n')}\n`);
      // The transcript holds no times: the reader dates it from the file's, so give it the session's end.
      await fs.utimes(file, new Date(t), new Date(t));
      if (kind === 'transcript' && cliChats++ % 2 === 0)
        bytes += await writeCliStore({ home, cwd, id, title, started, ended: t, model, lines: transcript, bubbles });
    }
    if (kind === 'transcript') continue;
    const composer = {
      _v: 10,
      composerId: id,
      name: title,
      createdAt: started,
      lastUpdatedAt: t,
      modelConfig: { modelName: model, maxMode: false },
      fullConversationHeadersOnly: bubbles.map((b) => ({ bubbleId: b.bubbleId, type: b.type })),
      ...(kind === 'editor' ? { workspaceIdentifier: { id: `ws-${p}` } } : {}),
    };
    if (kind === 'editor') workspaces.add(p);
    rows.push([`composerData:${id}`, JSON.stringify(composer)]);
    for (const b of bubbles) rows.push([`bubbleId:${id}:${String(b.bubbleId)}`, JSON.stringify(b)]);
  }
  const file = cursorDatabase(home);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.rm(file, { force: true });
  writeDatabase(file, rows);
  for (const p of workspaces) {
    const folder = path.join(path.dirname(path.dirname(file)), 'workspaceStorage', `ws-${p}`, 'workspace.json');
    await writeText(folder, JSON.stringify({ folder: `file://${projects[p]}` }));
  }
  return bytes + (await fs.stat(file)).size;
}

/** The editor's two key/value tables; `ItemTable` holds settings (and, in a real one, login tokens). */
function writeDatabase(file: string, rows: Row[]): void {
  const db = new Database(file);
  try {
    db.exec('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
    db.exec('CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
    db.prepare('INSERT INTO ItemTable (key, value) VALUES (?, ?)').run('workbench.colorTheme', 'Default Dark Modern');
    const kv = db.prepare('INSERT INTO cursorDiskKV (key, value) VALUES (?, ?)');
    db.transaction(() => {
      for (const [key, value] of rows) kv.run(key, value);
    })();
  } finally {
    db.close();
  }
}

/** One tool call, as the agent transcript names it and as the editor's bubble stores it (with its result). */
function toolCall(cwd: string, lines: number, words: (n: number) => string, random: () => number) {
  const file = `${cwd}/src/charts/${words(1)}.tsx`;
  const kind = random();
  if (kind < 0.45) {
    const contents = outputLines(file, lines, words);
    return {
      agentName: 'Read',
      agentInput: { path: file },
      tool: 5,
      editorName: 'read_file',
      editorArgs: { target_file: file },
      result: { contents },
    };
  }
  if (kind < 0.8) {
    const output = outputLines('test/chart.test.tsx', lines, words);
    return {
      agentName: 'Shell',
      agentInput: { command: 'npm test', working_directory: cwd },
      tool: 15,
      editorName: 'run_terminal_cmd',
      editorArgs: { command: 'npm test', is_background: false },
      result: { output, exitCode: random() < 0.2 ? 1 : 0 },
    };
  }
  const edit = { old_string: words(8), new_string: outputLines(file, Math.min(lines, 12), words) };
  return {
    agentName: 'StrReplace',
    agentInput: { path: file, ...edit },
    tool: 38,
    editorName: 'search_replace',
    editorArgs: { file_path: file, ...edit },
    result: { diff: { chunks: [{ diffString: `-${edit.old_string}\n+${edit.new_string}` }] } },
  };
}
