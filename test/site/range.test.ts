import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';

const site = inject('site');

describe('build --since/--until', () => {
  it('builds only the days in the range, the sessions active on them, and their statistics', async () => {
    const dir = await tempDir('range');
    const out = path.join(dir, 'dist');
    const data = path.join(dir, 'data');
    await fs.cp(site.dataDir, data, { recursive: true });
    // Over a copy of the fixture site's archive, with a home that has no sources: only the archive is built.
    const run = await runCli([
      'build',
      '--home',
      path.join(dir, 'no-home'),
      '--data',
      data,
      '--out',
      out,
      '--tz',
      'Asia/Tokyo',
      '--since',
      '2026-03-04',
      '--until',
      '2026-03-05',
    ]);
    expect(run.code).toBe(0);
    const days = (await fs.readdir(path.join(out, 'days'))).filter((d) => !d.includes('.')).sort();
    expect(days).toEqual(['2026-03-04', '2026-03-05']);
    // Tokyo 03-04: Claude C, F and Codex K1; 03-05: Claude D, E and Codex K2, K3 (fixtures/*.md).
    const stats = JSON.parse(await fs.readFile(path.join(out, 'stats.json'), 'utf8'));
    expect(stats.sessions).toEqual({ total: 7, bySource: { 'claude-code': 4, codex: 3 } });
    expect(Object.keys(stats.days)).toEqual(['2026-03-04', '2026-03-05']);
    await expect(fs.access(path.join(out, 'sessions', 'amazon-q'))).rejects.toThrow();
  });
});
