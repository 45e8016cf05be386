import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDir, readBodyFile } from '../../src/archive/data-dir.ts';
import { listProjectDir, type SessionFiles } from '../../src/sources/claude-code/paths.ts';
import { type CollectTarget, collectSession } from '../../src/sources/claude-code/session-reader.ts';
import type { CollectWarning } from '../../src/util/warnings.ts';
import { API, HAS_SAMPLES, NOTES, noteSamples, SAMPLES, SESSION, tempDir, WEBAPP } from '../helpers/paths.ts';

/** Every Claude session of the fixtures and the real samples, with its files' contents. */
async function corpus(): Promise<{ name: string; dir: string; files: SessionFiles }[]> {
  const dirs = [WEBAPP, API, NOTES];
  const samples = path.join(SAMPLES, 'claude');
  if (noteSamples('resuming the real Claude Code samples (the fixtures still run)')) {
    for (const entry of await fs.readdir(samples, { recursive: true, withFileTypes: true })) {
      if (entry.isDirectory()) dirs.push(path.join(entry.parentPath, entry.name));
    }
    dirs.push(samples);
  }
  const out = [];
  for (const dir of dirs) {
    for (const files of (await listProjectDir(dir)).sessions) {
      if (files.main) out.push({ name: `${path.basename(dir)}/${files.sessionId.slice(0, 12)}`, dir, files });
    }
  }
  return out;
}

/** A copy of a session's directory, its main transcript cut to its first `lines` lines. */
async function copyCut(dir: string, files: SessionFiles, lines: number): Promise<{ home: string; main: string }> {
  const home = await tempDir('resume-home');
  await fs.cp(dir, home, { recursive: true });
  const main = path.join(home, path.relative(dir, files.main!));
  const all = (await fs.readFile(files.main!, 'utf8')).split(/(?<=\n)/);
  await fs.writeFile(main, all.slice(0, lines).join(''));
  return { home, main };
}

async function sessionFiles(home: string, sessionId: string): Promise<SessionFiles> {
  return (await listProjectDir(home)).sessions.find((s) => s.sessionId === sessionId)!;
}

async function collectInto(dataDir: string, files: SessionFiles, archived: boolean, warnings: CollectWarning[] = []) {
  const data = new DataDir(dataDir);
  const target: CollectTarget = {
    dataDir,
    bodyPath: data.bodyPath('claude-code', files.sessionId),
    resumePath: data.resumePath('claude-code', files.sessionId),
    collectedAt: '2026-01-01T00:00:00.000Z',
    archived,
  };
  return collectSession(
    files,
    (w) => warnings.push(w),
    () => false,
    target,
  );
}

async function archived(dataDir: string, sessionId: string) {
  const body = await readBodyFile(dataDir, new DataDir(dataDir).bodyPath('claude-code', sessionId));
  return body && { summary: body.summary, session: body.session };
}

describe('resuming a grown transcript from where the last collect stopped', async () => {
  const sessions = await corpus();
  /** Whether each grown file was resumed (not when a cut leaves a half-written or undated last record). */
  const tries: boolean[] = [];

  it('has sessions to try', () => {
    // The six fixture transcripts A–F, and the samples when they are there.
    expect(sessions.length).toBeGreaterThan(HAS_SAMPLES ? 12 : 5);
  });

  // Cut each transcript at several lines, collect, let it grow back in two steps and collect after each:
  // the archive must hold exactly what one read of the whole file gives (calls answered later, usage of a
  // response streamed over several lines, sidechains, titles, resumed sessions).
  it.each(sessions.map((s) => [s.name, s] as const))('%s', async (_, { dir, files }) => {
    const lines = (await fs.readFile(files.main!, 'utf8')).split(/(?<=\n)/).length;
    const cuts = [...new Set([1, 2, 3, Math.floor(lines / 3), Math.floor(lines / 2), lines - 2, lines - 1])].filter(
      (n) => n > 0 && n < lines,
    );
    const cold = await tempDir('resume-cold');
    const full = await copyCut(dir, files, lines);
    const coldResult = await collectInto(cold, await sessionFiles(full.home, files.sessionId), false);
    for (const cut of cuts) {
      const { home, main } = await copyCut(dir, files, cut);
      // Same paths as the cold read: the messages name their file.
      await fs.rm(full.home, { recursive: true });
      await fs.rename(home, full.home);
      const grown = path.join(full.home, path.relative(home, main));
      const data = await tempDir('resume-data');
      const first = await collectInto(data, await sessionFiles(full.home, files.sessionId), false);
      const rest = (await fs.readFile(files.main!, 'utf8')).split(/(?<=\n)/).slice(cut);
      const middle = Math.ceil(rest.length / 2);
      await fs.appendFile(grown, rest.slice(0, middle).join(''));
      const second = await collectInto(data, await sessionFiles(full.home, files.sessionId), first.written);
      await fs.appendFile(grown, rest.slice(middle).join(''));
      const third = await collectInto(data, await sessionFiles(full.home, files.sessionId), second.written);
      if (!coldResult.written) {
        expect(third.written).toBe(false);
        continue;
      }
      tries.push(third.resumed);
      expect(await archived(data, files.sessionId), `cut at ${cut}`).toEqual(await archived(cold, files.sessionId));
    }
  });

  it('resumed most of them rather than reading them again', () => {
    expect(tries.filter(Boolean).length).toBeGreaterThan(tries.length * 0.8);
  });
});

