import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import type { NormalizedMessage } from '../../../src/model/message.ts';
import {
  messageRange,
  pagesInSite,
  sessionRecords,
  siteEntries,
  type SiteSession,
} from '../../../src/site/search/site-records.ts';
import {
  PageTextCache,
  type PageTextRow,
  pageTextRows,
  rowSpans,
  SessionTextCollector,
  textPart,
} from '../../../src/transcript/page-texts.ts';
import { dayOf } from '../../../src/stats/calendar.ts';
import { tempDir } from '../../helpers/paths.ts';

/** Main-thread rows 0…n-1 (a prompt and an answer each), over three pages; a subagent anchored to message 3. */
const main: PageTextRow[] = Array.from({ length: 40 }, (_, i) => ({
  ts: `2026-03-01T10:${String(i).padStart(2, '0')}:00.000Z`,
  kind: i % 2 ? 'answer' : 'prompt',
  index: i,
  text: `text ${i} 検索${i}`,
}));
const subagents: PageTextRow[] = [
  { ts: '2026-03-01T10:03:30.000Z', kind: 'answer', index: 3, text: 'subagent on page one' },
  // Anchored to a message of page 3, which the main rows reach last.
  { ts: '2026-03-01T10:35:30.000Z', kind: 'answer', index: 35, text: 'subagent on page three' },
];
const session: SiteSession = {
  key: 'claude-code/s1',
  source: 'claude-code',
  sessionId: 's1',
  cwd: '/home/u/work/app',
  title: 'A long session',
  startedAt: '2026-03-01T10:00:00.000Z',
  endedAt: '2026-03-01T10:40:00.000Z',
  pageStarts: [0, 12, 30],
  body: 'sessions/claude-code/s1.json',
  about: 'A long session\napp\n/home/u/work/app',
  bodyStamp: 'x',
  bodyBytes: 1,
  stamp: 'x',
  pages: [1, 2, 3],
};
const options = { timeZone: 'UTC', language: 'en' };

function inParts<T>(rows: T[], sizes: number[]): T[][] {
  const parts: T[][] = [];
  let at = 0;
  for (const size of sizes) parts.push(rows.slice(at, (at += size)));
  parts.push(rows.slice(at));
  return parts;
}

