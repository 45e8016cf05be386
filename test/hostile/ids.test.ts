import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { idToPathSegment } from '../../src/model/ids.ts';
import { sessionRoute } from '../../src/model/routes.ts';
import { createQDatabase } from '../helpers/amazonq-db.ts';
import { tempDir } from '../helpers/paths.ts';
import { claudeLines, codexLines, deepJson, qState, walkTree, writeLines } from './make.ts';
import { sessionMarkdownOf } from '../helpers/markdown-packs.ts';

/** Ids that escaped --out, collided or were too long for the file system before they went through
 * idToPathSegment. */
const Q_IDS = ['../..', '../x', 'a b', 'a_b', '日本語', '中国語', 'ABC', 'abc', 'q'.repeat(300)];
const LONG_CLAUDE = 'c'.repeat(243); // `<id>.jsonl` is 249 characters
const CODEX_IDS = ['CODEX-CASE', 'codex-case'];

async function cli(args: string[], cwd: string): Promise<{ code: number; stderr: string }> {
  let stderr = '';
  const code = await main(args, { cwd, env: {}, stdout: () => {}, stderr: (t) => (stderr += t) });
  return { code, stderr };
}

describe('hostile ids: traversal, collisions, long names', () => {
  it('every session is kept, has its own page with its own messages, and nothing is written outside --data/--out', async () => {
    const root = await tempDir('hostile-ids');
    const home = path.join(root, 'home');
    const data = path.join(root, 'data');
    const out = path.join(root, 'out');
    const shares = path.join(root, 'shares');
    await fs.mkdir(shares, { recursive: true });
    await createQDatabase(path.join(home, '.local', 'share', 'kiro-cli', 'data.sqlite3'), {
      conversations: [],
      conversationsV2: Q_IDS.map((id, i) => ({
        key: `/home/alice/work/q${i}`,
        state: qState(id, `prompt number ${i}`, `answer number ${i}`, Date.parse('2026-03-12T09:00:00Z') + i * 60_000),
        createdAt: 1,
        updatedAt: 2,
      })),
    });
    const long = claudeLines(LONG_CLAUDE, [
      ['long name prompt', 'long name answer'],
      ['after the bad lines', 'still here'],
    ]);
    await writeLines(path.join(home, '.claude', 'projects', '-home-alice-work-hostile', `${LONG_CLAUDE}.jsonl`), [
      long[0]!,
      long[1]!,
      deepJson(100_000),
      JSON.stringify({ type: 'user', uuid: 'n1', message: { role: 'user', content: [null] } }),
      long[2]!,
      long[3]!,
    ]);
    for (const [i, id] of CODEX_IDS.entries()) {
      await writeLines(
        path.join(home, '.codex', 'sessions', '2026', '03', '11', `rollout-2026-03-11T0${i}-00-00-${id}.jsonl`),
        codexLines(id, [[`codex prompt ${i}`, `codex answer ${i}`]], `2026-03-11T0${i}:00:00.000Z`),
      );
    }
    const before = await walkTree(root);

    const build = await cli(['build', '--home', home, '--data', data, '--out', out, '--tz', 'UTC'], root);
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toMatch(/Amazon Q \/ Kiro CLI: .*: 9 sessions/);
    expect(build.stderr).toMatch(/Data: .*: 12 sessions\./);

    // The site's own pages are the site's.
    expect(await fs.readFile(path.join(out, 'index.html'), 'utf8')).toContain('Your assistant logbook');
    const pageOf = async (source: string, id: string) =>
      fs.readFile(path.join(out, sessionRoute(source, id), 'index.html'), 'utf8');
    for (const [i, id] of Q_IDS.entries()) {
      const page = await pageOf('amazon-q', id);
      expect(page, id).toContain(`answer number ${i}`);
      for (const j of Q_IDS.keys()) if (j !== i) expect(page, id).not.toContain(`answer number ${j}<`);
    }
    // One folder per conversation, and its Markdown export in its day's pack, under the same segment.
    expect((await fs.readdir(path.join(out, 'sessions', 'amazon-q'))).sort()).toEqual(
      Q_IDS.map((id) => idToPathSegment(id)).sort(),
    );
    for (const [i, id] of Q_IDS.entries())
      expect(await sessionMarkdownOf(out, 'amazon-q', id), id).toContain(`answer number ${i}\n`);
    for (const [i, id] of CODEX_IDS.entries()) {
      const page = await pageOf('codex', id);
      expect(page).toContain(`codex answer ${i}`);
      expect(page).not.toContain(`codex answer ${1 - i}`);
    }
    const longPage = await pageOf('claude-code', LONG_CLAUDE);
    expect(longPage).toContain('long name answer');
    expect(longPage).toContain('still here');

    // Every name in the archive and the site fits a file system's 255 bytes.
    const after = await walkTree(root);
    for (const p of after)
      for (const part of p.split(path.sep)) expect(Buffer.byteLength(part)).toBeLessThanOrEqual(255);
    // Nothing new outside --data and --out.
    const added = after.filter((p) => !before.includes(p));
    expect(added.filter((p) => !/^(data|out)($|\/)/.test(p))).toEqual([]);
    expect(after.filter((p) => p.startsWith('home')).sort()).toEqual(before.filter((p) => p.startsWith('home')).sort());

    // `share` with its default file name: a safe name in the current directory, even for `../..`.
    const share = await cli(['share', 'amazon-q/../..', '--no-collect', '--data', data, '--tz', 'UTC'], shares);
    expect(share.code, share.stderr).toBe(0);
    const file = path.join(shares, `amazon-q-${idToPathSegment('../..')}.html`);
    expect(await fs.readdir(shares)).toEqual([path.basename(file)]);
    const html = await fs.readFile(file, 'utf8');
    expect(html).toContain('answer number 0');
    expect(html).not.toContain('answer number 1<');
    // (Its build's cache is in --data.)
    expect((await walkTree(root)).filter((p) => !after.includes(p) && !p.startsWith('data/'))).toEqual([
      `shares/${path.basename(file)}`,
    ]);
  }, 600_000);
});
