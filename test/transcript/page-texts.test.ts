import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DataDir } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import {
  PageTextGatherer,
  readSessionTexts,
  SessionTextCollector,
  sessionAbout,
} from '../../src/transcript/page-texts.ts';
import { MAIN_THREAD } from '../../src/model/body.ts';
import type { NormalizedMessage } from '../../src/model/message.ts';
import { openSessionPages } from '../../src/archive/data-dir.ts';
import { sessionPage } from '../../src/transcript/session-view.ts';
import { searchIndexPath } from '../../src/search/store.ts';
import { ensureSearchIndex } from '../../src/search/sync.ts';
import { tempDir } from '../helpers/paths.ts';

const site = inject('site');
let dataDir: string;
let summaries: SessionSummary[];

beforeAll(async () => {
  // A copy of the fixture site's data directory, so that the search index made here is this file's own.
  dataDir = path.join(await tempDir('page-texts'), 'data');
  await fs.cp(site.dataDir, dataDir, { recursive: true });
  summaries = await new DataDir(dataDir).readSummaries();
  await ensureSearchIndex(dataDir);
});

describe('the site index texts, read from the archive', () => {
  it('are the prompts and answers the search index holds for every fixture session, anchored alike', async () => {
    const db = new Database(searchIndexPath(dataDir), { readonly: true });
    try {
      const query = db.prepare(
        "SELECT m.ts, m.kind, m.message_index AS i, m.text FROM messages m JOIN sessions s ON s.id = m.session WHERE s.key = ? AND m.kind IN ('prompt', 'answer', 'session')",
      );
      for (const summary of summaries) {
        const own = { ts: summary.startedAt, kind: 'session', index: null, text: sessionAbout(summary) };
        const { main, subagents } = await readSessionTexts(dataDir, summary.body);
        const rows = [own, ...main.flat(), ...subagents].map((r) => ({
          ...r,
          ts: r.ts || summary.startedAt,
        }));
        const fromArchive = rows.map((r) => `${r.ts}|${r.kind}|${r.index}|${r.text}`).sort();
        const indexed = (query.all(summary.id) as { ts: string; kind: string; i: number | null; text: string }[])
          .map((r) => `${r.ts}|${r.kind}|${r.i}|${r.text}`)
          .sort();
        expect(fromArchive, summary.id).toEqual(indexed);
      }
      expect(summaries.length).toBeGreaterThan(5);
      // Subagents' texts are among them (anchored at the call that started each).
      expect(summaries.some((s) => s.subagents > 0)).toBe(true);
    } finally {
      db.close();
    }
  });
});

describe('the site index texts, gathered from the pages as they are read', () => {
  /** The session cut into pages: as its summary has them, or at every fourth main-thread message. */
  const pagings = (summary: SessionSummary, count: number): number[][] => {
    const cut = Array.from({ length: Math.ceil(count / 4) }, (_, i) => i * 4);
    return [summary.pageStarts ?? [0], cut.length > 1 ? cut : [0]];
  };

  it('are the rows read from the body, for every fixture session read a page at a time in order', async () => {
    let paged = 0;
    let withSubagents = 0;
    for (const summary of summaries) {
      const whole = await readSessionTexts(dataDir, summary.body);
      const all = openSessionPages(dataDir, summary.body, [0], (session) => session)!;
      const count = all.page(1).messages.length;
      for (const starts of pagings(summary, count)) {
        const pages = openSessionPages(dataDir, summary.body, starts, (session, n) => sessionPage(session, starts, n))!;
        const gatherer = new PageTextGatherer(starts.length, pages.subagents);
        const onPages = new Map<string, number>();
        for (let page = 1; page <= starts.length; page++) {
          const read = pages.page(page);
          for (const agent of read.subagents) onPages.set(agent.agentId, (onPages.get(agent.agentId) ?? 0) + 1);
          gatherer.page(page, read);
          gatherer.page(page, read); // a page read again (the Markdown export) adds nothing
        }
        const each = pages.subagents.every((agent) => onPages.get(agent.agentId) === 1);
        const texts = gatherer.take();
        if (!each) {
          // A subagent whose call is on no page, or on two: the pass reads the body instead.
          expect(texts, summary.id).toBeUndefined();
          continue;
        }
        expect(texts, `${summary.id} in ${starts.length} pages`).toEqual(whole);
        if (starts.length > 1) paged += 1;
        if (whole.subagents.length > 0) withSubagents += 1;
        expect(gatherer.take(), 'taken once').toBeUndefined();
      }
    }
    expect(paged).toBeGreaterThan(3);
    expect(withSubagents).toBeGreaterThan(0);
  });

  it('are none when a page was passed over', () => {
    const summary = summaries.find((s) => s.subagents > 0)!;
    const starts = [0, 2];
    const pages = openSessionPages(dataDir, summary.body, starts, (session, n) => sessionPage(session, starts, n))!;
    const gatherer = new PageTextGatherer(2, pages.subagents);
    gatherer.page(2, pages.page(2));
    gatherer.page(1, pages.page(1));
    expect(gatherer.take()).toBeUndefined();
    const partial = new PageTextGatherer(2, pages.subagents);
    partial.page(1, pages.page(1));
    expect(partial.take(), 'the last page not read').toBeUndefined();
  });
});

