import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import { idToPathSegment } from '../../src/model/ids.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { createQDatabase } from '../helpers/amazonq-db.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/paths.ts';
import { qState, walkTree } from './make.ts';

/** The file-name mapping of data directories written before idToPathSegment. */
const oldSafeName = (id: string) => id.replace(/[^A-Za-z0-9._-]/g, '_');

async function summaries(data: string): Promise<SessionSummary[]> {
  return JSON.parse(await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8')) as SessionSummary[];
}

describe('data directories written with the old file-name mapping', () => {
  it('load as they are, and move to the new names when their sessions are written again', async () => {
    const home = await tempDir('hostile-migrate');
    const data = path.join(home, 'data');
    const db = path.join(home, '.local', 'share', 'kiro-cli', 'data.sqlite3');
    const ids = ['Old Id', 'kept/one'];
    const rows = (answer: string) =>
      ids.map((id, i) => ({
        key: `/w/${i}`,
        state: qState(id, `prompt ${i}`, `${answer} ${i}`),
        createdAt: 1,
        updatedAt: 2,
      }));
    await createQDatabase(db, { conversations: [], conversationsV2: rows('first') });
    const args = ['collect', '--home', home, '--data', data];
    expect((await runCli(args)).code).toBe(0);

    // Turn the archive into what the old version wrote: bodies under safeName, summaries pointing there.
    const index = path.join(data, 'index', 'sessions.json');
    let text = await fs.readFile(index, 'utf8');
    for (const id of ids) {
      const now = `sessions/amazon-q/${idToPathSegment(id)}`;
      const old = `sessions/amazon-q/${oldSafeName(id)}`;
      const header = JSON.parse(await fs.readFile(path.join(data, `${now}.json`), 'utf8'));
      header.summary.body = `${old}.json`;
      header.messages = path.basename(`${old}.messages.jsonl`);
      await fs.writeFile(path.join(data, `${old}.json`), JSON.stringify(header));
      await fs.rename(path.join(data, `${now}.messages.jsonl`), path.join(data, `${old}.messages.jsonl`));
      await fs.rm(path.join(data, `${now}.json`));
      text = text.replaceAll(JSON.stringify(`${now}.json`), JSON.stringify(`${old}.json`));
    }
    await fs.writeFile(index, text);
    await fs.rm(path.join(data, 'cache'), { recursive: true, force: true });

    // Read as it is: summaries name their bodies.
    for (const summary of await summaries(data)) {
      expect(summary.body).toBe(`sessions/amazon-q/${oldSafeName(summary.sessionId)}.json`);
      const body = await readBodyFile(data, summary.body);
      expect(body!.session.sessionId).toBe(summary.sessionId);
    }
    const unchanged = await runCli(args);
    expect(unchanged.code, unchanged.stderr).toBe(0);

    // Q rewrites the conversations: both are written again, under the new names, and the old files go.
    await createQDatabase(db, {
      conversations: [],
      conversationsV2: rows('second'),
      mtime: new Date('2026-03-21T00:00:00Z'),
    });
    const next = await runCli(args);
    expect(next.code, next.stderr).toBe(0);
    const after = await summaries(data);
    expect(after.map((s) => s.body).sort()).toEqual(
      ids.map((id) => `sessions/amazon-q/${idToPathSegment(id)}.json`).sort(),
    );
    for (const [i, id] of ids.entries()) {
      const summary = after.find((s) => s.sessionId === id)!;
      const body = await readBodyFile(data, summary.body);
      expect(body!.session.messages.flatMap((m) => m.segments.map((s) => s.text))).toContain(`second ${i}`);
    }
    expect((await walkTree(path.join(data, 'sessions'))).sort()).toEqual(
      [
        'amazon-q',
        ...ids.flatMap((id) => [
          `amazon-q/${idToPathSegment(id)}.json`,
          `amazon-q/${idToPathSegment(id)}.messages.jsonl`,
        ]),
      ].sort(),
    );
  });
});
