import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProgressWriter } from '../../src/cli/progress.ts';
import { runCli } from '../helpers/cli.ts';
import { FIXTURE_HOME, SESSION, tempDir, WEBAPP } from '../helpers/paths.ts';
import { appendPrompt } from '../helpers/transcripts.ts';

/** A writer over a clock the test moves, and what it wrote. */
function writer(tty: boolean, quiet = false) {
  let now = 1_000_000;
  const out: string[] = [];
  const progress = new ProgressWriter((t) => out.push(t), { tty, quiet, now: () => now });
  return { progress, out, at: (ms: number) => (now = 1_000_000 + ms) };
}

const MB = 1_000_000;

describe('progress on a terminal', () => {
  afterEach(() => vi.useRealTimers());

  it('draws one line in place: files done of total, MB, elapsed and time left from the bytes', () => {
    const { progress, out, at } = writer(true);
    progress.update('Reading Claude Code', { done: 0, total: 4, unit: 'file', bytes: { done: 0, total: 80 * MB } });
    at(2000);
    progress.update('Reading Claude Code', {
      done: 1,
      total: 4,
      unit: 'file',
      bytes: { done: 20 * MB, total: 80 * MB },
    });
    at(4000);
    progress.update('Reading Claude Code', {
      done: 4,
      total: 4,
      unit: 'file',
      bytes: { done: 80 * MB, total: 80 * MB },
    });
    progress.clear();
    expect(out).toEqual([
      'Reading Claude Code: 0/4 files, 0.0/80.0 MB (0.0s)',
      '\r\u001b[2K',
      'Reading Claude Code: 1/4 files, 20.0/80.0 MB (2.0s, about 6s left)',
      '\r\u001b[2K',
      'Reading Claude Code: 4/4 files, 80.0/80.0 MB (4.0s)',
      '\r\u001b[2K',
    ]);
  });

  it('redraws at most ten times a second, but always the end of a phase; a new phase starts its own clock', () => {
    const { progress, out, at } = writer(true);
    for (let done = 0; done < 10; done++) {
      at(done * 30);
      progress.update('Pages', { done, total: 10 });
    }
    at(300);
    progress.update('Pages', { done: 10, total: 10 });
    at(500);
    progress.update('Reading Codex CLI', { done: 0, total: 2, unit: 'file', bytes: { done: 0, total: 5000 } });
    progress.clear();
    const lines = out.filter((t) => t !== '\r\u001b[2K');
    expect(lines).toEqual([
      'Pages: 0/10 (0.0s)',
      'Pages: 4/10 (0.1s, about 1s left)',
      'Pages: 8/10 (0.2s, about 1s left)',
      'Pages: 10/10 (0.3s)',
      'Reading Codex CLI: 0/2 files, 0/5 KB (0.0s)',
    ]);
  });

  it('moves its clock every second while nothing reports, and stops at clear', () => {
    vi.useFakeTimers();
    const { progress, out, at } = writer(true);
    progress.update('Reading Claude Code', { done: 0, total: 3, unit: 'file', bytes: { done: 0, total: 3 * MB } });
    at(1000);
    vi.advanceTimersByTime(1000);
    at(2000);
    vi.advanceTimersByTime(1000);
    progress.clear();
    vi.advanceTimersByTime(5000);
    expect(out.filter((t) => t !== '\r\u001b[2K')).toEqual([
      'Reading Claude Code: 0/3 files, 0.0/3.0 MB (0.0s)',
      'Reading Claude Code: 0/3 files, 0.0/3.0 MB (1.0s)',
      'Reading Claude Code: 0/3 files, 0.0/3.0 MB (2.0s)',
    ]);
    expect(out.at(-1)).toBe('\r\u001b[2K');
  });
});

describe('progress elsewhere (CI, pipes)', () => {
  it('writes one line per phase when it ends, once, and leaves out a quick step marked as such', () => {
    const { progress, out, at } = writer(false);
    progress.update('Compiling the page templates', { done: 0, total: 1 }, 1);
    at(300);
    progress.update('Compiling the page templates', { done: 1, total: 1 }, 1);
    progress.update('Reading Claude Code', { done: 0, total: 2, unit: 'file', bytes: { done: 0, total: 3 * MB } });
    at(1300);
    progress.update('Reading Claude Code', {
      done: 2,
      total: 2,
      unit: 'file',
      bytes: { done: 3 * MB, total: 3 * MB },
    });
    progress.update('Reading Claude Code', {
      done: 2,
      total: 2,
      unit: 'file',
      bytes: { done: 3 * MB, total: 3 * MB },
    });
    at(2300);
    progress.update('Pages', { done: 7, total: 7 });
    progress.clear();
    expect(out).toEqual(['Reading Claude Code: 2 of 2 files, 3.0 MB (1.0s)\n', 'Pages: 7 of 7 (0.0s)\n']);
  });

  it('writes nothing when quiet', () => {
    for (const tty of [true, false]) {
      const { progress, out } = writer(tty, true);
      progress.update('Pages', { done: 0, total: 2 });
      progress.update('Pages', { done: 2, total: 2 });
      progress.clear();
      expect(out).toEqual([]);
    }
  });
});

