import { type ChildProcess, spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli, walkTree } from '../../hostile/make.ts';
import { runCli } from '../../helpers/cli.ts';
import { copyFixtureHome, tempDir } from '../../helpers/paths.ts';

let sleeper: ChildProcess | undefined;
afterAll(() => {
  sleeper?.kill('SIGKILL');
});

const marks = async (data: string) =>
  (await fs.readdir(path.join(data, 'cache', 'site-build')).catch(() => [])).filter((f) => f.endsWith('.unfinished'));

describe('a build after one that was killed', { timeout: 600_000 }, () => {
  it('removes the temporary files the killed build left in the site, and nothing else', async () => {
    const home = await copyFixtureHome();
    const root = await tempDir('unfinished');
    const data = path.join(root, 'data');
    const out = path.join(root, 'site');
    const args = ['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC'];
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    expect(await marks(data)).toEqual([]);

    // A build killed once it has started: its mark stays.
    let killedPid = 0;
    const killed = await spawnCli([...args, '--full'], {
      onSpawn: (pid) => {
        killedPid = pid;
        const poll = setInterval(async () => {
          if ((await marks(data)).length === 0) return;
          clearInterval(poll);
          process.kill(pid, 'SIGKILL');
        }, 5);
      },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(await marks(data)).toHaveLength(1);

    // What a build killed while writing leaves: a file beside an output, the search's staging folder.
    const files = await walkTree(out);
    const markdown = files.find((f) => f.endsWith('.md.gz'))!;
    const strays = [`${markdown}.tmp-${killedPid}-k1ll3d`, `.pagefind.tmp-${killedPid}-staging`];
    await fs.writeFile(path.join(out, strays[0]!), '');
    await fs.mkdir(path.join(out, strays[1]!, 'shard-0'), { recursive: true });
    await fs.writeFile(path.join(out, strays[1]!, 'shard-0', 'entry.json'), '{}');
    // Not ours to remove: a temporary file of a process still running, and a file of the user's.
    sleeper = spawn('sleep', ['600']);
    const running = `${markdown}.tmp-${sleeper.pid}-alive`;
    await fs.writeFile(path.join(out, running), 'being written');
    await fs.writeFile(path.join(out, 'notes.tmp-draft'), 'mine');

    const next = await runCli(args);
    expect(next.code, next.stderr).toBe(0);
    const removed = /Removed (\d+) temporary files? that an unfinished build left in (.+)\n/.exec(next.stderr);
    expect(removed, next.stderr).not.toBeNull();
    expect(Number(removed![1])).toBeGreaterThanOrEqual(strays.length);
    expect(removed![2]).toBe(out);
    const after = await walkTree(out);
    expect(after.filter((f) => f.includes(`.tmp-${killedPid}-`))).toEqual([]);
    expect(after).toContain(running);
    expect(after).toContain('notes.tmp-draft');
    expect(after).toContain(markdown);
    expect(await marks(data)).toEqual([]);

    // Its own mark cleared, the build after it does not walk the site again.
    await fs.writeFile(path.join(out, strays[0]!), '');
    const third = await runCli(args);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).not.toContain('temporary file');
    expect(await walkTree(out)).toContain(strays[0]);
  });
});
