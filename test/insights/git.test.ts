import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitsByDay, commitsDuring, commitsOnDays, gitOutcomes, repoRoot } from '../../src/insights/git.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { buildSite } from '../../src/cli/build-site.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';

function git(repo: string, args: string[], when?: string, email = 'alice@example.com'): void {
  execFileSync('git', ['-C', repo, ...args], {
    env: {
      ...process.env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_AUTHOR_NAME: email.split('@')[0],
      GIT_AUTHOR_EMAIL: email,
      GIT_COMMITTER_NAME: email.split('@')[0],
      GIT_COMMITTER_EMAIL: email,
      ...(when ? { GIT_AUTHOR_DATE: when, GIT_COMMITTER_DATE: when } : {}),
    },
    stdio: 'ignore',
  });
}

async function commit(repo: string, file: string, when: string, email?: string): Promise<void> {
  await fs.writeFile(path.join(repo, file), `${file} ${when}\n`);
  git(repo, ['add', file], when, email);
  git(repo, ['commit', '-q', '-m', `change ${file}`], when, email);
}

/** Every file under .git with its content hash and mtime: proof that reading wrote nothing. */
async function snapshot(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const rel of await fs.readdir(dir, { recursive: true })) {
    const full = path.join(dir, rel);
    const stat = await fs.stat(full);
    if (!stat.isFile()) continue;
    out.push(
      `${rel}:${stat.mtimeMs}:${createHash('sha1')
        .update(await fs.readFile(full))
        .digest('hex')}`,
    );
  }
  return out.sort();
}

async function makeRepo(): Promise<string> {
  const repo = path.join(await tempDir('git'), 'webapp');
  await fs.mkdir(repo);
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['config', 'user.email', 'alice@example.com']);
  await commit(repo, 'old.txt', '2026-02-01T09:00:00Z'); // before every session
  await commit(repo, 'a.txt', '2026-03-02T10:10:00Z'); // during the session
  await commit(repo, 'bob.txt', '2026-03-02T10:15:00Z', 'bob@example.com'); // someone else's
  git(repo, ['checkout', '-q', '-b', 'feature']);
  await commit(repo, 'b.txt', '2026-03-02T10:20:00Z'); // during, on another branch
  git(repo, ['checkout', '-q', 'main']);
  await commit(repo, 'c.txt', '2026-03-02T15:00:00Z'); // same day, after the session
  await fs.writeFile(path.join(repo, 'dirty.txt'), 'not committed\n'); // an index refresh would write
  return repo;
}

const summary = (cwd: string, startedAt: string, endedAt: string) =>
  ({
    id: `claude-code/${startedAt}`,
    source: 'claude-code',
    cwd,
    startedAt,
    endedAt,
    stats: { activity: {} },
  }) as unknown as SessionSummary;

