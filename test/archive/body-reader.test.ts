import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO, tempDir } from '../helpers/paths.ts';

/** Runs the readers in a child process: a read that blocks on a FIFO would block the test's own thread for good. */
function readInChild(
  root: string,
  relative: string,
): { status: number | null; out: string; timedOut: boolean; stderr: string } {
  const reader = path.join(REPO, 'src', 'archive', 'body-reader.ts');
  const code =
    `const r = await import(${JSON.stringify(reader)});` +
    `const messages = [...r.bodyMessagesButToolResults(${JSON.stringify(root)}, ${JSON.stringify(relative)})];` +
    `const whole = r.readBodyFileSync(${JSON.stringify(root)}, ${JSON.stringify(relative)});` +
    `const pages = r.openSessionPages(${JSON.stringify(root)}, ${JSON.stringify(relative)}, [0], (s) => s);` +
    `console.log(JSON.stringify({ messages: messages.length, whole: whole === undefined ? 'none' : whole.session.messages.length, pages: pages === undefined ? 'none' : pages.page(1).messages.length }));`;
  const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    cwd: REPO,
    timeout: 60_000,
    encoding: 'utf8',
  });
  return { status: run.status, out: run.stdout.trim(), timedOut: run.error !== undefined, stderr: run.stderr };
}

describe('session body readers', () => {
  it('never block on a FIFO put where a body header or its messages file should be', async () => {
    const root = await tempDir('body-fifo');
    const sessions = path.join(root, 'sessions', 'claude-code');
    await fs.mkdir(sessions, { recursive: true });
    execFileSync('mkfifo', [path.join(sessions, 'piped-header.json')]);
    expect(readInChild(root, 'sessions/claude-code/piped-header.json')).toMatchObject({
      status: 0,
      out: JSON.stringify({ messages: 0, whole: 'none', pages: 'none' }),
      timedOut: false,
    });

    const session = { id: 'claude-code/piped', source: 'claude-code', messages: [], subagents: [] };
    await fs.writeFile(
      path.join(sessions, 'piped-lines.json'),
      JSON.stringify({ version: 2, messages: 'piped-lines.messages.jsonl', session, summary: { id: session.id } }),
    );
    execFileSync('mkfifo', [path.join(sessions, 'piped-lines.messages.jsonl')]);
    const lines = readInChild(root, 'sessions/claude-code/piped-lines.json');
    expect(lines).toMatchObject({
      status: 0,
      out: JSON.stringify({ messages: 0, whole: 0, pages: 0 }),
      timedOut: false,
    });
    expect(lines.stderr).toContain('piped-lines.messages.jsonl: a FIFO (named pipe), not a regular file; not read');
  });
});
