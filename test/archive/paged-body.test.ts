import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { DataDir, openSessionPages, readBodyFileSync } from '../../src/archive/data-dir.ts';
import { sessionPage } from '../../src/transcript/session-view.ts';
import { FIXTURE_HOME, tempDir } from '../helpers/paths.ts';

describe('PagedBody', () => {
  it('gives each page exactly what cutting the whole session gives, patches and subagents included', async () => {
    const dataDir = path.join(await tempDir('paged'), 'data');
    await collect({ home: FIXTURE_HOME, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } });
    const data = new DataDir(dataDir);
    let pagesCompared = 0;
    let withSubagents = 0;
    let patchedBodies = 0;
    for (const summary of await data.readSummaries()) {
      const whole = readBodyFileSync(dataDir, summary.body)!.session;
      if (readFileSync(data.messagesPath(summary.body), 'utf8').includes('"patch":')) patchedBodies += 1;
      // Pages of every size, down to one message (the archive's own bound is far larger than a fixture).
      for (const size of [1, 2, 3, 7]) {
        const starts = Array.from({ length: Math.ceil(whole.messages.length / size) }, (_, i) => i * size);
        if (starts.length < 2) continue;
        const paged = openSessionPages(dataDir, summary.body, starts, (s, n) => sessionPage(s, starts, n))!;
        for (let page = 1; page <= starts.length; page++) {
          const expected = sessionPage(readBodyFileSync(dataDir, summary.body)!.session, starts, page);
          expect(paged.page(page), `${summary.id} page ${page} of ${starts.length}`).toEqual(expected);
          pagesCompared += 1;
          if (expected.subagents.length > 0) withSubagents += 1;
        }
      }
    }
    // The comparison covered real work: many pages, some carrying subagent threads.
    expect(pagesCompared).toBeGreaterThan(100);
    expect(withSubagents).toBeGreaterThan(0);
    expect(patchedBodies).toBeGreaterThan(0);
  });
});
