// The measurements of one CLI over the corpus: collects, searches, site builds, live update, share build, and
// optionally one huge session. Each figure is the median of `runs` runs, with the peak RSS.
import { promises as fs } from 'node:fs';
import path from 'node:path';
import {
  type CorpusChanges,
  directoryBytes,
  ensureCorpus,
  filesUnder,
  type FileInfo,
  GENERATOR_VERSION,
  mb,
} from './corpus.ts';
import { prng, writeClaudeSession } from './generate-claude.ts';
import { liveUpdateLatency } from './live.ts';
import { lastChildStderr, measure, type Measured, runNode } from './measure.ts';
import { siteSearchLatency } from './site-search-latency.ts';

export interface SuiteOptions {
  cli: string;
  corpus: string;
  /** A folder of this suite's own: its data directory and sites go there. */
  work: string;
  runs: number;
  claudeFiles: FileInfo[];
  changes: CorpusChanges;
  skipBuild: boolean;
  /** The latency of the site search in Chromium (once per bench run: it measures the page, not the CLI). */
  siteSearch: boolean;
  hugeGB?: number;
  log: (line: string) => void;
}

export interface SuiteResult {
  results: Measured[];
  /** Figures that are not times (sizes), printed under the table. */
  extras: string[];
  siteBytes?: number;
  huge?: { home: string; file: string; bytes: number; mbPerSecond: number };
}

const WARM_RUNS = 9;

export const LABELS = {
  warmWithoutCerts: 'warm collect, Node started without NODE_EXTRA_CA_CERTS',
  cold: 'cold collect',
  daily: 'collect after one file grew',
  fullBuild: 'full site build (first build: no caches)',
  oneChange: 'rebuild after one-file change',
  newestChange: 'rebuild after the newest Claude session grew',
  largestChange: 'rebuild after the largest Claude session grew',
  live: 'serve --watch: append to a transcript until the open page is told to reload',
  otherZone: 'build after --tz changed (every page again, caches kept)',
};

export async function runSuite(o: SuiteOptions): Promise<SuiteResult> {
  const { cli, corpus, runs, changes } = o;
  const data = path.join(o.work, 'data');
  const out = path.join(o.work, 'dist');
  const collect = () => runNode(cli, ['collect', '--home', corpus, '--data', data]);
  const medianFile = o.claudeFiles[Math.floor(o.claudeFiles.length / 2)]!;
  const largestFile = o.claudeFiles[o.claudeFiles.length - 1]!;
  const results: Measured[] = [];
  const extras: string[] = [];
  let siteBytes: number | undefined;
  results.push(await measure(LABELS.cold, runs, () => fs.rm(data, { recursive: true, force: true }), collect));
  // Short and noisy on a shared machine: the median of more runs than the rest.
  const warmRuns = Math.max(runs, WARM_RUNS);
  results.push(await measure('warm collect (nothing changed)', warmRuns, undefined, collect));
  if (process.env.NODE_EXTRA_CA_CERTS) {
    // Node reads that file of certificates as it starts (~80 ms here), whatever the command: what a machine
    // without it (most users') sees of the same collect.
    const withoutCerts = () =>
      runNode(cli, ['collect', '--home', corpus, '--data', data], { NODE_EXTRA_CA_CERTS: undefined });
    results.push(await measure(LABELS.warmWithoutCerts, warmRuns, undefined, withoutCerts));
  }
  results.push(
    await measure(
      `${LABELS.daily} (median-size Claude file, ${mb(medianFile.bytes)} MB, +5 lines)`,
      runs,
      changes.grow(medianFile.file, 5),
      collect,
    ),
  );
  results.push(
    await measure(
      `collect after the largest Claude file grew (${mb(largestFile.bytes)} MB, +3 lines)`,
      runs,
      changes.grow(largestFile.file, 3),
      collect,
    ),
  );
  results.push(await measure('collect after one new file', runs, changes.addFile, collect));
  // Search: the index is made by the first search, then kept up to date by collect.
  const search =
    (...query: string[]) =>
    () =>
      runNode(cli, ['search', '--no-collect', '--data', data, ...query]);
  const searchIndex = path.join(data, 'search');
  results.push(
    await measure(
      'search: first search, builds the index (--no-collect)',
      runs,
      () => fs.rm(searchIndex, { recursive: true, force: true }),
      search('error'),
    ),
  );
  const searchIndexBytes = await directoryBytes(searchIndex);
  results.push(await measure('search: English word (whole process, --no-collect)', runs, undefined, search('error')));
  results.push(await measure('search: Japanese word ログイン (whole process)', runs, undefined, search('ログイン')));
  results.push(await measure('search: two-character Japanese 画面 (whole process)', runs, undefined, search('画面')));
  results.push(await measure('search: rare word, --json (whole process)', runs, undefined, search('zzqxv', '--json')));
  results.push(
    await measure('search: collect first (nothing changed), then search', runs, undefined, () =>
      runNode(cli, ['search', '--home', corpus, '--data', data, 'error']),
    ),
  );
  results.push(
    await measure(
      'collect after one file grew, with the search index',
      runs,
      changes.grow(medianFile.file, 5),
      collect,
    ),
  );
  extras.push(`Search index (SQLite): ${mb(searchIndexBytes)} MB`);
  if (!o.skipBuild) {
    siteBytes = await measureSite(o, data, out, medianFile, results, extras);
  }
  const huge = o.hugeGB === undefined ? undefined : await measureHuge(o, o.hugeGB, results, extras);
  return { results, extras, siteBytes, huge };
}