describe("subagents' texts", () => {
  const said = (id: string, role: 'user' | 'assistant', text: string, call?: string) =>
    ({
      id,
      role,
      source_type: call ? 'tool_call' : 'message',
      timestamp: '2026-03-01T10:00:00.000Z',
      segments: [{ channel: 'main', type: 'text', format: 'markdown', text }],
      ...(call ? { tool_call: { call_id: call, name: 'Task', status: 'completed' } } : {}),
      metadata: {},
    }) as unknown as NormalizedMessage;
  const header = [
    { agentId: 'b', parentCallId: 'call-b' },
    { agentId: 'a', parentCallId: 'call-a' },
    { agentId: 'orphan', parentCallId: 'call-none' },
  ];

  it('come a subagent after another in the header order, each in its own order, however the body interleaves them', () => {
    const collector = new SessionTextCollector();
    collector.add(MAIN_THREAD, said('m1', 'user', 'start both'));
    collector.add(MAIN_THREAD, said('m2', 'assistant', '', 'call-a'));
    collector.add(MAIN_THREAD, said('m3', 'assistant', '', 'call-b'));
    collector.add('a', said('a1', 'user', 'a first'));
    collector.add('b', said('b1', 'user', 'b first'));
    collector.add('a', said('a2', 'assistant', 'a second'));
    collector.add('unlisted', said('u1', 'user', 'not on any page'));
    collector.add('b', said('b2', 'assistant', 'b second'));
    collector.add('orphan', said('o1', 'user', 'its call is not in the session'));
    const rows = collector.subagentRows(header);
    expect(rows.map((r) => [r.text, r.index])).toEqual([
      ['b first', 2],
      ['b second', 2],
      ['a first', 1],
      ['a second', 1],
      ['its call is not in the session', null],
    ]);
  });

  it('are the same gathered a page at a time, with each subagent on the page of its call', () => {
    const gatherer = new PageTextGatherer(2, header);
    const agent = (agentId: string, messages: NormalizedMessage[]) => ({
      ...header.find((h) => h.agentId === agentId)!,
      messages,
    });
    gatherer.page(1, {
      messages: [said('m1', 'user', 'start both'), said('m2', 'assistant', '', 'call-a')],
      subagents: [agent('a', [said('a1', 'user', 'a first'), said('a2', 'assistant', 'a second')])],
    } as never);
    gatherer.page(2, {
      messages: [said('m3', 'assistant', '', 'call-b')],
      subagents: [
        agent('b', [said('b1', 'user', 'b first'), said('b2', 'assistant', 'b second')]),
        agent('orphan', [said('o1', 'user', 'its call is not in the session')]),
      ],
    } as never);
    const texts = gatherer.take()!;
    expect(texts.main.flat().map((r) => [r.text, r.index])).toEqual([['start both', 0]]);
    expect(texts.subagents.map((r) => [r.text, r.index])).toEqual([
      ['b first', 2],
      ['b second', 2],
      ['a first', 1],
      ['a second', 1],
      ['its call is not in the session', null],
    ]);
  });
});
