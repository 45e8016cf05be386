import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeRepository } from '../../src/insights/repository.ts';
import { groupProjects, normalizeRemote, projectOf, projectSlug, worktreeConvention } from '../../src/model/project.ts';
import { tempDir } from '../helpers/paths.ts';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, {
    cwd,
    stdio: 'pipe',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@x',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@x',
    },
  });

const summary = (cwd: string) =>
  ({ cwd, project: projectSlug(cwd) }) as { cwd: string; project: string; repository?: never };

describe('projects: worktrees and clones of one repository', () => {
  it('finds the repository of a folder, a subfolder and a linked worktree on disk, with its remote', async () => {
    const root = await tempDir('repo');
    const repo = path.join(root, 'app');
    await fs.mkdir(path.join(repo, 'src'), { recursive: true });
    git(root, 'init', '-q', '-b', 'main', repo);
    git(repo, 'remote', 'add', 'origin', 'git@github.com:Alice/App.git');
    await fs.writeFile(path.join(repo, 'src', 'a.txt'), 'a');
    git(repo, 'add', '.');
    git(repo, 'commit', '-qm', 'a');
    const worktree = path.join(root, 'app-feature');
    git(repo, 'worktree', 'add', '-q', '-b', 'feature', worktree);
    const clone = path.join(root, 'elsewhere', 'app-clone');
    git(root, 'clone', '-q', repo, clone);
    git(clone, 'remote', 'set-url', 'origin', 'https://github.com/alice/app');

    const expected = { root: repo, remote: 'github.com/alice/app' };
    expect(probeRepository(repo, '/nonexistent-home')).toEqual(expected);
    expect(probeRepository(path.join(repo, 'src'), '/nonexistent-home')).toEqual(expected);
    expect(probeRepository(worktree, '/nonexistent-home')).toEqual(expected);
    expect(probeRepository(clone, '/nonexistent-home')).toEqual({ root: clone, remote: 'github.com/alice/app' });
    // Not above the home folder: a home that is a repository does not swallow every project under it.
    expect(probeRepository(path.join(repo, 'src'), repo)).toBeUndefined();
    expect(probeRepository(path.join(root, 'gone'), '/nonexistent-home')).toBeUndefined();

    const summaries = [repo, path.join(repo, 'src'), worktree, clone].map(summary);
    groupProjects(summaries, (cwd) => probeRepository(cwd, '/nonexistent-home'));
    expect(new Set(summaries.map((s) => s.project)).size).toBe(1);
    expect(projectOf(summaries[2]!)).toMatchObject({ name: 'app', cwd: repo });
  });

  it('groups by naming conventions when the folders are not on disk', () => {
    expect(worktreeConvention('/home/a/app/.claude/worktrees/fix-login')).toEqual({ root: '/home/a/app' });
    expect(worktreeConvention('/home/a/app-worktrees/fix-login/src')).toEqual({ root: '/home/a/app' });
    expect(worktreeConvention('/home/a/app/.worktrees/x')).toEqual({ root: '/home/a/app' });
    expect(worktreeConvention('/home/a/.codex/worktrees/1a2b/app')).toEqual({ name: 'app' });
    expect(worktreeConvention('/home/a/app')).toBeUndefined();
    const summaries = [
      '/home/a/app',
      '/home/a/app/.claude/worktrees/fix-login',
      '/home/a/app-worktrees/feature',
      '/home/a/.codex/worktrees/1a2b/app',
      '/home/a/other',
    ].map(summary);
    groupProjects(summaries);
    const slugs = summaries.map((s) => s.project);
    expect(new Set(slugs.slice(0, 4)).size).toBe(1);
    expect(slugs[0]).toBe(projectSlug('/home/a/app'));
    expect(slugs[4]).toBe(projectSlug('/home/a/other'));
  });

  it('normalizes remote URLs', () => {
    for (const url of [
      'git@github.com:Alice/App.git',
      'https://github.com/alice/app',
      'https://user@github.com/alice/app.git/',
      'ssh://git@github.com/alice/app.git',
    ]) {
      expect(normalizeRemote(url)).toBe('github.com/alice/app');
    }
  });
});
