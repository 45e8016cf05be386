import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { LOCK_FILE, lockDataDir } from '../../src/archive/lock.ts';
import { runCli } from '../helpers/cli.ts';
import { copyFixtureHome, FIXTURE_HOME, SESSION, tempDir, WEBAPP } from '../helpers/paths.ts';
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

  it('a stale lock is taken over by one waiter only, however many find it at once', async () => {
    for (let round = 0; round < 2; round++) {
      const data = path.join(await tempDir('hostile-takeover'), 'data');
      await fs.mkdir(data);
      const dead = spawnSync(process.execPath, ['-e', '']).pid;
      const lock = path.join(data, LOCK_FILE);
      await fs.writeFile(lock, JSON.stringify({ pid: dead, host: os.hostname(), started: '2026-01-01T00:00:00.000Z' }));
      let holding = 0;
      let most = 0;
      const takers = await Promise.all(
        Array.from({ length: 8 }, async () => {
          const held = await lockDataDir(data, { waitMs: 20_000 });
          most = Math.max(most, ++holding);
          await new Promise((resolve) => setTimeout(resolve, 5));
          holding--;
          await held.release();
          return held.tookOverStale;
        }),
      );
      expect(most).toBe(1);
      expect(takers.filter(Boolean)).toHaveLength(1);
      expect(await fs.readdir(data)).toEqual([]);
    }
  });
});

describe('the site build and the lock', () => {
  it(
    'the build holds the lock while it reads the archive: a collect meanwhile waits, so it cannot fail the build',
    { timeout: 600_000 },
    async () => {
      const dir = await tempDir('hostile-build-lock');
      const data = path.join(dir, 'data');
      const lock = path.join(data, LOCK_FILE);
      const collected = await runCli(['collect', '--home', FIXTURE_HOME, '--data', data]);
      expect(collected.code, collected.stderr).toBe(0);
      // The renderer the run's fixture build compiled, if it had to (the same templates): this test is about
      // the lock.
      const compiled = path.join(inject('site').dataDir, 'cache', 'renderer');
      if (existsSync(compiled)) await fs.cp(compiled, path.join(data, 'cache', 'renderer'), { recursive: true });
      const build = runCli([
        'build',
        '--home',
        FIXTURE_HOME,
        '--data',
        data,
        '--out',
        path.join(dir, 'site'),
        '--tz',
        'UTC',
      ]);
      let finished = false;
      void build.finally(() => (finished = true));
      // The build's collect holds a lock, then the site build takes its own (another `started`).
      const holders = new Set<string>();
      let during: Awaited<ReturnType<typeof runCli>> | undefined;
      while (!finished && !during) {
        const started = /"started":"([^"]+)"/.exec(await fs.readFile(lock, 'utf8').catch(() => ''))?.[1];
        if (started) holders.add(started);
        if (holders.size === 2) {
          during = await runCli(['collect', '--home', FIXTURE_HOME, '--data', data], { AGENT_LOGBOOK_LOCK_WAIT: '0' });
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
      const built = await build;
      expect(built.code, built.stderr).toBe(0);
      expect(during?.code).toBe(1);
      expect(errorLines(during?.stderr ?? '')).toEqual([
        expect.stringMatching(
          new RegExp(
            `^agent-logbook: ${data.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another agent-logbook \\(pid ${process.pid}, `,
          ),
        ),
      ]);
      expect(await fs.stat(lock).catch(() => undefined)).toBeUndefined();
    },
  );
});

describe('a lost or unreadable session index', () => {
  it('a corrupt index stops collect, changing nothing; a deleted one is rebuilt with the archive-only sessions', async () => {
    const home = await copyFixtureHome();
    const data = path.join(await tempDir('hostile-index'), 'data');
    const index = path.join(data, 'index', 'sessions.json');
    const args = ['collect', '--home', home, '--data', data];
    expect((await runCli(args)).code).toBe(0);
    // SESSION.A's transcript is deleted: from now on only the archive has it.
    await fs.rm(path.join(WEBAPP.replace(FIXTURE_HOME, home), `${SESSION.A}.jsonl`));
    await fs.rm(path.join(WEBAPP.replace(FIXTURE_HOME, home), SESSION.A), { recursive: true, force: true });
    expect((await runCli(args)).code).toBe(0);
    const ids = (text: string) => (JSON.parse(text) as { sessionId: string }[]).map((s) => s.sessionId).sort();
    const before = ids(await fs.readFile(index, 'utf8'));
    expect(before).toContain(SESSION.A);

    const corrupt = '[\n{"id":"claude-code/broken",\n';
    await fs.writeFile(index, corrupt);
    const sessionsBefore = await fs.readdir(path.join(data, 'sessions'), { recursive: true });
    const failed = await runCli(args);
    expect(failed.code).toBe(1);
    expect(errorLines(failed.stderr)).toEqual([
      expect.stringMatching(
        new RegExp(
          `^agent-logbook: cannot read the session index ${index.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(not valid JSON: .*\\); ` +
            'nothing was changed\\. Fix its permissions, or move it away and run collect again to rebuild it from the sessions in the archive$',
        ),
      ),
    ]);
    expect(await fs.readFile(index, 'utf8')).toBe(corrupt);
    expect(await fs.readdir(path.join(data, 'sessions'), { recursive: true })).toEqual(sessionsBefore);

    await fs.rm(index);
    const rebuilt = await runCli(args);
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(rebuilt.stderr).toContain(`${before.length} sessions (1 kept from the archive`);
    expect(ids(await fs.readFile(index, 'utf8'))).toEqual(before);
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
