import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { DataDir, openSessionPages, readBodyFileSync } from '../../src/archive/data-dir.ts';
import { sessionPage } from '../../src/transcript/session-view.ts';
import { MAIN_THREAD } from '../../src/model/body.ts';
import type { BodyHeader } from '../../src/archive/body-format.ts';
import { PagedBody } from '../../src/archive/paged-body.ts';
import { setArchiveWarningSink } from '../../src/archive/warnings.ts';
import type { CollectWarning } from '../../src/util/warnings.ts';
import { FIXTURE_HOME, tempDir } from '../helpers/paths.ts';

const messageOf = (line: string) => (JSON.parse(line) as { message: { id: string } }).message;

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

  it('applies the same patches whether it kept their bytes or reads them where they are', async () => {
    const dataDir = path.join(await tempDir('paged-patch-bytes'), 'data');
    await collect({ home: FIXTURE_HOME, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } });
    const data = new DataDir(dataDir);
    let patchedPages = 0;
    for (const summary of await data.readSummaries()) {
      const messagesFile = data.messagesPath(summary.body);
      if (!readFileSync(messagesFile, 'utf8').includes('"patch":')) continue;
      const header = JSON.parse(readFileSync(path.join(dataDir, summary.body), 'utf8')) as BodyHeader;
      const count = readBodyFileSync(dataDir, summary.body)!.session.messages.length;
      const starts = Array.from({ length: Math.ceil(count / 2) }, (_, i) => i * 2);
      if (starts.length < 2) continue;
      const kept = new PagedBody(messagesFile, header.session, starts);
      // None kept (every patch read where it is), and some kept and the rest read.
      for (const budget of [0, 400]) {
        const read = new PagedBody(messagesFile, header.session, starts, budget);
        for (let page = 1; page <= starts.length; page++) {
          expect(read.page(page), `${summary.id} page ${page}, ${budget} bytes kept`).toEqual(kept.page(page));
          expect(read.digest(page)).toBe(kept.digest(page));
        }
      }
      patchedPages += starts.length;
    }
    expect(patchedPages).toBeGreaterThan(3);
  });

  it('hashes a page from its bytes to the digest that reading it leaves, subagents, patches and damage included', async () => {
    const dataDir = path.join(await tempDir('paged-hash'), 'data');
    await collect({ home: FIXTURE_HOME, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } });
    const data = new DataDir(dataDir);
    let compared = 0;
    let spawnedOnEarlierPage = 0;
    const compareAll = (messagesFile: string, header: BodyHeader, starts: number[], budget?: number) => {
      const hashing = new PagedBody(messagesFile, header.session, starts, budget);
      const reading = new PagedBody(messagesFile, header.session, starts, budget);
      for (let page = 2; page <= starts.length; page++) {
        const hashed = hashing.hashPage(page);
        const shown = reading.page(page);
        expect(hashed, `${messagesFile} page ${page} of ${starts.length}`).toBe(reading.digest(page));
        if (page < starts.length && shown.subagents.length > 0) spawnedOnEarlierPage += 1;
        compared += 1;
      }
    };
    const summaries = await data.readSummaries();
    for (const summary of summaries) {
      const header = JSON.parse(readFileSync(path.join(dataDir, summary.body), 'utf8')) as BodyHeader;
      const count = readBodyFileSync(dataDir, summary.body)!.session.messages.length;
      for (const size of [1, 2, 3]) {
        const starts = Array.from({ length: Math.ceil(count / size) }, (_, i) => i * size);
        if (starts.length < 2) continue;
        for (const budget of [undefined, 0]) compareAll(data.messagesPath(summary.body), header, starts, budget);
      }
    }
    expect(compared).toBeGreaterThan(100);
    // Pages that show a subagent because one of their calls spawned it (not only the last page's leftovers).
    expect(spawnedOnEarlierPage).toBeGreaterThan(0);

    // A message line that does not parse costs itself only, in both, and the two digests still agree. (One with
    // patches would not agree: hashing does not parse it, so it hashes its patches too; its page is then made
    // again, which says what was damaged.)
    const summary = summaries.find((s) => s.source === 'claude-code')!;
    const messages = data.messagesPath(summary.body);
    const header = JSON.parse(readFileSync(path.join(dataDir, summary.body), 'utf8')) as BodyHeader;
    const text = readFileSync(messages, 'utf8');
    const lines = text.split('\n');
    const main = lines.filter((line) => line.startsWith('{"thread":"","message":'));
    const index = main.findIndex(
      (line, i) =>
        i > 0 &&
        !line.includes('"source_type":"tool_call"') &&
        !text.includes(`"patch":{"id":${JSON.stringify(messageOf(line).id)}`),
    );
    expect(index).toBeGreaterThan(0);
    lines[lines.indexOf(main[index]!)] = main[index]!.slice(0, -5);
    writeFileSync(messages, lines.join('\n'));
    const warnings: CollectWarning[] = [];
    setArchiveWarningSink((w) => warnings.push(w));
    try {
      compareAll(messages, header, [0, index, index + 1]);
    } finally {
      setArchiveWarningSink(undefined);
    }
    expect(warnings.filter((w) => w.message.startsWith('damaged line'))).toHaveLength(1); // reading it; hashing parses none of its lines but a call's
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
    expect(before[0]).toBeUndefined(); // the first page's key holds the whole summary: it needs none
    expect(before[1]).toMatch(/^[0-9a-f]{64}$/);
    expect(before[2]).toMatch(/^[0-9a-f]{64}$/);
    expect(before[1]).not.toBe(before[2]);
    expect(before).toEqual(digests());
    expect(open().digest!(2)).toBeUndefined(); // known only once the page was read

    // The session grows past page 2 (a message on its last page): page 2 reads the same bytes, page 3 more.
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
    expect(after[1]).not.toBe(before[1]);
    expect(after[2]).toBe(grown[2]);
  });

  it('skips a patch line that does not parse, with a warning naming it, and keeps every page', async () => {
    const dataDir = path.join(await tempDir('paged-bad-patch'), 'data');
    await collect({ home: FIXTURE_HOME, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } });
    const data = new DataDir(dataDir);
    const summary = (await data.readSummaries()).find((s) => s.source === 'claude-code')!;
    const starts = [0, 2];
    const open = () => openSessionPages(dataDir, summary.body, starts, (s, n) => sessionPage(s, starts, n))!;
    const before = [open().page(1), open().page(2)];
    const messages = data.messagesPath(summary.body);
    const offset = readFileSync(messages).length;
    appendFileSync(messages, `{"thread":"","patch":{"id":\n`);
    const warnings: CollectWarning[] = [];
    setArchiveWarningSink((w) => warnings.push(w));
    try {
      const pages = open();
      expect([pages.page(1), pages.page(2)]).toEqual(before);
    } finally {
      setArchiveWarningSink(undefined);
    }
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.file).toBe(messages);
    expect(warnings[0]!.message).toMatch(new RegExp(`^damaged line .*; ignored \\(at byte ${offset}\\)$`));
  });
});
