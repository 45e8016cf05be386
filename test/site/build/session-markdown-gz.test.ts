import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { copyFixtureHome, SESSION, tempDir } from '../../helpers/paths.ts';
import { appendPrompt } from '../../helpers/transcripts.ts';
import { sessionMarkdownOf } from '../../helpers/markdown-packs.ts';

describe("a session's Markdown in its day's pack", { timeout: 300_000 }, () => {
  it('is whole gzip, for a small session (made in one call) and one past a million characters (streamed)', async () => {
    const home = await copyFixtureHome();
    const root = await tempDir('markdown-gz');
    const transcript = path.join(home, '.claude', 'projects', '-home-alice-work-webapp', `${SESSION.B}.jsonl`);
    // Five prompts of 300,000 characters each: the first four pass the size gzipped in one call, the fifth and
    // what follows are streamed in more than one piece.
    const marks = ['FIRST', 'SECOND', 'THIRD', 'FOURTH', 'FIFTH'];
    for (const [i, mark] of marks.entries())
      await appendPrompt(transcript, `${mark}-BIG ${'word '.repeat(60_000)}${mark}-END`, `2026-03-03T00:2${i}:00.000Z`);
    const out = path.join(root, 'site');
    const built = await runCli(['build', '--home', home, '--data', path.join(root, 'data'), '--out', out]);
    expect(built.code, built.stderr).toBe(0);
    const markdownOf = (id: string) => sessionMarkdownOf(out, 'claude-code', id);

    const big = await markdownOf(SESSION.B);
    expect(big.length).toBeGreaterThan(1_500_000);
    expect(big.startsWith('# ')).toBe(true);
    // Each prompt once, whole, in order.
    for (const mark of marks) {
      expect(big.split(`${mark}-BIG word word`).length - 1, mark).toBe(1);
      expect(big.split(`${mark}-END`).length - 1, mark).toBe(1);
    }
    const ends = marks.map((mark) => big.indexOf(`${mark}-END`));
    expect(ends).toEqual([...ends].sort((a, b) => a - b));
    expect(big.endsWith('\n')).toBe(true);

    const small = await markdownOf(SESSION.A);
    expect(small.length).toBeLessThan(1_000_000);
    expect(small.startsWith('# ')).toBe(true);
    expect(small).toContain('redirect');

    // Made again on their own (their pages unchanged, so not rendered before them): the same bytes, from the
    // pages read again rather than from what a page kept, so their day's pack is the same too.
    const packs = (await fs.readdir(path.join(out, 'days'))).filter((f) => f.includes('.sessions.'));
    const before = await Promise.all(packs.map((file) => fs.readFile(path.join(out, 'days', file))));
    const members = path.join(root, 'data', 'cache', 'site-build');
    const memberFiles = (await fs.readdir(members, { recursive: true }))
      .filter((f) => [SESSION.A, SESSION.B].some((id) => f.endsWith(`claude-code/${id}.md.gz`)))
      .map((f) => path.join(members, f));
    expect(memberFiles).toHaveLength(2);
    for (const file of memberFiles) await fs.rm(file);
    const again = await runCli(['build', '--home', home, '--data', path.join(root, 'data'), '--out', out, '--verbose']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/Rendering: 2 of 2 files/);
    expect(again.stdout + again.stderr).toMatch(/\b0 files written\b/);
    for (const file of memberFiles) await fs.access(file);
    for (const [i, file] of packs.entries())
      expect((await fs.readFile(path.join(out, 'days', file))).equals(before[i]!), file).toBe(true);
  });
});
