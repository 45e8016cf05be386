import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../src/model/session.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';
import { claudeLines, codexLines, spawnCli, writeLines } from './make.ts';

const id = (n: number) => `5eec1a15-0000-4000-8000-${String(n).padStart(12, '0')}`;
const codexId = (n: number) => `019cb1a0-5eec-7000-8000-${String(n).padStart(12, '0')}`;

async function summaries(data: string): Promise<SessionSummary[]> {
  return JSON.parse(await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8')) as SessionSummary[];
}

/** A Unix socket file at `file`: bound at a short path (a socket path is limited to ~107 bytes), hard-linked
 * into place, then closed (closing unlinks only the short name). */
async function socketAt(file: string): Promise<void> {
  const short = path.join(os.tmpdir(), `al-${process.pid}-${Date.now()}.sock`);
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(short, resolve));
  await fs.link(short, file);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await fs.rm(short, { force: true });
}

describe('special files', () => {
  it('FIFOs and sockets never block or stop a collect; links to files and folders are followed, loops end', async () => {
    const home = await tempDir('hostile-special');
    const data = path.join(home, 'data');
    const claude = path.join(home, '.claude');
    const project = path.join(claude, 'projects', '-home-alice-work-hostile');
    await writeLines(path.join(project, `${id(1)}.jsonl`), claudeLines(id(1), [['plain file', 'plain answer']]));
    // A FIFO where history.jsonl and a transcript should be: opening either for reading would block forever.
    execFileSync('mkfifo', [path.join(claude, 'history.jsonl')]);
    execFileSync('mkfifo', [path.join(project, `${id(2)}.jsonl`)]);
    await socketAt(path.join(project, `${id(3)}.jsonl`));
    // A transcript kept elsewhere, linked in; and a whole project folder linked in.
    const elsewhere = path.join(home, 'elsewhere');
    await writeLines(path.join(elsewhere, 'real.jsonl'), claudeLines(id(4), [['linked file', 'linked answer']]));
    await fs.symlink(path.join(elsewhere, 'real.jsonl'), path.join(project, `${id(4)}.jsonl`));
    const otherProject = path.join(home, 'other-project');
    await writeLines(
      path.join(otherProject, `${id(5)}.jsonl`),
      claudeLines(id(5), [['linked folder', 'folder answer']]),
    );
    await fs.symlink(otherProject, path.join(claude, 'projects', '-home-alice-linked'));
    // A second name for the same folder: its sessions are read once.
    await fs.symlink(otherProject, path.join(claude, 'projects', '-home-alice-linked-again'));
    await fs.symlink(path.join(home, 'nowhere.jsonl'), path.join(project, `${id(6)}.jsonl`));
    // A link to an endless device: reading it would never finish.
    await fs.symlink('/dev/zero', path.join(project, `${id(7)}.jsonl`));

    const codex = path.join(home, '.codex');
    const day = path.join(codex, 'sessions', '2026', '03', '11');
    await writeLines(
      path.join(day, `rollout-2026-03-11T09-00-00-${codexId(1)}.jsonl`),
      codexLines(codexId(1), [['codex plain', 'codex answer']]),
    );
    execFileSync('mkfifo', [path.join(day, `rollout-2026-03-11T10-00-00-${codexId(2)}.jsonl`)]);
    execFileSync('mkfifo', [path.join(codex, 'history.jsonl')]);
    // A loop: a folder that links to its own grandparent.
    await fs.symlink(path.join(codex, 'sessions', '2026'), path.join(day, 'loop'));
    const linkedDay = path.join(home, 'codex-elsewhere');
    await writeLines(
      path.join(linkedDay, `rollout-2026-03-12T09-00-00-${codexId(3)}.jsonl`),
      codexLines(codexId(3), [['codex linked', 'codex linked answer']]),
    );
    await fs.symlink(linkedDay, path.join(codex, 'sessions', '2026', '03', '12'));

    const started = Date.now();
    const run = await runCli(['collect', '--home', home, '--data', data, '--verbose']);
    expect(run.code, run.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(60_000);
    const warning = (file: string, text: string) => expect(run.stderr).toContain(`warning: ${file}: ${text}`);
    warning(path.join(claude, 'history.jsonl'), 'a FIFO (named pipe), not a regular file; skipped');
    warning(path.join(project, `${id(2)}.jsonl`), 'a FIFO (named pipe), not a regular file; skipped');
    warning(path.join(project, `${id(3)}.jsonl`), 'a socket, not a regular file; skipped');
    warning(path.join(project, `${id(6)}.jsonl`), 'broken symbolic link (ENOENT); skipped');
    warning(path.join(project, `${id(7)}.jsonl`), 'a device, not a regular file; skipped');
    warning(
      path.join(day, `rollout-2026-03-11T10-00-00-${codexId(2)}.jsonl`),
      'a FIFO (named pipe), not a regular file; skipped',
    );
    warning(path.join(codex, 'history.jsonl'), 'a FIFO (named pipe), not a regular file; skipped');

    const ids = (await summaries(data)).map((s) => s.id).sort();
    expect(ids).toEqual(
      [
        `claude-code/${id(1)}`,
        `claude-code/${id(4)}`,
        `claude-code/${id(5)}`,
        `codex/${codexId(1)}`,
        `codex/${codexId(3)}`,
      ].sort(),
    );
  });

  it('unreadable folders and files are warned about by path; the rest is collected', async () => {
    const home = await tempDir('hostile-unreadable');
    const data = path.join(home, 'data');
    const projects = path.join(home, '.claude', 'projects');
    await writeLines(
      path.join(projects, 'ok', `${id(11)}.jsonl`),
      claudeLines(id(11), [['readable', 'readable answer']]),
    );
    await writeLines(path.join(projects, 'closed', `${id(12)}.jsonl`), claudeLines(id(12), [['closed', 'x']]));
    await writeLines(path.join(projects, 'ok', `${id(13)}.jsonl`), claudeLines(id(13), [['closed file', 'x']]));
    await fs.chmod(path.join(projects, 'closed'), 0o000);
    await fs.chmod(path.join(projects, 'ok', `${id(13)}.jsonl`), 0o000);
    const args = ['collect', '--home', home, '--data', data, '--verbose'];
    let stderr: string;
    let code: number | null;
    if (process.getuid?.() === 0) {
      // Root reads everything: run the CLI as an ordinary user (nobody) for the permissions to count.
      await fs.chmod(home, 0o777);
      for (const dir of [path.join(home, '.claude'), projects, path.join(projects, 'ok')]) await fs.chmod(dir, 0o755);
      await fs.chmod(path.join(projects, 'ok', `${id(11)}.jsonl`), 0o644);
      ({ code, stderr } = await spawnCli(args, { uid: 65534, gid: 65534, env: { HOME: home } }));
    } else {
      ({ code, stderr } = await runCli(args));
    }
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(
      `warning: ${path.join(projects, 'closed')}: directory could not be read (permission denied); skipped`,
    );
    expect(stderr).toContain(
      `warning: ${path.join(projects, 'ok', `${id(13)}.jsonl`)}: permission denied (make it readable to collect it); skipped`,
    );
    expect((await summaries(data)).map((s) => s.id)).toEqual([`claude-code/${id(11)}`]);
  });
});
