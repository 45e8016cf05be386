import { promises as fs } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { DataDir } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { readSessionTexts, sessionAbout } from '../../src/transcript/page-texts.ts';
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
        const { main, subagents } = readSessionTexts(dataDir, summary);
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