describe('git outcomes', () => {
  it("reads the user's commits on every branch, read-only", async () => {
    const repo = await makeRepo();
    const before = await snapshot(path.join(repo, '.git'));
    const session = summary(path.join(repo), '2026-03-02T10:00:00.000Z', '2026-03-02T10:30:00.000Z');
    const outcomes = gitOutcomes([session]);
    expect(repoRoot(repo)).toBe(await fs.realpath(repo));
    expect(commitsDuring(outcomes, session).map((c) => c.subject)).toEqual(['change a.txt', 'change b.txt']);
    const day = commitsOnDays(outcomes, [session], new Set(['2026-03-02']), 'UTC');
    expect(day.map((c) => c.subject)).toEqual(['change a.txt', 'change b.txt', 'change c.txt']);
    // 15:00 UTC is the next day in Tokyo.
    expect([...commitsByDay(day, 'Asia/Tokyo')]).toEqual([
      ['2026-03-02', 2],
      ['2026-03-03', 1],
    ]);
    expect(await snapshot(path.join(repo, '.git'))).toEqual(before);
  });

  it('gives nothing, and no error, for a missing directory, a plain directory or no git at all', async () => {
    const plain = await tempDir('plain');
    const gone = path.join(plain, 'gone');
    const sessions = [summary(gone, '2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z')];
    sessions.push(summary(plain, '2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z'));
    expect(gitOutcomes(sessions).repoOf.size).toBe(0);
    const repo = await makeRepo();
    const path0 = process.env.PATH;
    process.env.PATH = plain;
    try {
      expect(gitOutcomes([summary(repo, '2026-03-02T10:00:00Z', '2026-03-02T11:00:00Z')]).repoOf.size).toBe(0);
    } finally {
      process.env.PATH = path0;
    }
  });

  it('a day report counts the commits next to the sessions', async () => {
    const repo = await makeRepo();
    const home = await sessionHome(repo);
    const data = path.join(await tempDir('git-data'), 'd');
    const run = await runCli(['report', '--day', '2026-03-02', '--home', home, '--data', data, '--tz', 'UTC']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^- Commits: 3 \(webapp 3\)$/m);
  });

  it('a commit made after a build reaches the session, day and week pages with the next build, though nothing else changed', async () => {
    const repo = await makeRepo();
    const home = await sessionHome(repo);
    const root = await tempDir('git-site');
    const out = path.join(root, 'dist');
    const args = ['build', '--home', home, '--data', path.join(root, 'data'), '--out', out, '--tz', 'UTC'];
    const files = [
      'sessions/claude-code/12121212-1212-4121-8121-121212121212/index.html',
      'days/2026-03-02/index.html',
      'days/2026-03-02.md',
      'weeks/2026-W10.md',
    ];
    const read = () => Promise.all(files.map((f) => fs.readFile(path.join(out, f), 'utf8')));
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    const [session, page, day, week] = await read();
    expect(session).toContain('change a.txt');
    expect(session).not.toContain('change during.txt');
    expect(page).not.toContain('change late.txt');
    expect(day).toMatch(/^- Commits: 3 \(webapp 3\)$/m);
    expect(week).toMatch(/^- Commits: 3 \(webapp 3\)$/m);

    // Committed after the build (authored while the session ran, and later that day); no session changes.
    await commit(repo, 'during.txt', '2026-03-02T10:25:00Z');
    await commit(repo, 'late.txt', '2026-03-02T18:00:00Z');
    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    const [session2, page2, day2, week2] = await read();
    expect(session2).toContain('change during.txt');
    expect(session2).not.toContain('change late.txt');
    expect(page2).toContain('change late.txt');
    expect(day2).toMatch(/^- Commits: 5 \(webapp 5\)$/m);
    expect(week2).toMatch(/^- Commits: 5 \(webapp 5\)$/m);

    // And with nothing new, nothing is written.
    const third = await runCli(args);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain('0 files written');
  });

  it('a commit made between two builds of one process (serve --watch) reaches the day and week Markdown', async () => {
    const repo = await makeRepo();
    const home = await sessionHome(repo);
    const root = await tempDir('git-site-process');
    const dataDir = path.join(root, 'data');
    const outDir = path.join(root, 'dist');
    const collected = await runCli(['collect', '--home', home, '--data', dataDir]);
    expect(collected.code, collected.stderr).toBe(0);
    // Built twice in this process, the renderer's module state kept between the builds, as `serve --watch` keeps it.
    const build = () => buildSite({ dataDir, outDir, timeZone: 'UTC', onWarning: () => {} });
    const read = (file: string) => fs.readFile(path.join(outDir, file), 'utf8');
    await build();
    expect(await read('days/2026-03-02.md')).toMatch(/^- Commits: 3 \(webapp 3\)$/m);
    await commit(repo, 'late.txt', '2026-03-02T18:00:00Z');
    await build();
    expect(await read('days/2026-03-02.md')).toMatch(/^- Commits: 4 \(webapp 4\)$/m);
    expect(await read('days/2026-03-02/index.html')).toContain('change late.txt');
    expect(await read('weeks/2026-W10.md')).toMatch(/^- Commits: 4 \(webapp 4\)$/m);
  });

  it("starts none of the programs the repository's config names (log.showSignature runs gpg.program)", async () => {
    const repo = await makeRepo();
    const marker = path.join(await tempDir('git-marker'), 'ran');
    const program = path.join(path.dirname(marker), 'fake-gpg.sh');
    await fs.writeFile(program, `#!/bin/sh\necho "$0 $*" >> '${marker}'\nexit 1\n`, { mode: 0o755 });
    git(repo, ['config', 'log.showSignature', 'true']);
    git(repo, ['config', 'gpg.program', program]);
    git(repo, ['config', 'core.pager', `${program} pager`]);
    git(repo, ['config', 'color.ui', 'always']);
    // A signed commit during the session, made by hand: a commit object with a `gpgsig` header.
    const head = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
    const tree = execFileSync('git', ['-C', repo, 'rev-parse', 'HEAD^{tree}'], { encoding: 'utf8' }).trim();
    const when = `${Date.parse('2026-03-02T10:25:00Z') / 1000} +0000`;
    const object = [
      `tree ${tree}`,
      `parent ${head}`,
      `author alice <alice@example.com> ${when}`,
      `committer alice <alice@example.com> ${when}`,
      'gpgsig -----BEGIN PGP SIGNATURE-----',
      ' ',
      ' iQEzBAABCAAdFiEEnotarealsignature',
      ' -----END PGP SIGNATURE-----',
      '',
      'signed change',
      '',
    ].join('\n');
    const signed = execFileSync('git', ['-C', repo, 'hash-object', '-t', 'commit', '-w', '--stdin'], {
      input: object,
      encoding: 'utf8',
    }).trim();
    git(repo, ['update-ref', 'refs/heads/main', signed]);

    const home = await sessionHome(repo);
    const root = await tempDir('git-signed');
    const data = path.join(root, 'data');
    const report = await runCli(['report', '--day', '2026-03-02', '--home', home, '--data', data, '--tz', 'UTC']);
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toMatch(/^- Commits: 4 \(webapp 4\)$/m);
    const out = path.join(root, 'dist');
    const build = await runCli(['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC']);
    expect(build.code, build.stderr).toBe(0);
    const page = await fs.readFile(path.join(out, 'days', '2026-03-02', 'index.html'), 'utf8');
    expect(page).toContain('signed change');
    expect(page).not.toContain('\x1b[');
    await expect(fs.readFile(marker, 'utf8')).rejects.toThrow(/ENOENT/);
  });
});

/** A home with one Claude Code session in `repo` on 2026-03-02, 10:00–10:30 UTC. */
async function sessionHome(repo: string): Promise<string> {
  const home = await tempDir('git-home');
  const dir = path.join(home, '.claude', 'projects', 'webapp');
  await fs.mkdir(dir, { recursive: true });
  const id = '12121212-1212-4121-8121-121212121212';
  const record = (type: string, at: string, message: unknown, n: number) =>
    JSON.stringify({ type, uuid: `u${n}`, timestamp: at, cwd: repo, sessionId: id, message });
  await fs.writeFile(
    path.join(dir, `${id}.jsonl`),
    [
      record('user', '2026-03-02T10:00:00.000Z', { role: 'user', content: 'fix it' }, 1),
      record(
        'assistant',
        '2026-03-02T10:30:00.000Z',
        { id: 'm1', role: 'assistant', model: 'claude-opus-4-6', content: [{ type: 'text', text: 'done' }] },
        2,
      ),
    ].join('\n') + '\n',
  );
  return home;
}
