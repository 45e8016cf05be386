import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { copyFixtureHome, COUNTED_ASSISTANTS, SESSION, tempDir } from '../helpers/paths.ts';

async function run(home: string, dataDir: string) {
  return collect({ home, env: {}, dataDir, sourceOptions: { explicitHome: 'true', assistants: COUNTED_ASSISTANTS } });
}

/** What a collect produced, without what depends on when or how it ran. */
async function snapshot(dataDir: string): Promise<Map<string, unknown>> {
  const out = new Map<string, unknown>();
  const summaries = JSON.parse(
    await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8'),
  ) as SessionSummary[];
  for (const { collectedAt: _c, fileStamps: _f, ...summary } of summaries) {
    const body = (await readBodyFile(dataDir, summary.body))!;
    const { summary: _s, ...rest } = body;
    out.set(summary.id, { summary, body: rest });
  }
  return out;
}

describe('incremental collect', () => {
  it('gives exactly what a cold collect gives after appends, truncation, replacement, deletion and touch', async () => {
    const home = await copyFixtureHome();
    const incremental = path.join(await tempDir('inc'), 'data');
    const first = await run(home, incremental);
    const webapp = path.join(home, '.claude', 'projects', '-home-alice-work-webapp');
    const api = path.join(home, '.claude', 'projects', '-home-alice-work-api');

    // Append a new exchange to E.
    const e = path.join(webapp, `${SESSION.E}.jsonl`);
    const last = JSON.parse((await fs.readFile(e, 'utf8')).trim().split('\n').pop()!);
    const more = [
      {
        ...last,
        type: 'user',
        uuid: 'inc-u1',
        parentUuid: last.uuid,
        timestamp: '2026-03-05T08:10:00.000Z',
        message: { role: 'user', content: 'One more question.' },
      },
      {
        ...last,
        uuid: 'inc-a1',
        parentUuid: 'inc-u1',
        timestamp: '2026-03-05T08:10:05.000Z',
        message: { ...last.message, id: 'msg_inc_1', content: [{ type: 'text', text: 'One more answer.' }] },
      },
    ];
    await fs.appendFile(e, `${more.map((r) => JSON.stringify(r)).join('\n')}\n`);
    // Truncate D to its first 4 lines (a rewritten file).
    const d = path.join(webapp, `${SESSION.D}.jsonl`);
    await fs.writeFile(d, `${(await fs.readFile(d, 'utf8')).split('\n').slice(0, 4).join('\n')}\n`);
    // Replace F by a rewritten copy (a new file renamed over it, as editors and sync tools do).
    const f = path.join(api, `${SESSION.F}.jsonl`);
    const rewritten = (await fs.readFile(f))
      .toString('latin1')
      .replace('List the API endpoints', 'List the API routes');
    await fs.writeFile(`${f}.new`, Buffer.from(rewritten, 'latin1'));
    await fs.rename(`${f}.new`, f);
    // Delete A (and its subagent); touch B without changing it.
    await fs.rm(path.join(webapp, `${SESSION.A}.jsonl`));
    await fs.rm(path.join(webapp, SESSION.A), { recursive: true });
    const b = path.join(webapp, `${SESSION.B}.jsonl`);
    const later = new Date(Date.now() + 60_000);
    await fs.utimes(b, later, later);

    const second = await run(home, incremental);
    const claude = second.sources.find((s) => s.id === 'claude-code')!;
    // Read: E (grew), D (truncated), F (replaced), B (touched); C untouched; A gone.
    expect(claude.sessions).toBe(4);
    expect(claude.unchanged).toBe(1);
    // E only grew and B is the same bytes: both read on from where the first collect stopped.
    expect(claude.resumed).toBe(2);
    expect(first.sources.find((s) => s.id === 'codex')!.sessions).toBe(7);
    expect(second.sources.find((s) => s.id === 'codex')!.unchanged).toBe(7);

    const cold = path.join(await tempDir('cold'), 'data');
    await run(home, cold);
    const got = await snapshot(incremental);
    const want = await snapshot(cold);
    // The deleted session stays in the archive, marked as gone from its source; nothing else differs.
    const archived = got.get(`claude-code/${SESSION.A}`) as { summary: SessionSummary };
    expect(archived.summary.sourcePresent).toBe(false);
    got.delete(`claude-code/${SESSION.A}`);
    expect([...got.keys()].sort()).toEqual([...want.keys()].sort());
    for (const [id, value] of want) expect(got.get(id), id).toEqual(value);
    // The appended exchange and the rewritten prompt are there.
    expect((want.get(`claude-code/${SESSION.F}`) as { summary: SessionSummary }).summary.title).toMatch(
      /^List the API routes/,
    );
    const eBody = want.get(`claude-code/${SESSION.E}`) as { summary: SessionSummary };
    expect(eBody.summary.stats.prompts).toBe(2);
  });

  it('re-reads nothing when nothing changed', async () => {
    const home = await copyFixtureHome();
    const data = path.join(await tempDir('inc'), 'data');
    await run(home, data);
    const before = await snapshot(data);
    const again = await run(home, data);
    expect(again.sources.map((s) => [s.id, s.sessions])).toEqual([
      ['claude-code', 0],
      ['codex', 0],
      ['amazon-q', 0],
    ]);
    expect(again.sources.map((s) => s.unchanged)).toEqual([6, 7, 4]);
    expect(await snapshot(data)).toEqual(before);
  });

  it('reads a file again when another took its place with the same size and mtime', async () => {
    const home = await copyFixtureHome();
    const data = path.join(await tempDir('inc'), 'data');
    await run(home, data);
    const f = path.join(home, '.claude', 'projects', '-home-alice-work-api', `${SESSION.F}.jsonl`);
    const before = await fs.stat(f);
    const text = (await fs.readFile(f)).toString('latin1');
    expect(text).toContain('List the API endpoints');
    // Same length, same mtime, other bytes (a sync tool restoring an edited copy).
    await fs.writeFile(
      `${f}.new`,
      Buffer.from(text.replace('List the API endpoints', 'List the API resources'), 'latin1'),
    );
    await fs.utimes(`${f}.new`, before.atimeMs / 1000, before.mtimeMs / 1000);
    await fs.rename(`${f}.new`, f);
    expect((await fs.stat(f)).size).toBe(before.size);
    const again = await run(home, data);
    expect(again.sources.find((s) => s.id === 'claude-code')!.sessions).toBe(1);
    const summaries = JSON.parse(
      await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8'),
    ) as SessionSummary[];
    expect(summaries.find((s) => s.sessionId === SESSION.F)!.title).toContain('List the API resources');
  });

  it('writes nothing to the data directory when nothing changed', async () => {
    const home = await copyFixtureHome();
    const data = path.join(await tempDir('inc'), 'data');
    await run(home, data);
    const written = await fileTimes(data);
    await run(home, data);
    expect(await fileTimes(data)).toEqual(written);
    expect([...written.keys()]).toContain('prompts/codex.json');
    expect([...written.keys()]).toContain(path.join('cache', 'codex-heads.json'));
  });

  it("keeps each Codex rollout's head while the file is unchanged, and reads it again when it changed", async () => {
    const home = await copyFixtureHome();
    const data = path.join(await tempDir('inc'), 'data');
    await run(home, data);
    const cacheFile = path.join(data, 'cache', 'codex-heads.json');
    type Heads = Record<string, { stamp: string; head: { id: string; cwd?: string; forkedFrom?: string } }>;
    const heads = async () => (JSON.parse(await fs.readFile(cacheFile, 'utf8')) as { heads: Heads }).heads;
    const codex = path.join(home, '.codex');
    const day5 = path.join(codex, 'sessions', '2026', '03', '05');
    const api = path.join(day5, 'rollout-2026-03-05T08-30-00-019cb1a0-0002-7000-8000-000000000002.jsonl');
    const fork = path.join(day5, 'rollout-2026-03-05T20-00-00-019cb1a0-0003-7000-8000-000000000003.jsonl');
    const archived = path.join(
      codex,
      'archived_sessions',
      'rollout-2026-03-06T18-00-00-019cb1a0-0005-7000-8000-000000000005.jsonl',
    );
    const first = await heads();
    expect(Object.keys(first)).toHaveLength(9); // every rollout: .jsonl, .jsonl.zst, .json, archived
    expect(first[api]!.head).toEqual({ id: '019cb1a0-0002-7000-8000-000000000002', cwd: '/home/alice/work/api' });
    expect(first[fork]!.head.forkedFrom).toBe('019cb1a0-0001-7000-8000-000000000001');

    // Another thread takes the place of 0002 (a new file renamed over it); 0005 is deleted.
    const other = (await fs.readFile(api, 'utf8')).replaceAll(
      '019cb1a0-0002-7000-8000-000000000002',
      '019cb1a0-0009-7000-8000-000000000009',
    );
    await fs.writeFile(`${api}.new`, other);
    await fs.rename(`${api}.new`, api);
    await fs.rm(archived);
    const again = await run(home, data);
    expect(again.sources.find((s) => s.id === 'codex')!.sessions).toBeGreaterThanOrEqual(1);
    const second = await heads();
    expect(second[api]!.head.id).toBe('019cb1a0-0009-7000-8000-000000000009');
    expect(second[api]!.stamp).not.toBe(first[api]!.stamp);
    expect(second[archived]).toBeUndefined();
    expect(second[fork]).toEqual(first[fork]);
    const summaries = JSON.parse(
      await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8'),
    ) as SessionSummary[];
    expect(summaries.find((s) => s.id === 'codex/019cb1a0-0009-7000-8000-000000000009')?.sourcePresent).toBe(true);
    expect(summaries.find((s) => s.id === 'codex/019cb1a0-0002-7000-8000-000000000002')?.sourcePresent).toBe(false);
  });

  it('does not trust its brief copy of the index once the index itself was replaced', async () => {
    const home = await copyFixtureHome();
    const data = path.join(await tempDir('inc'), 'data');
    await run(home, data);
    const before = await snapshot(data);
    // An index restored from an older backup, without one session: the copy (still naming every session
    // as unchanged) must not make collect skip it.
    const index = path.join(data, 'index', 'sessions.json');
    const summaries = JSON.parse(await fs.readFile(index, 'utf8')) as SessionSummary[];
    const dropped = summaries.find((s) => s.id === `claude-code/${SESSION.C}`)!;
    await fs.writeFile(`${index}.restored`, JSON.stringify(summaries.filter((s) => s !== dropped)));
    await fs.rename(`${index}.restored`, index);
    const again = await run(home, data);
    expect(again.sources.find((s) => s.id === 'claude-code')!.sessions).toBe(1);
    expect(await snapshot(data)).toEqual(before);
    // A copy in an older layout (here: no version, entries lacking fields) is rebuilt from the index.
    const copyFile = path.join(data, 'cache', 'collect-index.json');
    const copy = JSON.parse(await fs.readFile(copyFile, 'utf8')) as { summaries: string; entries: { id: string }[] };
    await fs.writeFile(
      copyFile,
      JSON.stringify({ summaries: copy.summaries, entries: copy.entries.map(({ id }) => ({ id })) }),
    );
    const third = await run(home, data);
    expect(third.sources.map((s) => s.unchanged)).toEqual([6, 7, 4]);
    expect(await snapshot(data)).toEqual(before);
    // And with the copy deleted (it is a cache), the index alone is enough.
    await fs.rm(copyFile);
    const fourth = await run(home, data);
    expect(fourth.sources.map((s) => s.sessions)).toEqual([0, 0, 0]);
    expect(await snapshot(data)).toEqual(before);
  });
});

/** Every file under a directory with its modification time. */
async function fileTimes(dir: string): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    out.set(path.relative(dir, file), (await fs.stat(file)).mtimeMs);
  }
  return out;
}
