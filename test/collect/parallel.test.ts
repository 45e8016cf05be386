import { promises as fs } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { copyFixtureHome, SESSION, tempDir } from '../helpers/paths.ts';

/** A home with enough Claude sessions that a cold collect reads them on worker threads. */
async function manySessions(): Promise<string> {
  const home = await copyFixtureHome();
  const webapp = path.join(home, '.claude', 'projects', '-home-alice-work-webapp');
  const source = await fs.readFile(path.join(webapp, `${SESSION.A}.jsonl`), 'utf8');
  for (let i = 0; i < 12; i++) {
    const id = `11111111-1111-4111-8111-0000000000${String(i).padStart(2, '0')}`;
    await fs.writeFile(path.join(webapp, `${id}.jsonl`), source.replaceAll(SESSION.A, id));
  }
  return home;
}

async function snapshot(dataDir: string) {
  const list = JSON.parse(await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8')) as SessionSummary[];
  const out = new Map<string, unknown>();
  for (const { collectedAt: _c, ...summary } of list) {
    const body = (await readBodyFile(dataDir, summary.body))!;
    out.set(summary.id, { summary, session: body.session });
  }
  return out;
}

afterEach(() => {
  delete process.env.AGENT_LOGBOOK_THREADS;
});

describe('cold collect on worker threads', () => {
  it('gives exactly what a one-thread collect gives, warnings included', async () => {
    const home = await manySessions();
    const run = async (threads: string) => {
      process.env.AGENT_LOGBOOK_THREADS = threads;
      const dataDir = path.join(await tempDir(`threads-${threads}`), 'data');
      const report = await collect({ home, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } });
      return { report, snapshot: await snapshot(dataDir) };
    };
    const one = await run('1');
    const two = await run('2');
    const claude = (r: typeof one) => r.report.sources.find((s) => s.id === 'claude-code')!;
    expect(claude(two).sessions).toBe(6 + 12);
    expect(claude(two).sessions).toBe(claude(one).sessions);
    expect(two.report.warnings.map((w) => `${w.file}:${w.line}`).sort()).toEqual(
      one.report.warnings.map((w) => `${w.file}:${w.line}`).sort(),
    );
    expect([...two.snapshot.keys()].sort()).toEqual([...one.snapshot.keys()].sort());
    for (const [id, value] of one.snapshot) expect(two.snapshot.get(id), id).toEqual(value);
    // The copies have session A's main-thread numbers (fixtures/README.md; its subagent was not copied):
    // 5 entries, in 5 × 100, out 120 + 80 + 60 + 40 + 30, cache read 5 × 1000, cache write 5 × 200.
    const copy = two.snapshot.get('claude-code/11111111-1111-4111-8111-000000000007') as { summary: SessionSummary };
    expect(copy.summary.stats.entries).toBe(5);
    expect(copy.summary.stats.tokens).toEqual({ input: 500, output: 330, cacheRead: 5000, cacheCreation: 1000 });
  });
});
