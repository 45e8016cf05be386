import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDir, readBodyFileSync } from '../../src/archive/data-dir.ts';
import type { BodyHeader } from '../../src/archive/body-format.ts';
import { PagedBody } from '../../src/archive/paged-body.ts';
import { buildSite } from '../../src/cli/build-site.ts';
import { PageTextCache } from '../../src/transcript/page-texts.ts';
import { sessionPage } from '../../src/transcript/session-view.ts';
import { ensureSearchIndex } from '../../src/search/sync.ts';
import { searchIndexPath } from '../../src/search/store.ts';
import Database from 'better-sqlite3';
import { collectHome } from '../helpers/markdown-home.ts';
import { sessionMarkdownOf } from '../helpers/markdown-packs.ts';
import { fixtureBuild } from '../helpers/paths.ts';
import { writeSubagent, writeTurns } from '../helpers/transcripts.ts';

const SESSION_ID = 'cafe0000-0000-4000-8000-00000000005a';
const OUTER = 'a1a1a1a1a1a1a1a1a';
/** Listed before the subagent that spawned it (Claude Code's subagents are in the order of their files' names). */
const INNER = '0c0c0c0c0c0c0c0c0';
/** The turn whose answer spawns the outer subagent: on a page neither the first nor the last (a page after the
 * first is also compared by its digest from the bytes alone). */
const SPAWNING_TURN = 200;
const SINGLE_PAGE_SESSION = 'cafe0000-0000-4000-8000-00000000005b';

/** A subagent started by the call `callId` whose answer starts `inner` (by the Task call `inner.callId`). */
async function writeChain(
  transcript: string,
  callId: string,
  outer: { id: string; task: string; answer: string },
  inner: { id: string; callId: string; task: string; answer: string },
): Promise<void> {
  await writeSubagent(transcript, {
    ...outer,
    callId,
    answer: [
      { type: 'text', text: outer.answer },
      { type: 'tool_use', id: inner.callId, name: 'Task', input: { prompt: inner.task } },
    ],
  });
  await writeSubagent(transcript, inner);
}

