import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { DataDir, openSessionPages, readBodyFileSync } from '../../src/archive/data-dir.ts';
import { sessionPage } from '../../src/transcript/session-view.ts';
import { MAIN_THREAD } from '../../src/model/body.ts';
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

  it('digests what a page read: the same bytes the same digest, a patch to one of its messages a new one', async () => {
    const dataDir = path.join(await tempDir('paged-digest'), 'data');
    await collect({ home: FIXTURE_HOME, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } });
    const data = new DataDir(dataDir);
    const mainMessages = (body: string) => readBodyFileSync(dataDir, body)!.session.messages.length;
    const summary = (await data.readSummaries())
      .filter((s) => s.source === 'claude-code')
      .sort((a, b) => mainMessages(b.body) - mainMessages(a.body))[0]!;
    const whole = readBodyFileSync(dataDir, summary.body)!.session;
    expect(whole.messages.length).toBeGreaterThanOrEqual(6);
    const starts = [0, 2, 4];
    const open = () => openSessionPages(dataDir, summary.body, starts, (s, n) => sessionPage(s, starts, n))!;
    const digests = (pages = open()) => [1, 2, 3].map((n) => (pages.page(n), pages.digest!(n)));
    const before = digests();
    expect(new Set(before).size).toBe(3);
    expect(before).toEqual(digests());
    expect(open().digest!(2)).toBeUndefined(); // known only once the page was read

    // The session grows past page 2 (a message on its last page): pages 1 and 2 read the same bytes.
    const messages = data.messagesPath(summary.body);
    const last = whole.messages.at(-1)!;
    appendFileSync(
      messages,
      `${JSON.stringify({ thread: MAIN_THREAD, message: { ...last, id: `${last.id}-later` } })}\n`,
    );
    const grown = digests();
    expect(grown.slice(0, 2)).toEqual(before.slice(0, 2));
    expect(grown[2]).not.toBe(before[2]);

    // A patch to a message of page 2 (its usage corrected) changes page 2 only.
    const onPage2 = whole.messages[2]!;
    appendFileSync(
      messages,
      `${JSON.stringify({ thread: MAIN_THREAD, patch: { id: onPage2.id, usage: { input_tokens: 1, output_tokens: 2 } } })}\n`,
    );
    const patched = open();
    expect(patched.page(2).messages[0]!.metadata?.usage).toEqual({ input_tokens: 1, output_tokens: 2 });
    const after = digests(patched);
    expect(after[0]).toBe(before[0]);
    expect(after[1]).not.toBe(before[1]);
  });
});