/** A home of fixture sessions without a broken line (the fixture home's others carry warnings on purpose). */
async function cleanHome(): Promise<string> {
  const home = await tempDir('clean-home');
  const webapp = path.join(home, '.claude', 'projects', path.basename(WEBAPP));
  await fs.mkdir(webapp, { recursive: true });
  for (const name of [`${SESSION.A}.jsonl`, SESSION.A, `${SESSION.D}.jsonl`, `${SESSION.E}.jsonl`]) {
    await fs.cp(path.join(WEBAPP, name), path.join(webapp, name), { recursive: true });
  }
  const day = path.join('.codex', 'sessions', '2026', '03', '05');
  const rollout = 'rollout-2026-03-05T08-30-00-019cb1a0-0002-7000-8000-000000000002.jsonl';
  await fs.mkdir(path.join(home, day), { recursive: true });
  await fs.copyFile(path.join(FIXTURE_HOME, day, rollout), path.join(home, day, rollout));
  return home;
}

describe('collect on stderr', () => {
  it('off a terminal: one line per source it read, what it found, and a summary of what changed', async () => {
    const home = await cleanHome();
    const data = path.join(await tempDir('progress'), 'data');
    const first = await runCli(['collect', '--home', home, '--data', data]);
    expect(first.code, first.stderr).toBe(0);
    const lines = first.stderr.trimEnd().split('\n');
    expect(lines.filter((l) => l.startsWith('Reading '))).toEqual([
      expect.stringMatching(/^Reading Claude Code: 4 of 4 files, \d+ KB \(\d+\.\ds\)$/),
      expect.stringMatching(/^Reading Codex CLI: 1 of 1 file, \d+ KB \(\d+\.\ds\)$/),
    ]);
    expect(lines).toContain(`Claude Code: ${path.join(home, '.claude')}: 3 sessions`);
    expect(lines.at(-1)).toMatch(/^Collected in \d+\.\ds: 4 sessions new, 0 updated, 0 unchanged\.$/);

    // One grown transcript: one file read, one session updated.
    await appendPrompt(
      path.join(home, '.claude', 'projects', path.basename(WEBAPP), `${SESSION.E}.jsonl`),
      'One more thing.',
      '2026-03-06T01:00:00.000Z',
    );
    const second = await runCli(['collect', '--home', home, '--data', data]);
    expect(second.code, second.stderr).toBe(0);
    const again = second.stderr.trimEnd().split('\n');
    expect(again.filter((l) => l.startsWith('Reading '))).toEqual([
      expect.stringMatching(/^Reading Claude Code: 1 of 1 file, \d+ KB/),
    ]);
    expect(again.at(-1)).toMatch(/^Collected in \d+\.\ds: 0 sessions new, 1 updated, 3 unchanged\.$/);
  });

  it('--quiet prints nothing for a collect without warnings, and the warnings of one with them', async () => {
    const home = await cleanHome();
    const data = path.join(await tempDir('quiet'), 'data');
    for (const round of ['cold', 'warm']) {
      const run = await runCli(['collect', '--home', home, '--data', data, '--quiet']);
      expect(run.code, round).toBe(0);
      expect(run.stderr, round).toBe('');
      expect(run.stdout, round).toBe('');
    }
    const hits = await runCli(['search', 'sessionTimeout', '--home', home, '--data', data, '--quiet']);
    expect(hits.stderr).toBe('');
    expect(hits.stdout).toContain('sessionTimeout');

    const noisy = await runCli(['collect', '--home', FIXTURE_HOME, '--data', path.join(data, '..', 'fixtures'), '-q']);
    expect(noisy.code).toBe(0);
    const lines = noisy.stderr.trimEnd().split('\n');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toMatch(/^Demo home: .*broken on purpose/);
    expect(lines.slice(1).every((l) => l.startsWith('  warning: ') || l.startsWith('Retention: '))).toBe(true);
    expect(lines).toContain(
      '  warning: fixtures/home/.codex/history.jsonl:7: history entry without text or ts; skipped',
    );
  });
});
