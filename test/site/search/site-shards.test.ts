import { promises as fs } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  emptyShardState,
  OLD_SHARD_FACTOR,
  planShards,
  type ShardState,
} from '../../../src/site/search/site-shards.ts';
import { bundlePage, bundlePages, TEXT_MAP_FILE } from '../../../src/transcript/page-record.ts';
import { runCli } from '../../helpers/cli.ts';
import { copyFixtureHome, SESSION, tempDir } from '../../helpers/paths.ts';
import { appendPrompt, writeTurns } from '../../helpers/transcripts.ts';

const sessions = (...keys: string[]) => keys.map((key) => ({ key, stamp: `${key}-1` }));
const chars = (n: number) => () => n;
const everywhere = () => true;

describe('planShards', () => {
  it('fills shards oldest first, up to the limit, and opens the next', () => {
    const plan = planShards(emptyShardState(), sessions('a', 'b', 'c', 'd', 'e'), chars(400), everywhere, 1000);
    expect(Object.fromEntries(Object.entries(plan.state.shards).map(([n, s]) => [n, Object.keys(s.sessions)]))).toEqual(
      {
        s0001: ['a', 'b', 'c'],
        s0002: ['d', 'e'],
      },
    );
    expect([...plan.dirty.keys()]).toEqual(['s0001', 's0002']);
    expect(plan.state.next).toBe(3);
  });

  it('with nothing changed, writes no shard', () => {
    const first = planShards(emptyShardState(), sessions('a', 'b', 'c'), chars(600), everywhere, 1000);
    const again = planShards(first.state, sessions('a', 'b', 'c'), chars(600), everywhere, 1000);
    expect(again.dirty.size).toBe(0);
    expect(again.removed).toEqual([]);
    expect(again.state).toEqual(first.state);
  });

  it('a grown session dirties only its own shard and stays in it; a new one goes to the newest', () => {
    const first = planShards(emptyShardState(), sessions('a', 'b', 'c'), chars(600), everywhere, 1000);
    const grown = [
      { key: 'a', stamp: 'a-2' },
      { key: 'b', stamp: 'b-1' },
      { key: 'c', stamp: 'c-1' },
    ];
    const plan = planShards(first.state, grown, chars(600), everywhere, 1000);
    expect([...plan.dirty.entries()]).toEqual([['s0001', ['a', 'b']]]);
    const withNew = planShards(plan.state, [...grown, { key: 'd', stamp: 'd-1' }], chars(100), everywhere, 1000);
    expect([...withNew.dirty.entries()]).toEqual([['s0002', ['c', 'd']]]);
  });

  it('a session gone from the site dirties its shard; a shard left empty is removed', () => {
    const first = planShards(emptyShardState(), sessions('a', 'b', 'c'), chars(600), everywhere, 1000);
    const plan = planShards(first.state, sessions('a', 'b'), chars(600), everywhere, 1000);
    expect(plan.removed).toEqual(['s0002']);
    expect(plan.dirty.size).toBe(0);
    const fewer = planShards(plan.state, sessions('b'), chars(600), everywhere, 1000);
    expect([...fewer.dirty.entries()]).toEqual([['s0001', ['b']]]);
  });

  it('a shard whose files are missing from the site is written again', () => {
    const first = planShards(emptyShardState(), sessions('a', 'b', 'c'), chars(600), everywhere, 1000);
    const plan = planShards(first.state, sessions('a', 'b', 'c'), chars(600), (s) => s !== 's0002', 1000);
    expect([...plan.dirty.keys()]).toEqual(['s0002']);
  });

  it('a session listed in two shards (a damaged state) is kept in the first only', () => {
    const state: ShardState = {
      next: 3,
      shards: {
        s0001: { sessions: { a: 'a-1' }, chars: 10 },
        s0002: { sessions: { a: 'a-1', b: 'b-1' }, chars: 10 },
      },
    };
    const plan = planShards(state, sessions('a', 'b'), chars(10), everywhere, 1000);
    expect(Object.keys(plan.state.shards.s0002!.sessions)).toEqual(['b']);
    expect([...plan.dirty.keys()]).toEqual(['s0002']);
  });

  describe('sessions that ended long before the newest one', () => {
    // Days of 2024 and 2025: in the past, as the newest session is never taken to be later than now.
    const day = (n: number) => new Date(Date.UTC(2024, 0, 1) + n * 86_400_000).toISOString();
    /** Sessions of one day each, a day apart, from `first` on. */
    const daily = (first: number, ...keys: string[]) =>
      keys.map((key, i) => ({ key, stamp: `${key}-1`, endedAt: day(first + i) }));
    const layout = (state: ShardState) =>
      Object.fromEntries(Object.entries(state.shards).map(([n, s]) => [n, [Object.keys(s.sessions), s.old === true]]));

    it('go to shards eight times as big, the recent ones to shards of the limit', () => {
      // a–f ended 100+ days before z: old.
      const plan = planShards(
        emptyShardState(),
        [...daily(0, 'a', 'b', 'c', 'd', 'e', 'f'), ...daily(120, 'x', 'y', 'z')],
        chars(400),
        everywhere,
        1000,
      );
      expect(layout(plan.state)).toEqual({
        s0001: [['a', 'b', 'c', 'd', 'e', 'f'], true],
        s0002: [['x', 'y', 'z'], false],
      });
    });

    it('a session dated after now (a wrong clock) does not make the others old', () => {
      const ago = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString();
      const sessions = [
        { key: 'a', stamp: 'a-1', endedAt: ago(3) },
        { key: 'b', stamp: 'b-1', endedAt: ago(2) },
        { key: 'z', stamp: 'z-1', endedAt: ago(-400) },
      ];
      const plan = planShards(emptyShardState(), sessions, chars(300), everywhere, 1000);
      expect(layout(plan.state)).toEqual({ s0001: [['a', 'b', 'z'], false] });
    });

    it('a late old session opens a shard of its own instead of adding to a big shard already written', () => {
      const first = planShards(
        emptyShardState(),
        [...daily(0, 'a', 'b'), ...daily(120, 'z')],
        chars(400),
        everywhere,
        1000,
      );
      const late = [...daily(0, 'a', 'b'), ...daily(5, 'old'), ...daily(120, 'z')];
      const plan = planShards(first.state, late, chars(400), everywhere, 1000);
      expect([...plan.dirty.entries()]).toEqual([['s0003', ['old']]]);
      expect(plan.state.shards.s0003!.old).toBe(true);
    });

    it('small shards whose sessions all grew old are merged once there are four, into one shard written once', () => {
      expect(OLD_SHARD_FACTOR).toBe(8);
      // Eight recent sessions, two per small shard; then 200 days pass and a new session comes.
      const recent = daily(0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h');
      let plan = planShards(emptyShardState(), recent, chars(600), everywhere, 1000);
      expect(Object.keys(plan.state.shards)).toEqual(['s0001', 's0002', 's0003', 's0004']);
      expect(Object.values(plan.state.shards).some((s) => s.old)).toBe(false);
      plan = planShards(plan.state, [...recent, ...daily(200, 'new')], chars(600), everywhere, 1000);
      expect(plan.removed.sort()).toEqual(['s0001', 's0002', 's0003', 's0004']);
      // All eight in one shard of eight times the limit; the new session in a small one.
      expect(layout(plan.state)).toEqual({
        s0005: [['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], true],
        s0006: [['new'], false],
      });
      expect([...plan.dirty.keys()]).toEqual(['s0005', 's0006']);
      // A second round: twelve sessions fill s0006 (with 'new') to s0012; 200 days later all but the newest
      // shard's have grown old: six small shards, the four oldest merged in this build.
      const more = daily(300, 'i', 'j', 'k', 'l', 'm', 'n', 'o', 'p', 'q', 'r', 's', 't');
      const second = planShards(plan.state, [...recent, ...daily(200, 'new'), ...more], chars(600), everywhere, 1000);
      expect(Object.keys(second.state.shards).sort().at(-1)).toBe('s0012');
      const later = planShards(
        second.state,
        [...recent, ...daily(200, 'new'), ...more, ...daily(500, 'last')],
        chars(600),
        everywhere,
        1000,
      );
      expect(later.removed).toEqual(['s0006', 's0007', 's0008', 's0009']);
      expect(layout(later.state)).toEqual({
        s0005: [['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], true],
        s0010: [['p', 'q'], false],
        s0011: [['r', 's'], false],
        s0012: [['t', 'last'], false],
        s0013: [['new', 'i', 'j', 'k', 'l', 'm', 'n', 'o'], true],
      });
      // Settled: the next build writes nothing.
      const again = planShards(plan.state, [...recent, ...daily(200, 'new')], chars(600), everywhere, 1000);
      expect(again.dirty.size).toBe(0);
      expect(again.removed).toEqual([]);
    });

    it("a huge session's runs each take a shard of their own, which no other session joins and no merge takes", () => {
      const runs = ['h#1-4', 'h#5-8', 'h#9-9'].map((key) => ({ key, stamp: `${key}-1`, endedAt: day(1), alone: true }));
      const all = [...daily(0, 'a'), ...runs, ...daily(2, 'b', 'c', 'd', 'e', 'f'), ...daily(400, 'z')];
      const plan = planShards(emptyShardState(), all, (key) => (key.startsWith('h#') ? 300 : 400), everywhere, 1000);
      expect(layout(plan.state)).toEqual({
        s0001: [['a', 'b', 'c', 'd', 'e', 'f'], true],
        s0002: [['h#1-4'], true],
        s0003: [['h#5-8'], true],
        s0004: [['h#9-9'], true],
        s0005: [['z'], false],
      });
      expect(
        Object.entries(plan.state.shards)
          .filter(([, s]) => s.alone)
          .map(([n]) => n),
      ).toEqual(['s0002', 's0003', 's0004']);
      // Once z too is old, five shards are under half the old size and hold only old sessions; without the runs'
      // three, two are too few to merge.
      const later = planShards(plan.state, [...all, ...daily(800, 'y')], chars(400), everywhere, 1000);
      expect(later.removed).toEqual([]);
      // A new recent session does not go into a run's shard, even a recent one with room.
      const recentRun = planShards(
        emptyShardState(),
        [
          { key: 'r#1-2', stamp: 'r-1', alone: true },
          { key: 'n', stamp: 'n-1' },
        ],
        chars(100),
        everywhere,
        1000,
      );
      expect(layout(recentRun.state)).toEqual({ s0001: [['r#1-2'], false], s0002: [['n'], false] });
      const next = planShards(
        recentRun.state,
        [
          { key: 'r#1-2', stamp: 'r-1', alone: true },
          { key: 'n', stamp: 'n-1' },
          { key: 'm', stamp: 'm-1' },
        ],
        chars(100),
        everywhere,
        1000,
      );
      expect(layout(next.state).s0002).toEqual([['n', 'm'], false]);
    });

    it('a session that turns into runs and back, over builds whose state went through JSON, is in one shard at a time', () => {
      const saved = (state: ShardState) => JSON.parse(JSON.stringify(state)) as ShardState;
      const whole = [...daily(0, 'a', 'x', 'b'), ...daily(400, 'z')];
      const asRuns = [
        ...daily(0, 'a'),
        ...['x#1-5', 'x#6-9'].map((key) => ({ key, stamp: `${key}-2`, endedAt: day(1), alone: true })),
        ...daily(2, 'b'),
        ...daily(400, 'z'),
      ];
      const homes = (state: ShardState) => {
        const seen = new Map<string, string>();
        for (const [name, shard] of Object.entries(state.shards))
          for (const key of Object.keys(shard.sessions)) {
            expect(seen.has(key), key).toBe(false);
            seen.set(key, name);
          }
        return seen;
      };
      const first = planShards(emptyShardState(), whole, chars(400), everywhere, 1000);
      expect([...homes(first.state).keys()].sort()).toEqual(['a', 'b', 'x', 'z']);
      const second = planShards(saved(first.state), asRuns, chars(400), everywhere, 1000);
      const placed = homes(second.state);
      expect([...placed.keys()].sort()).toEqual(['a', 'b', 'x#1-5', 'x#6-9', 'z']);
      expect(second.state.shards[placed.get('x#1-5')!]).toMatchObject({ alone: true, old: true });
      expect(placed.get('x#1-5')).not.toBe(placed.get('x#6-9'));
      // The shard that held x whole is written again without it; the runs' shards are new.
      expect(second.dirty.get(placed.get('a')!)).toEqual(['a', 'b']);
      const third = planShards(
        saved(second.state),
        whole.map((s) => ({ ...s, stamp: `${s.key}-3` })),
        chars(400),
        everywhere,
        1000,
      );
      expect(third.removed.sort()).toEqual([placed.get('x#1-5'), placed.get('x#6-9')].sort());
      expect([...homes(third.state).keys()].sort()).toEqual(['a', 'b', 'x', 'z']);
      expect(Object.values(third.state.shards).some((shard) => shard.alone)).toBe(false);
    });
  });
});

interface FileState {
  bytes: Buffer;
  mtimeMs: number;
}

async function searchFiles(out: string): Promise<Map<string, FileState>> {
  const files = new Map<string, FileState>();
  const dir = path.join(out, 'pagefind');
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.set(path.relative(dir, file), { bytes: await fs.readFile(file), mtimeMs: (await fs.stat(file)).mtimeMs });
  }
  return files;
}

const shardOf = (file: string) => file.split(path.sep)[0]!;

const LONG = 'cccccccc-0000-4000-8000-000000000700';
const LONG_TURNS = 700;

describe('the site index in shards, over real builds', { timeout: 900_000 }, () => {
  let home: string;
  let dataDir: string;
  let out: string;
  let longTranscript: string;
  const build = (...more: string[]) =>
    runCli(['build', '--home', home, '--data', dataDir, '--out', out, '--tz', 'Asia/Tokyo', ...more]);

  beforeAll(async () => {
    process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS = '1500';
    home = await copyFixtureHome();
    // Far more text than four shards hold (6,000 characters), over several pages.
    longTranscript = await writeTurns(home, LONG, LONG_TURNS, '2026-03-02T09:00:00.000Z', (t) => {
      const words = `turn${t} 長い会話の確認 ${'word '.repeat(15)}`;
      return { prompt: `Q${t} ${words}`, answer: `A${t} ${words}` };
    });
    const root = await tempDir('search-shards');
    dataDir = path.join(root, 'data');
    out = path.join(root, 'site');
    const first = await build();
    expect(first.code, first.stderr).toBe(0);
  }, 900_000);
  afterAll(() => {
    delete process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS;
  });

  it("a huge session's pages are indexed in runs over several shards, each page once, with its own texts", async () => {
    const route = `sessions/claude-code/${LONG}/`;
    const built = await fs.readdir(path.join(out, route, 'page'));
    const urls = [route, ...built.map((n) => `${route}page/${n}/`)].sort();
    expect(urls.length).toBeGreaterThanOrEqual(4);
    const shardOfPage = new Map<string, string>();
    const prompts: { page: string; anchor: string; text: string }[] = [];
    for (const [file, state] of await searchFiles(out)) {
      if (!file.endsWith('.pf_text')) continue;
      for (const page of bundlePages(gunzipSync(state.bytes).toString()).map(bundlePage)) {
        if (!page?.url.startsWith(route)) continue;
        expect(shardOfPage.has(page.url), page.url).toBe(false);
        shardOfPage.set(page.url, shardOf(file));
        for (const s of page.sections) if (s.kind === 'prompt') prompts.push({ page: page.meta.page!, ...s });
      }
    }
    expect([...shardOfPage.keys()].sort()).toEqual(urls);
    expect(new Set(shardOfPage.values()).size).toBeGreaterThanOrEqual(urls.length - 1);
    // Every prompt once, on the page that shows it, anchored to its message.
    expect(prompts.map((p) => p.text.split(' ')[0]).sort()).toEqual(
      Array.from({ length: LONG_TURNS }, (_, t) => `Q${t}`).sort(),
    );
    const last = prompts.find((p) => p.text.startsWith(`Q${LONG_TURNS - 1} `))!;
    expect(last).toMatchObject({ page: String(urls.length), anchor: `m${2 * (LONG_TURNS - 1)}` });
    const html = await fs.readFile(path.join(out, route, 'page', String(urls.length), 'index.html'), 'utf8');
    expect(html).toContain(`id="${last.anchor}"`);
  });

  it('after one session grew, writes only the shard that holds it; with nothing changed, nothing', async () => {
    const before = await searchFiles(out);
    const shards = JSON.parse(before.get('shards.json')!.bytes.toString()) as string[];
    expect(shards.length).toBeGreaterThan(2);
    // One Pagefind record (a fragment) per bundle of pages, each with its text file; fewer than the pages.
    const count = (pattern: RegExp) => [...before.keys()].filter((f) => pattern.test(f)).length;
    const pageCount = [...before]
      .filter(([f]) => f.endsWith('.pf_text'))
      .flatMap(([, state]) => bundlePages(gunzipSync(state.bytes).toString())).length;
    expect(count(/\.pf_fragment$/)).toBe(count(/\.pf_text$/));
    expect(count(/\.pf_fragment$/)).toBeLessThan(pageCount);
    // Each shard's map names, for each of its fragments, the text file its record names (the search box fetches
    // the text without the fragment).
    for (const shard of shards) {
      const map = JSON.parse(before.get(path.join(shard, TEXT_MAP_FILE))!.bytes.toString()) as Record<string, string>;
      const fragments = [...before.keys()].filter((f) => shardOf(f) === shard && f.endsWith('.pf_fragment'));
      expect(Object.keys(map).sort()).toEqual(fragments.map((f) => path.basename(f, '.pf_fragment')).sort());
      for (const [id, text] of Object.entries(map)) {
        const fragment = gunzipSync(before.get(path.join(shard, 'fragment', `${id}.pf_fragment`))!.bytes).toString();
        expect(JSON.parse(fragment.replace(/^pagefind_dcd/, '')).meta.text).toBe(text);
        expect(before.has(text.split('/').join(path.sep)), text).toBe(true);
      }
    }

    const transcript = path.join(home, '.claude', 'projects', '-home-alice-work-webapp', `${SESSION.B}.jsonl`);
    await appendPrompt(transcript, 'SHARD-MARKER 検索の確認', '2026-03-03T00:25:00.000Z');
    const second = await build();
    expect(second.code, second.stderr).toBe(0);
    const after = await searchFiles(out);

    // The new prompt is in the text file holding the session's first page, as its own section with its anchor.
    const holding = [...after].filter(
      ([file, state]) =>
        file.includes(`${path.sep}text${path.sep}`) && gunzipSync(state.bytes).includes('SHARD-MARKER'),
    );
    expect(holding).toHaveLength(1);
    const pages = bundlePages(gunzipSync(holding[0]![1].bytes).toString()).map(bundlePage);
    const page = pages.find((p) => p?.sections.some((s) => s.text.includes('SHARD-MARKER')))!;
    expect(page.url).toBe(`sessions/claude-code/${SESSION.B}/`);
    expect(page.meta).toMatchObject({ source: 'claude-code', page: '1' });
    const sections = page.sections;
    const section = sections.find((s) => s.text.includes('SHARD-MARKER'))!;
    expect(section).toMatchObject({ kind: 'prompt', text: 'SHARD-MARKER 検索の確認' });
    expect(section.anchor).toMatch(/^m\d+$/);
    const changed = shardOf(holding[0]![0]);

    // Every other shard is as it was, byte for byte and mtime for mtime.
    const rewritten = new Set<string>();
    for (const [file, state] of after) {
      const old = before.get(file);
      if (!old || !old.bytes.equals(state.bytes) || old.mtimeMs !== state.mtimeMs) rewritten.add(shardOf(file));
    }
    expect([...rewritten]).toEqual([changed]);
    for (const file of before.keys()) if (shardOf(file) !== changed) expect(after.has(file), file).toBe(true);

    const third = await build();
    expect(third.code, third.stderr).toBe(0);
    const unchanged = await searchFiles(out);
    for (const [file, state] of unchanged) expect(state.mtimeMs, file).toBe(after.get(file)?.mtimeMs);
  });

  it('after a huge session grew at its end, the shards of its earlier runs are not written again', async () => {
    const route = `sessions/claude-code/${LONG}/`;
    const shardsOfPages = (files: Map<string, FileState>) => {
      const byPage = new Map<number, string>();
      for (const [file, state] of files) {
        if (!file.endsWith('.pf_text')) continue;
        for (const page of bundlePages(gunzipSync(state.bytes).toString()).map(bundlePage))
          if (page?.url.startsWith(route)) byPage.set(Number(page.meta.page), shardOf(file));
      }
      return byPage;
    };
    const before = await searchFiles(out);
    const pagesBefore = shardsOfPages(before);
    const lastPage = Math.max(...pagesBefore.keys());
    const end = new Date(Date.parse('2026-03-02T09:00:00.000Z') + LONG_TURNS * 60_000).toISOString();
    await appendPrompt(longTranscript, 'RUN-MARKER 最後の確認', end);
    const grown = await build('--verbose');
    expect(grown.code, grown.stderr).toBe(0);
    const after = await searchFiles(out);
    const pagesAfter = shardsOfPages(after);
    // Indexed again: the shards of the runs from the last page before on (a shard indexed again with the same
    // records may come out byte for byte the same, so the build's own count is what tells).
    const fromLast = new Set([...pagesAfter].filter(([page]) => page >= lastPage).map(([, shard]) => shard));
    const written = /Site search: (\d+) of (\d+) shards written/.exec(grown.stdout + grown.stderr);
    expect(written, grown.stderr).not.toBeNull();
    expect(Number(written![1])).toBe(fromLast.size);
    expect(Number(written![2]) - fromLast.size).toBeGreaterThanOrEqual(3);
    // The new prompt is on the last page's run.
    const holding = [...after].filter(
      ([file, state]) => file.endsWith('.pf_text') && gunzipSync(state.bytes).includes('RUN-MARKER'),
    );
    expect(holding.map(([file]) => shardOf(file))).toEqual([pagesAfter.get(Math.max(...pagesAfter.keys()))]);
    // The runs before the last page's are in the same shards, every file as it was, byte for byte and mtime.
    const earlier = new Set([...pagesBefore].filter(([page]) => page < lastPage).map(([, shard]) => shard));
    earlier.delete(pagesBefore.get(lastPage)!);
    expect(earlier.size).toBeGreaterThanOrEqual(2);
    for (const [page, shard] of pagesBefore) if (earlier.has(shard)) expect(pagesAfter.get(page)).toBe(shard);
    for (const [file, state] of before) {
      if (!earlier.has(shardOf(file))) continue;
      const now = after.get(file);
      expect(now?.bytes.equals(state.bytes) && now.mtimeMs === state.mtimeMs, file).toBe(true);
    }
  });

  it('build --full indexes the same pages afresh (shards may be cut differently: they follow the history)', async () => {
    const before = await searchFiles(out);
    const full = await build('--full');
    expect(full.code, full.stderr).toBe(0);
    const after = await searchFiles(out);
    const texts = (files: Map<string, FileState>) =>
      [...files]
        .filter(([f]) => f.includes(`${path.sep}text${path.sep}`))
        .map(([, s]) => gunzipSync(s.bytes).toString())
        .sort();
    expect(texts(after)).toEqual(texts(before));
    expect(texts(after).join('')).toContain('SHARD-MARKER');
  });
});