describe('a subagent spawned by another subagent, in a session of several pages', { timeout: 300_000 }, () => {
  it('is shown under its call on the page of the call that spawned its parent, and found there by the search', async () => {
    const { home, data: dataDir, out: outDir } = await fixtureBuild('nested-subagents');
    const transcript = await writeTurns(home, SESSION_ID, 400, '2026-03-07T09:00:00.000Z', (t) => ({
      prompt: `question ${t}`,
      answer:
        t === SPAWNING_TURN
          ? [
              { type: 'text', text: 'Asking a helper.' },
              { type: 'tool_use', id: 'toolu_outer', name: 'Task', input: { prompt: 'outer task: survey the repo' } },
            ]
          : `answer ${t}`,
    }));
    await writeChain(
      transcript,
      'toolu_outer',
      { id: OUTER, task: 'outer task: survey the repo', answer: 'outer answer: asking another helper' },
      { id: INNER, callId: 'toolu_inner', task: 'inner task: read the tests', answer: 'inner answer: the tests pass' },
    );
    // A short session whose subagent's spawning call is unknown (shown loose at the end), with a subagent of its own.
    const short = await writeTurns(home, SINGLE_PAGE_SESSION, 2, '2026-03-08T09:00:00.000Z', (t) => ({
      prompt: `short question ${t}`,
      answer: `short answer ${t}`,
    }));
    await writeChain(
      short,
      'toolu_not_recorded',
      { id: 'b3b3b3b3b3b3b3b3b', task: 'loose task', answer: 'loose answer: asking a helper' },
      { id: '0d0d0d0d0d0d0d0d0', callId: 'toolu_loose_inner', task: 'loose inner task', answer: 'loose inner answer' },
    );
    await collectHome(home, dataDir);
    const summary = (await new DataDir(dataDir).readSummaries()).find((s) => s.sessionId === SESSION_ID)!;
    const starts = summary.pageStarts!;
    const whole = readBodyFileSync(dataDir, summary.body)!.session;
    const callIndex = whole.messages.findIndex((m) => m.tool_call?.call_id === 'toolu_outer');
    expect(callIndex).toBeGreaterThan(2 * SPAWNING_TURN);
    const callPage = starts.findLastIndex((start) => start <= callIndex) + 1;
    expect(callPage).toBeGreaterThan(1);
    expect(callPage).toBeLessThan(starts.length);

    // The archive's page reader gives that page both subagents, as cutting the whole session does.
    const header = JSON.parse(readFileSync(path.join(dataDir, summary.body), 'utf8')) as BodyHeader;
    const messagesFile = new DataDir(dataDir).messagesPath(summary.body);
    const paged = new PagedBody(messagesFile, header.session, starts);
    const hashing = new PagedBody(messagesFile, header.session, starts);
    for (let page = 1; page <= starts.length; page++) {
      const expected = sessionPage(whole, starts, page);
      expect(paged.page(page), `page ${page}`).toEqual(expected);
      expect(expected.subagents.map((a) => a.agentId)).toEqual(page === callPage ? [OUTER, INNER] : []);
      if (page > 1) expect(hashing.hashPage(page)).toBe(paged.digest(page));
    }

    await buildSite({ dataDir, outDir, timeZone: 'UTC', onWarning: () => {} });
    const sessionDir = path.join(outDir, 'sessions', 'claude-code', SESSION_ID);
    const pageFile = (page: number) => path.join(sessionDir, ...(page > 1 ? ['page', String(page)] : []), 'index.html');
    const shown = await fs.readFile(pageFile(callPage), 'utf8');
    // Under the outer subagent's call, before the main thread goes on (not left at the end of the page).
    const at = (text: string) => shown.indexOf(text);
    expect(at('outer answer: asking another helper')).toBeGreaterThan(at('Asking a helper.'));
    expect(at('inner answer: the tests pass')).toBeGreaterThan(at('outer answer: asking another helper'));
    expect(at('inner answer: the tests pass')).toBeLessThan(at(`question ${SPAWNING_TURN + 1}</div`));
    // The session's Markdown nests it a level deeper too.
    const markdown = await sessionMarkdownOf(outDir, 'claude-code', SESSION_ID);
    expect(markdown).toMatch(
      /\n### Subagent · Explore: outer task[^]*\n#### Subagent · Explore: inner task[^]*inner answer/,
    );
    for (let page = 1; page <= starts.length; page++) {
      if (page === callPage) continue;
      expect(await fs.readFile(pageFile(page), 'utf8'), `page ${page}`).not.toContain('inner answer');
    }
    // In a session of one page, a loose subagent's own subagent is under its call too, and shown once.
    const single = await fs.readFile(
      path.join(outDir, 'sessions', 'claude-code', SINGLE_PAGE_SESSION, 'index.html'),
      'utf8',
    );
    expect(single.split('loose inner answer')).toHaveLength(2);
    expect(single.indexOf('loose inner answer')).toBeGreaterThan(single.indexOf('loose answer: asking a helper'));

    // Both subagents' texts are anchored to the main-thread call that started the chain, in the site's search
    // texts and in the command line's index alike.
    const texts = new PageTextCache(dataDir, { readonly: true });
    try {
      expect(texts.subagentRows(summary.id).map((r) => [r.index, r.text])).toEqual([
        [callIndex, 'outer task: survey the repo'],
        [callIndex, 'outer answer: asking another helper'],
        [callIndex, 'inner task: read the tests'],
        [callIndex, 'inner answer: the tests pass'],
      ]);
    } finally {
      texts.close();
    }
    await ensureSearchIndex(dataDir);
    const db = new Database(searchIndexPath(dataDir), { readonly: true });
    try {
      const rows = db
        .prepare(
          'SELECT m.message_index AS i, m.text FROM messages m JOIN sessions s ON s.id = m.session ' +
            "WHERE s.key = ? AND m.text LIKE 'inner %' ORDER BY m.text",
        )
        .all(summary.id);
      expect(rows).toEqual([
        { i: callIndex, text: 'inner answer: the tests pass' },
        { i: callIndex, text: 'inner task: read the tests' },
      ]);
    } finally {
      db.close();
    }
  });
});
