import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { copyFixtureHome, SESSION, tempDir } from '../../helpers/paths.ts';

const sessionPage = (id: string) => path.join('sessions', 'claude-code', id, 'index.html');

describe('a page that cannot be rendered', { timeout: 900_000 }, () => {
  it('costs that page only: the build goes on, warns naming the session, and the page says it is not shown', async () => {
    const home = await copyFixtureHome();
    const root = await tempDir('isolation');
    const data = path.join(root, 'data');
    const out = path.join(root, 'dist');
    const collect = await runCli(['collect', '--home', home, '--data', data]);
    expect(collect.code, collect.stderr).toBe(0);
    // A damaged archive: a message line whose header fields are there but whose segments are not (as a writer
    // of another version, or a disk, could leave it). The session's page trips on it.
    const messages = path.join(data, 'sessions', 'claude-code', `${SESSION.A}.messages.jsonl`);
    const lines = (await fs.readFile(messages, 'utf8')).split('\n').filter(Boolean);
    const prompt = lines
      .map((line) => JSON.parse(line) as { thread: string; message?: Record<string, unknown> })
      .find((line) => line.message?.role === 'user')!;
    const { segments: _dropped, ...damaged } = prompt.message!;
    lines.push(JSON.stringify({ thread: prompt.thread, message: { ...damaged, id: `${String(damaged.id)}-damaged` } }));
    await fs.writeFile(messages, `${lines.join('\n')}\n`);

    const build = await runCli(['build', '--home', home, '--data', data, '--out', out, '--tz', 'Asia/Tokyo']);
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toMatch(new RegExp(`  warning: .*session claude-code/${SESSION.A} could not be rendered`));
    const broken = await fs.readFile(path.join(out, sessionPage(SESSION.A)), 'utf8');
    expect(broken).toContain('This page could not be shown');
    const other = await fs.readFile(path.join(out, sessionPage(SESSION.B)), 'utf8');
    expect(other).not.toContain('This page could not be shown');
    expect(other).toContain('<h1');
    await fs.access(path.join(out, 'index.html'));
  });
});