async function measureSite(
  o: SuiteOptions,
  data: string,
  out: string,
  medianFile: FileInfo,
  results: Measured[],
  extras: string[],
): Promise<number> {
  const { cli, corpus, runs, changes } = o;
  const siteBuild = () =>
    runNode(cli, ['build', '--home', corpus, '--data', data, '--out', out, '--tz', 'UTC', '--verbose']);
  // A first build: no site, no render cache, no Astro cache (the collect before it finds nothing new).
  const firstBuild = async () => {
    await fs.rm(out, { recursive: true, force: true });
    const caches = ['render.sqlite', 'render.sqlite-wal', 'render.sqlite-shm', 'astro', 'renderer', 'site-build'];
    for (const cache of [...caches, 'site-search'])
      await fs.rm(path.join(data, 'cache', cache), { recursive: true, force: true });
  };
  results.push(await measure(LABELS.fullBuild, runs, firstBuild, siteBuild));
  extras.push(withChildren('First site build', results.at(-1)!));
  const siteSearch = /Site search: \d+ of (\d+) shards written \(([\d,]+) pages.*?\), ([\d.]+) MB in ([\d.]+)s/.exec(
    lastChildStderr(),
  );
  if (siteSearch)
    extras.push(
      `Site search (Pagefind): ${siteSearch[2]} pages in ${siteSearch[1]} shards, ${siteSearch[3]} MB, ` +
        `${siteSearch[4]} s of the full build`,
    );
  if (o.siteSearch) {
    // Typed at once after the page opens (the first query waits for the index), at a person's pace (150 ms a key,
    // a fast typist's) from when it opens, and after 3 s on the page.
    const when = (settleMs: number, keyDelayMs: number) =>
      settleMs
        ? `${settleMs / 1000} s after the page opened`
        : keyDelayMs
          ? `at ${keyDelayMs} ms a key from when the page opened, from the last key`
          : 'as soon as the page opened';
    for (const [settleMs, keyDelayMs] of [
      [0, 0],
      [0, 150],
      [3000, 0],
    ] as const) {
      const queries = ['error', 'ログイン', '画面', 'function value', 'zzqxv'];
      const latency = await siteSearchLatency(out, queries, settleMs, 5, keyDelayMs);
      if (latency)
        extras.push(
          `Site search in Chromium, typing to results (median of 5 openings), ${when(settleMs, keyDelayMs)}: ${latency
            .map(
              (t) =>
                `${t.query} ${t.firstMs < t.ms - 1 ? `${t.firstMs.toFixed(0)} ms to the first results, ${t.ms.toFixed(0)} ms to all` : `${t.ms.toFixed(0)} ms`} (${t.results})`,
            )
            .join(', ')}`,
        );
    }
  }
  const siteFiles = await filesUnder(out);
  const siteBytes = siteFiles.reduce((n, f) => n + f.bytes, 0);
  const sessions = (await filesUnder(path.join(data, 'sessions'), '.messages.jsonl')).length;
  const historyBytes = await directoryBytes(corpus);
  // Issue 29's aims: a site at most 40 % of the history, at most 3 files per session (static hosts' limits).
  extras.push(
    `Site weight: ${(siteBytes / 1e6).toFixed(0)} MB = ${((100 * siteBytes) / historyBytes).toFixed(0)} % of the ` +
      `history (${(historyBytes / 1e6).toFixed(0)} MB), ${siteFiles.length.toLocaleString('en-US')} files = ` +
      `${(siteFiles.length / Math.max(1, sessions)).toFixed(2)} per session (${sessions.toLocaleString('en-US')} sessions)`,
  );
  results.push(await measure(LABELS.oneChange, runs, changes.grow(medianFile.file, 5), siteBuild));
  const oneChangeSearch = /Site search: (\d+) of (\d+) shards written \(([\d,]+) pages.*? in ([\d.]+)s/.exec(
    lastChildStderr(),
  );
  if (oneChangeSearch)
    extras.push(
      `Site search after one change: ${oneChangeSearch[1]} of ${oneChangeSearch[2]} shards written ` +
        `(${oneChangeSearch[3]} pages) in ${oneChangeSearch[4]} s`,
    );
  // The day's case: the session worked on last grows (the one above, of median size, may be months old).
  const newest = await newestClaudeFile(data);
  if (newest) {
    results.push(await measure(`${LABELS.newestChange} (+5 lines)`, runs, changes.grow(newest, 5), siteBuild));
    const newestSearch = /Site search: (\d+) of (\d+) shards written \(([\d,]+) pages.*? in ([\d.]+)s/.exec(
      lastChildStderr(),
    );
    if (newestSearch)
      extras.push(
        `Site search after the newest session grew: ${newestSearch[1]} of ${newestSearch[2]} shards written ` +
          `(${newestSearch[3]} pages) in ${newestSearch[4]} s`,
      );
  }
  // A long session that goes on all day: its pages before the last are left as they were.
  const largest = o.claudeFiles[o.claudeFiles.length - 1]!;
  results.push(
    await measure(
      `${LABELS.largestChange} (${mb(largest.bytes)} MB, +5 lines)`,
      runs,
      changes.grow(largest.file, 5),
      siteBuild,
    ),
  );
  results.push(await measure('build with nothing changed', runs, undefined, siteBuild));
  results.push(
    await measure(LABELS.live, runs, undefined, () =>
      liveUpdateLatency(cli, corpus, data, out, changes.grow(medianFile.file, 1)),
    ),
  );
  const shareOut = path.join(o.work, 'share');
  results.push(
    await measure(
      'share build (redacted, anonymized)',
      runs,
      () => fs.rm(shareOut, { recursive: true, force: true }),
      () => runNode(cli, ['build', '--share', '--home', corpus, '--data', data, '--out', shareOut, '--tz', 'UTC']),
    ),
  );
  // Every page made again with all its caches there (another --tz; an upgrade is the same): each run switches
  // the zone, so each makes every page again. Last, as the site it leaves is in another zone.
  let zoneSwitches = 0;
  results.push(
    await measure(LABELS.otherZone, runs, undefined, () =>
      runNode(cli, [
        'build',
        '--home',
        corpus,
        '--data',
        data,
        '--out',
        out,
        '--tz',
        zoneSwitches++ % 2 === 0 ? 'Asia/Tokyo' : 'UTC',
      ]),
    ),
  );
  return siteBytes;
}

/** One Claude session of `gb` GB, alone in a home of its own (streamed to disk): cold collect, collect after it
 * grew, and its site. */
async function measureHuge(o: SuiteOptions, gb: number, results: Measured[], extras: string[]) {
  const { cli, runs, changes, log } = o;
  const hugeHome = path.join(path.dirname(o.corpus), `agent-logbook-bench-huge-${gb}`);
  const hugeProfile = { generator: GENERATOR_VERSION, bytes: Math.round(gb * 1e9), seed: 4242 };
  const cwd = '/home/bench/work/huge';
  const projects = path.join(hugeHome, '.claude', 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
  const hugeFile = path.join(projects, 'f0e1d2c3-b4a5-4697-8879-6a5b4c3d2e1f.jsonl');
  await ensureCorpus(hugeHome, hugeProfile, async () => {
    log(`Generating one ${gb} GB Claude session in ${hugeHome}…`);
    await fs.mkdir(path.dirname(hugeFile), { recursive: true });
    let reported = 0;
    await writeClaudeSession(
      hugeFile,
      hugeProfile.bytes,
      cwd,
      Date.parse('2026-02-01T00:00:00Z'),
      prng(hugeProfile.seed),
      (bytes) => {
        if (bytes - reported < 250e6) return;
        reported = bytes;
        log(`  huge: ${mb(bytes)} MB`);
      },
    );
  });
  const [{ bytes: hugeBytes }] = (await filesUnder(hugeFile)) as [FileInfo];
  log(`Huge session: ${hugeFile}, ${mb(hugeBytes)} MB`);
  const hugeData = path.join(o.work, 'huge-data');
  const hugeCollect = () => runNode(cli, ['collect', '--home', hugeHome, '--data', hugeData]);
  const label = `one ${(hugeBytes / 1e9).toFixed(2)} GB Claude session`;
  const cold = await measure(
    `${label}: cold collect`,
    runs,
    () => fs.rm(hugeData, { recursive: true, force: true }),
    hugeCollect,
  );
  const grew = await measure(
    `${label}: collect after it grew (+3 lines)`,
    runs,
    changes.grow(hugeFile, 3),
    hugeCollect,
  );
  results.push(cold, grew);
  if (!o.skipBuild) {
    // A 2 GB session still builds, within the same 1 GiB and without NODE_OPTIONS.
    const hugeOut = path.join(o.work, 'huge-site');
    try {
      results.push(
        await measure(
          `${label}: first site build`,
          runs,
          () => fs.rm(hugeOut, { recursive: true, force: true }),
          () =>
            runNode(cli, ['build', '--home', hugeHome, '--data', hugeData, '--out', hugeOut, '--tz', 'UTC'], {
              NODE_OPTIONS: '',
            }),
        ),
      );
      extras.push(withChildren(`${label}: first site build`, results.at(-1)!));
      results.push(
        await measure(`${label}: site build after it grew (+3 lines)`, runs, changes.grow(hugeFile, 3), () =>
          runNode(cli, ['build', '--home', hugeHome, '--data', hugeData, '--out', hugeOut, '--tz', 'UTC'], {
            NODE_OPTIONS: '',
          }),
        ),
      );
    } catch (error) {
      // Reported with the other figures, which a failure here must not lose.
      extras.push(
        `FAILED: ${label}: first site build: ${(error as Error).message.split('\n').slice(0, 8).join(' | ')}`,
      );
    }
  }
  return { home: hugeHome, file: hugeFile, bytes: hugeBytes, mbPerSecond: hugeBytes / 1e6 / cold.seconds };
}

/** The main transcript of the Claude Code session whose last message is the newest in the archive. */
async function newestClaudeFile(data: string): Promise<string | undefined> {
  const summaries = JSON.parse(await fs.readFile(path.join(data, 'index', 'sessions.json'), 'utf8')) as {
    source: string;
    endedAt: string;
    files: string[];
  }[];
  let newest: (typeof summaries)[number] | undefined;
  for (const s of summaries)
    if (s.source === 'claude-code' && s.files[0]?.endsWith('.jsonl') && (!newest || s.endedAt > newest.endedAt))
      newest = s;
  return newest?.files[0];
}

/** A build's peak memory with the processes it started (Pagefind's indexers): what the machine must have. */
function withChildren(what: string, m: Measured): string {
  const tree = m.treeRssMB === undefined ? 'not measured (no /proc)' : `${m.treeRssMB.toFixed(0)} MB`;
  return `${what}, peak memory with the processes it started (Pagefind's indexers): ${tree}; the agent-logbook process alone ${m.maxRssMB.toFixed(0)} MB`;
}
