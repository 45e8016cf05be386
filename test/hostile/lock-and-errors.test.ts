import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LOCK_FILE } from '../../src/archive/lock.ts';
import { runCli } from '../helpers/cli.ts';
import { FIXTURE_HOME, tempDir } from '../helpers/paths.ts';
import { spawnCli } from './make.ts';

const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('agent-logbook:'));

describe('the data directory lock', () => {
  it('two collects at once on a new data directory: the second waits, both succeed', async () => {
    const data = path.join(await tempDir('hostile-lock'), 'data');
    const args = ['collect', '--home', FIXTURE_HOME, '--data', data];
    const [a, b] = await Promise.all([runCli(args), runCli(args)]);
    for (const run of [a, b]) {
      expect(run.code, run.stderr).toBe(0);
      expect(run.stderr).not.toContain('is not an agent-logbook data directory');
    }
    expect(`${a.stderr}${b.stderr}`).toMatch(
      new RegExp(
        `^Waiting for another agent-logbook \\(pid ${process.pid}, started [^)]+\\) to finish with ${data.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} …$`,
        'm',
      ),
    );
    expect(await fs.stat(path.join(data, LOCK_FILE)).catch(() => undefined)).toBeUndefined();
  });

  it('a lock left by a process that is gone is taken over; a live one is waited for, then given up on clearly', async () => {
    const data = path.join(await tempDir('hostile-stale'), 'data');
    await fs.mkdir(data);
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    const lock = path.join(data, LOCK_FILE);
    await fs.writeFile(lock, JSON.stringify({ pid: dead, host: os.hostname(), started: '2026-01-01T00:00:00.000Z' }));
    const args = ['collect', '--home', FIXTURE_HOME, '--data', data];
    const stale = await runCli(args);
    expect(stale.code, stale.stderr).toBe(0);
    expect(stale.stderr).not.toContain('Waiting');

    // A live holder (this very process, as another run would be): waited for, then a clear message.
    const started = '2026-01-01T00:00:00.000Z';
    await fs.writeFile(lock, JSON.stringify({ pid: process.pid, host: os.hostname(), started }));
    const busy = await runCli(args, { AGENT_LOGBOOK_LOCK_WAIT: '1' });
    expect(busy.code).toBe(1);
    expect(errorLines(busy.stderr)).toEqual([
      `agent-logbook: ${data} is in use by another agent-logbook (pid ${process.pid}, started ${started}); gave up after 1s. ` +
        `Run again when it has finished (or, if no such process is running, delete ${lock})`,
    ]);
    expect(await fs.readFile(lock, 'utf8')).toContain(started); // not ours: left alone
  });
});

describe('errors in words', () => {
  it('--data naming a file, or a path through a file: one line with the path and what to do; stack only with --verbose', async () => {
    const dir = await tempDir('hostile-errors');
    const file = path.join(dir, 'a-file');
    await fs.writeFile(file, 'not a directory');
    for (const data of [file, path.join(file, 'sub')]) {
      const run = await runCli(['collect', '--home', FIXTURE_HOME, '--data', data]);
      expect(run.code).toBe(1);
      expect(errorLines(run.stderr)).toHaveLength(1);
      expect(errorLines(run.stderr)[0]).toMatch(
        new RegExp(
          `^agent-logbook: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is a file, not a directory \\((EEXIST|ENOTDIR)\\); give --data \\(or --out\\) a directory, or move the file away$`,
        ),
      );
      expect(run.stderr).not.toMatch(/^\s+at /m);
    }
    const verbose = await runCli(['collect', '--home', FIXTURE_HOME, '--data', file, '--verbose']);
    expect(verbose.stderr).toMatch(/^\s+at /m);
    expect(await fs.readFile(file, 'utf8')).toBe('not a directory');
  });

  it('a data directory this user may not write to', async () => {
    const dir = await tempDir('hostile-readonly');
    const data = path.join(dir, 'data');
    await fs.mkdir(data);
    await fs.chmod(data, 0o555);
    const args = ['collect', '--home', FIXTURE_HOME, '--data', data];
    const run =
      process.getuid?.() === 0
        ? // Root may write anywhere: run as an ordinary user (nobody) for the permission to count.
          (await fs.chmod(dir, 0o755), await spawnCli(args, { uid: 65534, gid: 65534, env: { HOME: dir } }))
        : await runCli(args);
    expect(run.code).toBe(1);
    expect(errorLines(run.stderr)).toEqual([
      `agent-logbook: permission denied for ${path.join(data, LOCK_FILE)} (EACCES); give this user access to it, or give --data another directory`,
    ]);
  }, 120_000);
});