describe("a session's search texts in parts", () => {
  it('make the same records whether they come in one part or many, cut anywhere', () => {
    const whole = [...sessionRecords([main], subagents, session, options)];
    expect(whole.map((r) => r.page.url)).toEqual([
      'sessions/claude-code/s1/',
      'sessions/claude-code/s1/page/2/',
      'sessions/claude-code/s1/page/3/',
    ]);
    // Each page: the main thread's sections in order, then its subagents'; the session's own section first.
    const texts = whole.map((r) => ((JSON.parse(r.text) as unknown[])[3] as string[][]).map((s) => s[3]));
    expect(texts[0]![0]).toBe(session.about);
    expect(texts[0]!.slice(1, 3)).toEqual(['text 0 検索0', 'text 1 検索1']);
    expect(texts[0]!.at(-1)).toBe('subagent on page one');
    expect(texts[1]).toEqual(main.slice(12, 30).map((r) => r.text));
    expect(texts[2]!.at(-1)).toBe('subagent on page three');
    for (const sizes of [[1], [11, 1, 1], [12, 18], [5, 5, 5, 5, 5, 5, 5], [39]]) {
      expect([...sessionRecords(inParts(main, sizes), subagents, session, options)], String(sizes)).toEqual(whole);
    }
  });

  it("a page holding only a subagent's texts still has its record", () => {
    const withoutPage3 = main.filter((r) => r.index! < 30);
    const records = [...sessionRecords([withoutPage3], subagents, session, options)];
    expect(records.map((r) => r.page.meta.page)).toEqual(['1', '2', '3']);
    expect((JSON.parse(records[2]!.text) as unknown[])[3]).toEqual([
      ['m35', 'answer', subagents[1]!.ts, 'subagent on page three'],
    ]);
  });

  it("a huge session's pages are split into runs whose records together are the whole session's", () => {
    const chars = () => 1000;
    expect(siteEntries([session], chars, 1000).map((e) => e.entry)).toEqual([session.key]);
    const runs = siteEntries([session], chars, 400);
    expect(runs.map((e) => [e.entry, e.pages, e.chars])).toEqual([
      [`${session.key}#1-1`, [1], 333],
      [`${session.key}#2-2`, [2], 333],
      [`${session.key}#3-3`, [3], 333],
    ]);
    expect(new Set(runs.map((e) => e.stamp)).size).toBe(3);
    // Never more runs than pages; a run of two pages when the text asks for two runs of three pages.
    expect(siteEntries([session], chars, 10).length).toBe(3);
    expect(siteEntries([session], chars, 600).map((e) => e.pages)).toEqual([[1, 2], [3]]);

    const whole = [...sessionRecords([main], subagents, session, options)];
    const fromRuns = runs.flatMap((run) => [...sessionRecords([main], subagents, run, options)]);
    expect(fromRuns).toEqual(whole);
    // A run's records are its pages' only, the session's own section with page 1.
    const second = [...sessionRecords([main], subagents, runs[1]!, options)];
    expect(second.map((r) => r.page.meta.page)).toEqual(['2']);
    expect(messageRange(runs[1]!)).toEqual({ from: 12, to: 30 });
    expect(messageRange(runs[2]!)).toEqual({ from: 30, to: Infinity });
    expect(messageRange(runs[0]!)).toEqual({ from: 0, to: 12 });
  });

  it('leave the collector in parts of at least the size asked, in order, a page at a time', () => {
    const collector = new SessionTextCollector();
    const parts: PageTextRow[][] = [];
    const message = (i: number) =>
      ({
        id: `m${i}`,
        role: 'user',
        source_type: 'user_message',
        timestamp: `2026-03-01T10:${String(i).padStart(2, '0')}:00.000Z`,
        segments: [{ channel: 'user', type: 'text', text: `prompt number ${i}` }],
        metadata: { kind: 'prompt' },
      }) as unknown as NormalizedMessage;
    // Pages of three messages, the first at index 3p.
    for (let page = 0; page < 10; page++) {
      const messages = [0, 1, 2].map((i) => message(3 * page + i));
      collector.addPage(pageTextRows({ messages, subagents: [] }, 3 * page));
      const part = collector.takeMain(100);
      if (part) parts.push(part);
    }
    parts.push(collector.takeMain(0) ?? []);
    expect(parts.length).toBeGreaterThan(3);
    for (const part of parts.slice(0, -1))
      expect(part.reduce((n, r) => n + r.text.length, 0)).toBeGreaterThanOrEqual(100);
    expect(parts.flat().map((r) => r.index)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    expect(parts.flat().map((r) => r.text)).toEqual(Array.from({ length: 30 }, (_, i) => `prompt number ${i}`));
  });

  it("anchor a page's subagents at the call on the page that started each, or nowhere", () => {
    const at = (i: number) => `2026-03-01T10:${String(i).padStart(2, '0')}:00.000Z`;
    const call = (i: number, id: string) =>
      ({
        id: `c${i}`,
        role: 'assistant',
        source_type: 'tool_call',
        timestamp: at(i),
        segments: [],
        tool_call: { call_id: id, name: 'Task', arguments: '{}' },
        metadata: { kind: 'response' },
      }) as unknown as NormalizedMessage;
    const said = (i: number, text: string, role = 'assistant') =>
      ({
        id: `s${i}-${text}`,
        role,
        source_type: role === 'user' ? 'user_message' : 'assistant_message',
        timestamp: at(i),
        segments: [{ channel: role, type: 'text', text }],
        metadata: { kind: role === 'user' ? 'prompt' : 'response' },
      }) as unknown as NormalizedMessage;
    const rows = pageTextRows(
      {
        messages: [said(0, 'go', 'user'), call(1, 'call-a'), said(2, 'done')],
        subagents: [
          { agentId: 'a', parentCallId: 'call-a', file: 'a.jsonl', messages: [said(3, 'from a')] },
          { agentId: 'b', file: 'b.jsonl', messages: [said(4, 'from b')] },
          { agentId: 'c', parentCallId: 'elsewhere', file: 'c.jsonl', messages: [said(5, 'from c')] },
        ],
      },
      10,
    );
    expect(rows.main.map((r) => [r.index, r.kind, r.text])).toEqual([
      [10, 'prompt', 'go'],
      [12, 'answer', 'done'],
    ]);
    expect(rows.subagents.map(([agent, [row]]) => [agent, row!.index, row!.text])).toEqual([
      ['a', 11, 'from a'],
      ['b', null, 'from b'],
      ['c', null, 'from c'],
    ]);
  });

  it('are cached part by part; a session half written has no stamp, and part 0 starts it afresh', async () => {
    const dataDir = path.join(await tempDir('streamed-texts'), 'data');
    const cache = new PageTextCache(dataDir);
    try {
      const parts = inParts(main, [10, 10]);
      parts.forEach((rows, part) => cache.putPart(session.key, part, textPart(rows)));
      cache.putSubagents(session.key, textPart(subagents));
      expect(cache.stamps().get(session.key)!.stamp).toBe('');
      cache.finish(session.key, 'stamp-1');
      expect(cache.stamps().get(session.key)).toEqual({
        stamp: 'stamp-1',
        chars: [...main, ...subagents].reduce((n, r) => n + r.text.length, 0),
      });
      expect([...cache.mainRows(session.key)]).toEqual(parts);
      expect(cache.subagentRows(session.key)).toEqual(subagents);
      // Messages 12 to 29 (page 2): the parts that hold them, from rows 10–19 and 20–39.
      expect([...cache.mainRows(session.key, 12, 30)]).toEqual(parts.slice(1));
      expect([...cache.mainRows(session.key, 0, 10)]).toEqual(parts.slice(0, 1));
      expect([...cache.mainRows(session.key, 20, 21)]).toEqual(parts.slice(2));
      expect([...cache.mainRows(session.key, 40, Infinity)]).toEqual(parts.slice(2));

      cache.putPart(session.key, 0, textPart(main.slice(0, 2)));
      expect([...cache.mainRows(session.key)]).toEqual([main.slice(0, 2)]);
      expect(cache.subagentRows(session.key)).toEqual([]);
      expect(cache.stamps().get(session.key)!.stamp).toBe('');
    } finally {
      cache.close();
    }
  });
  it("hashes a range of messages' rows the same however the parts around it are cut, and by their content", async () => {
    const dataDir = path.join(await tempDir('streamed-texts-hash'), 'data');
    const cache = new PageTextCache(dataDir);
    const digest = (key: string, from: number, to: number) => {
      const hash = createHash('sha256');
      cache.hashMainRows(key, from, to, hash);
      return hash.digest('hex');
    };
    const put = (key: string, rows: PageTextRow[], sizes: number[]) =>
      inParts(rows, sizes).forEach((part, i) => cache.putPart(key, i, textPart(part)));
    try {
      put('a', main, [10, 10]); // parts of rows 0–9, 10–19, 20–39
      put('b', main, [5, 7, 3, 12]); // 0–4, 5–11, 12–14, 15–26, 27–39
      put('c', [...main, { ...main[0]!, index: 40, text: 'a later message' }], [10, 10]);
      put(
        'd',
        main.map((row) => (row.index === 15 ? { ...row, text: 'changed' } : row)),
        [10, 10],
      );
      // Each row's JSON and a comma, whichever way it was found; a text that looks like the bytes between rows too.
      const tricky = main.map((row) =>
        row.index === 13 ? { ...row, text: 'x"},{"ts":"y","kind":"prompt","index":99,"text":"z\\"},{' } : row,
      );
      put('e', tricky, [10, 10]);
      const reference = (rows: PageTextRow[], from: number, to: number) => {
        const hash = createHash('sha256');
        for (const row of rows) if (row.index! >= from && row.index! < to) hash.update(`${JSON.stringify(row)},`);
        return hash.digest('hex');
      };
      for (const [from, to] of [
        [12, 30],
        [0, 12],
        [30, Infinity],
        [13, 14],
        [5, 25],
      ] as const) {
        expect(digest('a', from, to), `${from}-${to}`).toBe(reference(main, from, to));
        expect(digest('b', from, to), `${from}-${to}`).toBe(reference(main, from, to));
        expect(digest('e', from, to), `${from}-${to}`).toBe(reference(tricky, from, to));
      }
      // Found by their bytes, not parsed: each row's span and index, the tricky text's too.
      const json = Buffer.from(textPart(tricky).json);
      const spans = rowSpans(json)!;
      expect(spans.map((span) => span.index)).toEqual(tricky.map((row) => row.index));
      expect(spans.map(({ start, end }) => json.toString('utf8', start, end))).toEqual(
        tricky.map((row) => JSON.stringify(row)),
      );
      const page2 = digest('a', 12, 30);
      expect(digest('b', 12, 30)).toBe(page2);
      expect(digest('c', 12, 30)).toBe(page2);
      expect(digest('d', 12, 30)).not.toBe(page2);
      expect(digest('d', 0, 12)).toBe(digest('a', 0, 12));
      expect(digest('a', 30, Infinity)).not.toBe(digest('c', 30, Infinity));
      expect(digest('a', 10, 20)).toBe(digest('b', 10, 20)); // one whole part in a, pieces of three in b
    } finally {
      cache.close();
    }
  });

  it('from a cache of an older version (rows as text, no first message): emptied, so every session is read again', async () => {
    const dataDir = path.join(await tempDir('streamed-texts-old'), 'data');
    const file = path.join(dataDir, 'cache', 'site-search', 'texts.sqlite');
    mkdirSync(path.dirname(file), { recursive: true });
    const old = new Database(file);
    old.pragma('user_version = 3');
    old.exec(
      'CREATE TABLE texts (key TEXT NOT NULL, part INTEGER NOT NULL, stamp TEXT NOT NULL, ' +
        'chars INTEGER NOT NULL, rows TEXT NOT NULL, PRIMARY KEY (key, part))',
    );
    const parts = inParts(main, [10, 10]);
    const insert = old.prepare("INSERT INTO texts VALUES (?, ?, 'stamp-1', 1, ?)");
    parts.forEach((rows, part) => insert.run(session.key, part, JSON.stringify(rows)));
    old.close();
    const cache = new PageTextCache(dataDir);
    try {
      expect(cache.stamps().size).toBe(0);
      const probe = new Database(file, { readonly: true });
      const rowsType = probe.prepare("SELECT type FROM pragma_table_info('texts') WHERE name = 'rows'").pluck().get();
      probe.close();
      expect(rowsType).toBe('BLOB');
      parts.forEach((rows, part) => cache.putPart(session.key, part, textPart(rows)));
      cache.finish(session.key, 'stamp-2');
      expect(cache.stamps().get(session.key)).toEqual({
        stamp: 'stamp-2',
        chars: main.reduce((n, r) => n + r.text.length, 0),
      });
      expect([...cache.mainRows(session.key, 12, 30)]).toEqual(parts.slice(1));
    } finally {
      cache.close();
    }
  });
  it("keeps a session's stamp apart from its rows, and forgetting a session drops both", async () => {
    const dataDir = path.join(await tempDir('streamed-texts-stamps'), 'data');
    const file = path.join(dataDir, 'cache', 'site-search', 'texts.sqlite');
    mkdirSync(path.dirname(file), { recursive: true });
    // A cache of version 4 kept the stamp in every row: emptied.
    const old = new Database(file);
    old.pragma('user_version = 4');
    old.exec(
      'CREATE TABLE texts (key TEXT NOT NULL, part INTEGER NOT NULL, stamp TEXT NOT NULL, ' +
        'chars INTEGER NOT NULL, first INTEGER, rows BLOB NOT NULL, PRIMARY KEY (key, part))',
    );
    old.prepare("INSERT INTO texts VALUES (?, 0, 'stamp-0', 1, 0, ?)").run(session.key, Buffer.from('[]'));
    old.close();
    const parts = inParts(main, [12, 18]);
    const cache = new PageTextCache(dataDir);
    try {
      expect(cache.stamps().size).toBe(0);
      cache.putPart(session.key, 0, textPart(parts[0]!));
      cache.putPart(session.key, 1, textPart(parts[1]!));
      const probe = new Database(file, { readonly: true });
      // Rows hold no stamp, so setting one writes no row again.
      expect(probe.prepare("SELECT name FROM pragma_table_info('texts')").pluck().all()).not.toContain('stamp');
      cache.putLast(session.key, 2, textPart(parts[2]!), textPart(subagents), 'stamp-1');
      expect(cache.stamps().get(session.key)?.stamp).toBe('stamp-1');
      expect(cache.subagentRows(session.key)).toEqual(subagents);
      // Read again from part 0: half written until its last part is in.
      cache.putPart(session.key, 0, textPart(parts[0]!));
      expect(cache.stamps().get(session.key)?.stamp).toBe('');
      cache.putLast(session.key, 1, textPart([...parts[1]!, ...parts[2]!]), textPart([]), 'stamp-2');
      expect(cache.stamps().get(session.key)).toEqual({
        stamp: 'stamp-2',
        chars: main.reduce((n, r) => n + r.text.length, 0),
      });
      cache.put('claude-code/s2', 'stamp-3', { main: [], subagents: [] });
      cache.keepOnly(new Set());
      expect(cache.stamps().size).toBe(0);
      expect(probe.prepare('SELECT COUNT(*) FROM stamps').pluck().get()).toBe(0);
      probe.close();
    } finally {
      cache.close();
    }
  });
  it("a page's months are those of its texts' times in the build's zone, near a month's ends too", () => {
    const times = [
      '2026-02-28T23:30:00.000Z',
      '2026-03-01T00:10:00.000Z',
      '2026-03-02T13:00:00.000Z',
      '2026-03-03T00:00:00.000Z',
      '2026-03-15T12:00:00.000+09:00',
      '2026-03-26T23:59:00.000Z',
      '2026-03-27T11:00:00.000Z',
      '2026-03-31T23:00:00.000-10:00',
      '2026-12-31T20:00:00.000Z',
      'not a time',
    ];
    for (const timeZone of ['UTC', 'Pacific/Kiritimati', 'Pacific/Pago_Pago', 'Asia/Kathmandu']) {
      for (const ts of times) {
        const rows: PageTextRow[] = [{ ts, kind: 'prompt', index: 0, text: 'a prompt' }];
        const single = { ...session, pageStarts: undefined, pages: [1] };
        const [record] = [...sessionRecords([rows], [], single, { timeZone, language: 'en' })];
        const expected = Number.isNaN(Date.parse(ts))
          ? [session.startedAt, ts]
              .filter((t) => !Number.isNaN(Date.parse(t)))
              .map((t) => dayOf(t, timeZone).slice(0, 7))
          : [...new Set([session.startedAt, ts].map((t) => dayOf(t, timeZone).slice(0, 7)))];
        expect(record!.page.filters.month!.sort(), `${ts} in ${timeZone}`).toEqual([...new Set(expected)].sort());
      }
    }
  });

  it("a session's pages in the site are those whose files the build has (with --since, a share of some: none)", () => {
    const has = (files: string[]) => (file: string) => files.includes(file);
    const page2 = 'sessions/claude-code/s1/page/2/index.html';
    expect(pagesInSite(session, false, has([page2, 'sessions/claude-code/s1/page/3/index.html']))).toEqual([2, 3]);
    expect(pagesInSite(session, false, has([]))).toEqual([]);
    // A single-page share has page 1 only, whatever pages the session has.
    expect(pagesInSite(session, true, has(['sessions/claude-code/s1/index.html', page2]))).toEqual([1]);
  });
});
