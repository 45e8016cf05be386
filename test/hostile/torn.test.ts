import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { setArchiveWarningSink } from '../../src/archive/warnings.ts';
import { bodyMessages, openSessionPages, readBodyFile, readBodyFileSync } from '../../src/archive/data-dir.ts';
import { LOCK_FILE } from '../../src/archive/lock.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { lineWriterIo } from '../../src/util/line-writer.ts';
import type { CollectWarning } from '../../src/util/warnings.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';
import { claudeLines, spawnCli, walkTree, writeLines } from './make.ts';

const SESSION = '70a70a70-0000-4000-8000-000000000001';
const TORN = '{"thread":"main","message":{"id":"2026-03-1';
const realWrite = lineWriterIo.writeSync;

afterEach(() => {
  lineWriterIo.writeSync = realWrite;
  setArchiveWarningSink(undefined);
});

async function summaryOf(data: string, id = `claude-code/${SESSION}`): Promise<SessionSummary> {
  const all = JSON.parse(await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8')) as SessionSummary[];
  return all.find((s) => s.id === id)!;
}

/** Makes the next writes write half their bytes, then fail as a full disk does. */
function diskFullAfterHalf(): void {
  lineWriterIo.writeSync = (fd, buffer, offset, length) => {
    const half = Math.max(1, Math.floor(length / 2));
    realWrite(fd, buffer, offset, half);
    throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC', syscall: 'write' });
  };
}

function pairs(n: number, from = 0): Array<[string, string]> {
  return Array.from({ length: n }, (_, i) => [`prompt ${from + i}`, `answer ${from + i} ${'words '.repeat(20)}`]);
}

describe('torn archive lines', () => {
  it('a full disk while appending leaves only whole lines, says so in one line, and the next run carries on', async () => {
    const home = await tempDir('hostile-full');
    const data = path.join(home, 'data');
    const transcript = path.join(home, '.claude', 'projects', 'p', `${SESSION}.jsonl`);
    await writeLines(transcript, claudeLines(SESSION, pairs(3)));
    const args = ['collect', '--home', home, '--data', data];
    expect((await runCli(args)).code).toBe(0);
    const messages = path.join(data, (await summaryOf(data)).body.replace(/\.json$/, '.messages.jsonl'));
    const before = await fs.readFile(messages);

    // The transcript grows: the next collect appends to the archive, and the disk fills up half way.
    await fs.appendFile(transcript, `${claudeLines(SESSION, pairs(6)).slice(6).join('\n')}\n`);
    diskFullAfterHalf();
    const full = await runCli(args);
    lineWriterIo.writeSync = realWrite;
    expect(full.code).toBe(1);
    const error = full.stderr.split('\n').filter((l) => l.startsWith('agent-logbook:'));
    expect(error).toEqual([
      `agent-logbook: no space left on the disk for ${messages} (ENOSPC); free some space and run again (what was being written was cut back to its last whole line; the archive is otherwise unchanged)`,
    ]);
    expect(full.stderr).not.toMatch(/^\s+at /m); // no stack without --verbose
    const after = await fs.readFile(messages);
    expect(after.equals(before)).toBe(true);
    expect((await walkTree(data)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(await fs.stat(path.join(data, LOCK_FILE)).catch(() => undefined)).toBeUndefined();

    const again = await runCli(args);
    expect(again.code, again.stderr).toBe(0);
    const body = await readBodyFile(data, (await summaryOf(data)).body);
    const texts = body!.session.messages.flatMap((m) => m.segments.map((s) => s.text));
    expect(texts).toContain('prompt 5');
  });

  it('a full disk while writing a new session removes its temp file', async () => {
    const home = await tempDir('hostile-full-new');
    const data = path.join(home, 'data');
    await writeLines(path.join(home, '.claude', 'projects', 'p', `${SESSION}.jsonl`), claudeLines(SESSION, pairs(2)));
    diskFullAfterHalf();
    const run = await runCli(['collect', '--home', home, '--data', data, '--verbose']);
    lineWriterIo.writeSync = realWrite;
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^agent-logbook: no space left on the disk for .*\.messages\.jsonl \(ENOSPC\)/m);
    expect(run.stderr).toMatch(/^\s+at /m); // --verbose shows where
    expect((await walkTree(data)).filter((f) => /\.(tmp|json|jsonl)$/.test(f) && f.startsWith('sessions/'))).toEqual(
      [],
    );
  });

  it('the loader reads a body with a torn last line (with a warning); the next collect after a crash repairs it', async () => {
    const home = await tempDir('hostile-torn');
    const data = path.join(home, 'data');
    const transcript = path.join(home, '.claude', 'projects', 'p', `${SESSION}.jsonl`);
    await writeLines(transcript, claudeLines(SESSION, pairs(400)));
    expect((await runCli(['collect', '--home', home, '--data', data])).code).toBe(0);
    const summary = await summaryOf(data);
    expect(summary.pageStarts!.length).toBeGreaterThan(1); // read a page at a time (PagedBody) too
    const messages = path.join(data, summary.body.replace(/\.json$/, '.messages.jsonl'));
    const whole = await fs.readFile(messages);
    const count = (await readBodyFile(data, summary.body))!.session.messages.length;
    expect(count).toBe(800);
    // A crash part-way through an append: half a line, no newline. The transcript is gone since.
    await fs.appendFile(messages, TORN);
    await fs.rm(transcript);

    const warnings: CollectWarning[] = [];
    setArchiveWarningSink((w) => warnings.push(w));
    const body = await readBodyFile(data, summary.body);
    expect(body!.session.messages.length).toBe(count);
    expect(readBodyFileSync(data, summary.body)!.session.messages.length).toBe(count);
    let streamed = 0;
    for await (const _ of bodyMessages(data, summary.body)) streamed += 1;
    expect(streamed).toBe(count);
    const pages = openSessionPages(data, summary.body, summary.pageStarts!, () => {
      throw new Error('not paged');
    })!;
    const last = pages.page(summary.pageStarts!.length);
    expect(last.messages.at(-1)!.segments[0]!.text).toContain('answer 399');
    expect(warnings.length).toBeGreaterThan(0);
    expect(warnings.every((w) => w.file === messages && /torn last line|truncated last line/.test(w.message))).toBe(
      true,
    );

    // The collect that crashed left its lock and a temp file: the next one takes the lock over and repairs.
    await fs.writeFile(
      path.join(data, LOCK_FILE),
      JSON.stringify({ pid: await deadPid(), host: os.hostname(), started: '2026-03-10T00:00:00.000Z' }),
    );
    await fs.writeFile(`${messages}.12345.abc123.tmp`, 'half');
    const next = await runCli(['collect', '--home', home, '--data', data]);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(
      `warning: ${messages}: last line was torn (${Buffer.byteLength(TORN)} bytes without a newline, from a run that did not finish); cut back to the last whole line`,
    );
    expect((await fs.readFile(messages)).equals(whole)).toBe(true);
    expect((await walkTree(data)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect(next.stderr).toContain('1 session (1 kept from the archive');
  });

  it('a first collect killed while writing format.json leaves a directory the next run still takes as its own', async () => {
    const home = await tempDir('hostile-first');
    const data = path.join(home, 'data');
    await writeLines(path.join(home, '.claude', 'projects', 'p', `${SESSION}.jsonl`), claudeLines(SESSION, pairs(2)));
    // What the killed run had written: its lock, the recovery marker, and format.json's temp file.
    await fs.mkdir(path.join(data, 'cache'), { recursive: true });
    await fs.writeFile(path.join(data, 'cache', 'archive-checked-v1'), '');
    await fs.writeFile(
      path.join(data, LOCK_FILE),
      JSON.stringify({ pid: await deadPid(), host: os.hostname(), started: '2026-03-10T00:00:00.000Z' }),
    );
    await fs.writeFile(path.join(data, 'format.json.12345.tmp'), '{"format":');
    const next = await runCli(['collect', '--home', home, '--data', data]);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(await fs.readFile(path.join(data, 'format.json'), 'utf8'))).toMatchObject({ version: 2 });
    expect((await walkTree(data)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    expect((await readBodyFile(data, (await summaryOf(data)).body))!.session.messages.length).toBe(4);

    // Anything else still marks a directory that is not ours.
    const foreign = path.join(home, 'foreign');
    await fs.mkdir(foreign);
    await fs.writeFile(path.join(foreign, 'notes.txt'), 'mine');
    const refused = await runCli(['collect', '--home', home, '--data', foreign]);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('is not empty and is not an agent-logbook data directory');
  });

  it('a collect killed part-way through a big session leaves nothing the next run cannot use', async () => {
    const home = await tempDir('hostile-kill');
    const data = path.join(home, 'data');
    const transcript = path.join(home, '.claude', 'projects', 'p', `${SESSION}.jsonl`);
    await writeLines(transcript, claudeLines(SESSION, pairs(20_000)));
    let killed = false;
    const run = spawnCli(['collect', '--home', home, '--data', data], {
      onSpawn: (pid) => {
        const poll = setInterval(async () => {
          const files = await walkTree(data).catch(() => []);
          if (files.some((f) => f.endsWith('.messages.jsonl') || f.endsWith('.tmp'))) {
            clearInterval(poll);
            killed = true;
            process.kill(pid, 'SIGKILL');
          }
        }, 5);
      },
    });
    const result = await run;
    expect(killed, result.stderr).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    expect(await fs.stat(path.join(data, LOCK_FILE)).catch(() => undefined)).toBeDefined();

    const next = await runCli(['collect', '--home', home, '--data', data]);
    expect(next.code, next.stderr).toBe(0);
    expect((await walkTree(data)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    const body = await readBodyFile(data, (await summaryOf(data)).body);
    expect(body!.session.messages.length).toBe(40_000);
  }, 240_000);
});

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  return spawnSync(process.execPath, ['-e', '']).pid;
}
