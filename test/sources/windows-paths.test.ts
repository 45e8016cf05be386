import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { claudeCode } from '../../src/sources/claude-code/index.ts';
import { cwdFromProjectDir } from '../../src/sources/claude-code/paths.ts';
import { codex } from '../../src/sources/codex/index.ts';
import { tempDir } from '../helpers/paths.ts';

const CLAUDE_ID = '9a9a9a9a-0000-4000-8000-000000000001';
const CODEX_ID = '019cb1a0-00aa-7000-8000-0000000000aa';
const CWD = 'C:\\Users\\alice\\work\\app';

/** A Windows home as WSL sees it (`/mnt/c/Users/alice`, given as --home): `.claude` and `.codex` under it. */
async function windowsHome(): Promise<string> {
  const home = path.join(await tempDir('win'), 'Users', 'alice');
  const project = path.join(home, '.claude', 'projects', 'C--Users-alice-work-app');
  await fs.mkdir(project, { recursive: true });
  const base = {
    parentUuid: null,
    isSidechain: false,
    userType: 'external',
    cwd: CWD,
    sessionId: CLAUDE_ID,
    version: '2.0.14',
  };
  await fs.writeFile(
    path.join(project, `${CLAUDE_ID}.jsonl`),
    [
      {
        ...base,
        type: 'user',
        uuid: 'u1',
        timestamp: '2026-04-01T09:00:00.000Z',
        message: { role: 'user', content: 'Fix the Windows build script' },
      },
      {
        ...base,
        parentUuid: 'u1',
        type: 'assistant',
        uuid: 'a1',
        timestamp: '2026-04-01T09:00:05.000Z',
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-sonnet-4-5-20250929',
          content: [{ type: 'text', text: 'Done.' }],
          usage: { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 },
        },
      },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
  const day = path.join(home, '.codex', 'sessions', '2026', '04', '01');
  await fs.mkdir(day, { recursive: true });
  await fs.writeFile(
    path.join(day, `rollout-2026-04-01T10-00-00-${CODEX_ID}.jsonl`),
    [
      {
        timestamp: '2026-04-01T10:00:00.100Z',
        type: 'session_meta',
        payload: {
          id: CODEX_ID,
          timestamp: '2026-04-01T10:00:00.000Z',
          cwd: CWD,
          originator: 'codex_cli_rs',
          cli_version: '0.98.0',
          source: 'cli',
        },
      },
      {
        timestamp: '2026-04-01T10:00:01.000Z',
        type: 'response_item',
        payload: {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'Why does npm.cmd fail in PowerShell?' }],
        },
      },
      {
        timestamp: '2026-04-01T10:00:04.000Z',
        type: 'response_item',
        payload: {
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'The execution policy blocks it.' }],
        },
      },
    ]
      .map((r) => JSON.stringify(r))
      .join('\n') + '\n',
  );
  return home;
}

describe('Windows homes (a --home like /mnt/c/Users/alice, or %USERPROFILE%)', () => {
  it('finds Claude Code and Codex sessions under <home>\\.claude and <home>\\.codex with Windows cwds', async () => {
    const home = await windowsHome();
    const dataDir = path.join(await tempDir('win-data'), 'd');
    const warnings: string[] = [];
    await collect({
      home,
      env: { CLAUDE_CONFIG_DIR: '/elsewhere', CODEX_HOME: '/elsewhere' },
      dataDir,
      sourceOptions: { explicitHome: 'true' },
      sources: [claudeCode, codex],
      onWarning: (w) => warnings.push(`${w.file}: ${w.message}`),
    });
    expect(warnings).toEqual([]);
    const summaries = JSON.parse(
      await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8'),
    ) as SessionSummary[];
    const byId = new Map(summaries.map((s) => [s.sessionId, s]));
    expect(byId.get(CLAUDE_ID)).toMatchObject({
      source: 'claude-code',
      cwd: CWD,
      title: 'Fix the Windows build script',
    });
    expect(byId.get(CODEX_ID)).toMatchObject({
      source: 'codex',
      cwd: CWD,
      title: 'Why does npm.cmd fail in PowerShell?',
    });
    expect(byId.get(CLAUDE_ID)!.project).toBe(byId.get(CODEX_ID)!.project);
  });

  it('turns a project folder name back into a cwd when records lack one (a guess: "-" stands for any separator)', () => {
    expect(cwdFromProjectDir('/x/.claude/projects/C--Users-alice-work-app')).toBe(CWD);
    expect(cwdFromProjectDir('d--src')).toBe('D:\\src');
    expect(cwdFromProjectDir('-home-alice-work-webapp')).toBe('/home/alice/work/webapp');
    expect(cwdFromProjectDir('notes')).toBeUndefined();
  });
});
