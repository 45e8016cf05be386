import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnCli, walkTree } from '../../hostile/make.ts';
import { runCli } from '../../helpers/cli.ts';
import { fixtureBuild } from '../../helpers/paths.ts';

let sleeper: ChildProcess | undefined;
const stopPolls: (() => void)[] = [];
afterAll(() => {
  sleeper?.kill('SIGKILL');
  for (const stop of stopPolls) stop();
});

const marks = async (data: string) =>
  (await fs.readdir(path.join(data, 'cache', 'site-build')).catch(() => [])).filter((f) => f.endsWith('.unfinished'));

describe('a build after one that was killed', { timeout: 600_000 }, () => {
  it('removes the temporary files the killed build left in the site, and nothing else', async () => {
    const { home, data, out } = await fixtureBuild('unfinished');
    const args = ['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC'];
    const first = await runCli(args);
    expect(first.code, first.stderr).toBe(0);
    expect(await marks(data)).toEqual([]);

    // A build killed once it has started: its mark stays.
    let killedPid = 0;
    const killed = await spawnCli([...args, '--full'], {
      onSpawn: (pid) => {
        killedPid = pid;
        let sent = false;
        const poll = setInterval(async () => {
          if (sent || (await marks(data)).length === 0) return;
          sent = true;
          clearInterval(poll);
          process.kill(pid, 'SIGKILL');
        }, 5);
        stopPolls.push(() => clearInterval(poll));
      },
    });
    expect(killed.signal, killed.stderr).toBe('SIGKILL');
    expect(await marks(data)).toHaveLength(1);

    // What a build killed while writing leaves: a file beside an output, the search's staging folder.
    const files = await walkTree(out);
    const markdown = files.find((f) => f.endsWith('.md.gz'))!;
    const temporary = (name: string, pid: number, tag: string) => `${name}.agent-logbook-tmp-${pid}-${tag}`;
    const strays = [temporary(markdown, killedPid, 'k1ll3d'), temporary('.pagefind', killedPid, 'staging')];
    await fs.writeFile(path.join(out, strays[0]!), '');
    await fs.mkdir(path.join(out, strays[1]!, 'shard-0'), { recursive: true });
    await fs.writeFile(path.join(out, strays[1]!, 'shard-0', 'entry.json'), '{}');
    // Not ours to remove: a temporary file of a process still running, and the user's files, even named alike.
    sleeper = spawn('sleep', ['600']);
    const running = temporary(markdown, sleeper.pid!, 'alive');
    await fs.writeFile(path.join(out, running), 'being written');
    const users = ['notes.tmp-draft', `report.tmp-${killedPid}-final`, `old.tmp-${killedPid}-b/kept.txt`];
    for (const file of users) {
      await fs.mkdir(path.dirname(path.join(out, file)), { recursive: true });
      await fs.writeFile(path.join(out, file), 'mine');
    }
    // This process's own (the builds below run in it): one just written may still be being written.
    const own = temporary(markdown, process.pid, 'own');
    await fs.writeFile(path.join(out, own), 'a write of an earlier build here');

    const next = await runCli(args);
    expect(next.code, next.stderr).toBe(0);
    const removed = /Removed (\d+) temporary files? that an unfinished build left in (.+)\n/.exec(next.stderr);
    expect(removed, next.stderr).not.toBeNull();
    expect(Number(removed![1])).toBeGreaterThanOrEqual(strays.length);
    expect(removed![2]).toBe(out);
    const after = await walkTree(out);
    expect(after.filter((f) => f.includes(`-tmp-${killedPid}-`))).toEqual([]);
    for (const kept of [running, own, markdown, ...users]) expect(after).toContain(kept);
    // It left one of this process's: the next build looks again.
    expect(await marks(data)).toHaveLength(1);

    // Not written to for ten minutes, it is no longer being written.
    const past = new Date(Date.now() - 11 * 60_000);
    await fs.utimes(path.join(out, own), past, past);
    const third = await runCli(args);
    expect(third.code, third.stderr).toBe(0);
    expect(third.stderr).toContain(`Removed 1 temporary file that an unfinished build left in ${out}`);
    expect(await walkTree(out)).not.toContain(own);
    expect(await marks(data)).toEqual([]);

    // Its mark cleared, the build after it does not walk the site again.
    await fs.writeFile(path.join(out, strays[0]!), '');
    const fourth = await runCli(args);
    expect(fourth.code, fourth.stderr).toBe(0);
    expect(fourth.stderr).not.toContain('temporary file');
    expect(await walkTree(out)).toContain(strays[0]);
  });

  it('sweeps after a build killed as it wrote its mark (an empty mark)', async () => {
    const { home, data, out } = await fixtureBuild('unfinished-empty-mark');
    const args = ['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC'];
    expect((await runCli(args)).code).toBe(0);
    // The file created, its text not yet written: what a kill between the two leaves.
    const mark = `${createHash('sha256').update(path.resolve(out)).digest('hex').slice(0, 16)}.unfinished`;
    const folder = path.join(data, 'cache', 'site-build');
    await fs.writeFile(path.join(folder, mark), '');
    // A mark's temporary file left by a build killed before it renamed it, and one of a process still running.
    const leftTemporary = `${mark}.999999999.tmp`;
    const runningTemporary = `${mark}.${process.ppid}.tmp`;
    for (const name of [leftTemporary, runningTemporary]) await fs.writeFile(path.join(folder, name), '{"pid"');
    const stray = `${(await walkTree(out)).find((f) => f.endsWith('.md.gz'))!}.agent-logbook-tmp-999999999-k1ll3d`;
    await fs.writeFile(path.join(out, stray), '');

    const next = await runCli(args);
    expect(next.code, next.stderr).toBe(0);
    expect(next.stderr).toContain(`Removed 1 temporary file that an unfinished build left in ${out}`);
    expect(await walkTree(out)).not.toContain(stray);
    expect(await marks(data)).toEqual([]);
    expect((await fs.readdir(folder)).filter((name) => name.includes(mark))).toEqual([runningTemporary]);
  });

  it("forgets a site that is gone: its build record and its sessions' Markdown members", async () => {
    const { home, data, out } = await fixtureBuild('unfinished-gone-site');
    const other = `${out}-other`;
    const build = (to: string) => runCli(['build', '--home', home, '--data', data, '--out', to, '--tz', 'UTC']);
    for (const to of [out, other]) expect((await build(to)).code).toBe(0);
    const folder = path.join(data, 'cache', 'site-build');
    const records = async () => (await fs.readdir(folder)).filter((n) => /\.(json|markdown)$/.test(n)).sort();
    const both = await records();
    expect(both.map((n) => path.extname(n)).sort()).toEqual(['.json', '.json', '.markdown', '.markdown']);
    await fs.rm(other, { recursive: true });
    const next = await build(out);
    expect(next.code, next.stderr).toBe(0);
    const left = await records();
    expect(left).toHaveLength(2);
    const record = JSON.parse(
      await fs.readFile(
        path.join(
          folder,
          left.find((n) => n.endsWith('.json'))!,
        ),
        'utf8',
      ),
    );
    expect(record.outDir).toBe(out);
    expect(
      (
        await fs.readdir(
          path.join(
            folder,
            left.find((n) => n.endsWith('.markdown'))!,
          ),
          { recursive: true },
        )
      ).filter((f) => f.endsWith('.md.gz')).length,
    ).toBeGreaterThan(10);
    expect(next.stderr).toMatch(/\b0 files written\b/);
  });

  it('knows a site reached through a symbolic link as the same site: one record, nothing written again', async () => {
    const { home, data, out } = await fixtureBuild('unfinished-linked-site');
    const link = `${out}-link`;
    const build = (to: string) =>
      runCli(['build', '--home', home, '--data', data, '--out', to, '--tz', 'UTC', '--verbose']);
    const first = await build(out);
    expect(first.code, first.stderr).toBe(0);
    await fs.symlink(out, link);
    const linked = await build(link);
    expect(linked.code, linked.stderr).toBe(0);
    expect(linked.stderr).toMatch(/\b0 files written, 0 removed\b/);
    // The site search's state is the site's too: the build knows from it and the record that nothing changed (a
    // state of its own would have it index every shard again), and its messages name the folder as typed.
    expect(linked.stderr).toContain(`Nothing changed since the last build into ${link}:`);
    expect((await fs.readdir(path.join(data, 'cache', 'site-search'))).filter((n) => n.endsWith('.json'))).toHaveLength(
      1,
    );
    // Its messages name the folder as typed.
    expect(linked.stderr).toContain(link);
    const folder = path.join(data, 'cache', 'site-build');
    const records = (await fs.readdir(folder)).filter((n) => n.endsWith('.json'));
    expect(records).toHaveLength(1);
    const record = JSON.parse(await fs.readFile(path.join(folder, records[0]!), 'utf8'));
    expect(record.outDir).toBe(await fs.realpath(out));

    // A record from before records were named by real paths, of the site built through the link: forgotten with
    // its members by the next build, as the site's own record is the real path's.
    const old = path.join(folder, `${createHash('sha256').update(link).digest('hex').slice(0, 16)}.json`);
    await fs.writeFile(old, JSON.stringify({ ...record, outDir: link }));
    await fs.mkdir(path.join(old.replace(/\.json$/, '.markdown'), 'sessions'), { recursive: true });
    const next = await build(out);
    expect(next.code, next.stderr).toBe(0);
    const left = (await fs.readdir(folder)).filter((n) => /\.(json|markdown)$/.test(n)).sort();
    expect(left).toEqual([records[0]!, records[0]!.replace(/\.json$/, '.markdown')].sort());
  });
});
