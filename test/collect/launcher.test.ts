import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { FIXTURE_HOME, REPO, tempDir } from '../helpers/paths.ts';

const run = promisify(execFile);

describe('the installed command', () => {
  it('npx agent-logbook build works through bin/ (the bundle when fresh, else the sources), two at once', async () => {
    // Two builds started together (a watch loop and a manual build): Astro builds pages in the package's own
    // .astro/, so without the build lock one would delete the other's modules half way.
    const builds = await Promise.all(
      [0, 1].map(async () => {
        const dir = await tempDir('bin');
        const out = path.join(dir, 'dist');
        const { stderr } = await run(
          process.execPath,
          [
            path.join(REPO, 'bin', 'agent-logbook.js'),
            'build',
            '--home',
            FIXTURE_HOME,
            '--data',
            path.join(dir, 'data'),
            '--out',
            out,
            '--tz',
            'UTC',
          ],
          { cwd: dir, env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' } },
        );
        return { out, stderr };
      }),
    );
    for (const { out, stderr } of builds) {
      expect(stderr).toMatch(/^Site: \d+ pages in /m);
      const index = await fs.readFile(path.join(out, 'index.html'), 'utf8');
      expect(index).toContain('Your assistant logbook');
      // The answer's Markdown code block is HTML in the page.
      const page = await fs.readFile(
        path.join(out, 'sessions', 'claude-code', '11111111-1111-4111-8111-111111111111', 'index.html'),
        'utf8',
      );
      expect(page).toContain('<pre><code class="language-ts">');
    }
  });
});