describe('when not to resume', () => {
  const E = path.join(WEBAPP, `${SESSION.E}.jsonl`);

  async function setUp() {
    const home = await tempDir('resume-home');
    const file = path.join(home, `${SESSION.E}.jsonl`);
    await fs.copyFile(E, file);
    const data = await tempDir('resume-data');
    await collectInto(data, await sessionFiles(home, SESSION.E), false);
    return { home, file, data };
  }

  it('reads the whole file again when a byte before the old end changed, even if it also grew', async () => {
    const { home, file, data } = await setUp();
    const text = await fs.readFile(file, 'utf8');
    expect(text).toContain('sessionTimeout');
    await fs.writeFile(file, `${text.replace('sessionTimeout', 'SESSIONTIMEOUT')}\n`);
    const result = await collectInto(data, await sessionFiles(home, SESSION.E), true);
    expect(result.resumed).toBe(false);
    const cold = await tempDir('resume-cold');
    await collectInto(cold, await sessionFiles(home, SESSION.E), false);
    expect(await archived(data, SESSION.E)).toEqual(await archived(cold, SESSION.E));
    expect(JSON.stringify((await archived(data, SESSION.E))!.session)).toContain('SESSIONTIMEOUT');
  });

  it('cuts what an interrupted run appended after the last saved point', async () => {
    const { home, file, data } = await setUp();
    const messages = new DataDir(data).messagesPath(new DataDir(data).bodyPath('claude-code', SESSION.E));
    const before = await archived(data, SESSION.E);
    await fs.appendFile(messages, '{"thread":"","message":{"id":"junk"}}\n');
    const result = await collectInto(data, await sessionFiles(home, SESSION.E), true);
    expect(result.resumed).toBe(true);
    expect(await archived(data, SESSION.E)).toEqual(before);
    expect(await fs.readFile(messages, 'utf8')).not.toContain('junk');
    void file;
  });

  it('does not resume after a line that was still being written, and reads it whole once finished', async () => {
    const { home, file, data } = await setUp();
    const record = JSON.stringify({
      type: 'user',
      uuid: 'late-1',
      sessionId: SESSION.E,
      timestamp: '2026-03-05T09:00:00.000Z',
      message: { role: 'user', content: 'A late question' },
    });
    await fs.appendFile(file, record.slice(0, 40));
    const warnings: CollectWarning[] = [];
    await collectInto(data, await sessionFiles(home, SESSION.E), true, warnings);
    expect(warnings.map((w) => w.message).join('\n')).toMatch(/truncated last line/);
    await fs.appendFile(file, `${record.slice(40)}\n`);
    const result = await collectInto(data, await sessionFiles(home, SESSION.E), true);
    expect(result.resumed).toBe(false);
    const session = (await archived(data, SESSION.E))!.session;
    expect(session.messages.filter((m) => m.raw.uuid === 'late-1')).toHaveLength(1);
    expect(await fs.stat(new DataDir(data).resumePath('claude-code', SESSION.E))).toBeTruthy();
  });
});
