import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';
import { claudeLines, walkTree, writeLines } from './make.ts';

/** A real small file system needs a tmpfs mount, which only root can make (and some containers forbid). */
const mayMount = process.platform === 'linux' && process.getuid?.() === 0;

describe('a real full disk and a real read-only file system', () => {
  it.skipIf(!mayMount)(
    'ENOSPC and EROFS: one line each, with the path and what to do',
    async () => {
      const mnt = await tempDir('hostile-mnt');
      try {
        execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mnt], { stdio: 'ignore' });
      } catch {
        console.log('skipped: cannot mount a tmpfs here');
        return;
      }
      try {
        const home = await tempDir('hostile-disk-home');
        const id = 'd15cf011-0000-4000-8000-000000000001';
        const pairs = Array.from(
          { length: 3000 },
          (_, i) => [`prompt ${i}`, `answer ${i} ${'text '.repeat(40)}`] as [string, string],
        );
        await writeLines(path.join(home, '.claude', 'projects', 'p', `${id}.jsonl`), claudeLines(id, pairs));
        const data = path.join(mnt, 'data');
        const full = await runCli(['collect', '--home', home, '--data', data]);
        expect(full.code).toBe(1);
        const lines = full.stderr.split('\n').filter((l) => l.startsWith('agent-logbook:'));
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatch(
          new RegExp(
            `^agent-logbook: no space left on the disk for ${data}/\\S+ \\(ENOSPC\\); free some space and run again`,
          ),
        );
        expect((await walkTree(data)).filter((f) => f.endsWith('.tmp') || f === 'collect.lock')).toEqual([]);

        execFileSync('mount', ['-o', 'remount,ro', mnt], { stdio: 'ignore' });
        const readOnly = await runCli(['collect', '--home', home, '--data', data]);
        expect(readOnly.code).toBe(1);
        expect(readOnly.stderr.split('\n').filter((l) => l.startsWith('agent-logbook:'))).toEqual([
          `agent-logbook: ${path.join(data, 'collect.lock')} is on a read-only file system (EROFS); give --data a writable directory`,
        ]);
      } finally {
        execFileSync('umount', [mnt], { stdio: 'ignore' });
        await fs.rm(mnt, { recursive: true, force: true });
      }
    },
    120_000,
  );
});
