/**
 * npm run bench [-- --scale 0.1 --runs 3 --corpus DIR --skip-ccusage --skip-build --huge GB]
 *
 * Generates a realistic corpus of all three sources in one home (Claude Code after ccusage's size profile,
 * Codex CLI rollouts and an Amazon Q database, all scaled), then measures the real CLI in child processes:
 * cold collect, warm collect, collect after a median-size and after the largest Claude file grew, after a
 * new file, a full site build, a rebuild after a one-file change and a share build; and `ccusage daily
 * --json` on the Claude part of the same corpus. `--huge GB` adds one Claude session of that many GB, alone
 * in a home of its own (streamed to disk), and measures a cold collect of it and a collect after it grew.
 * Each figure is the median of --runs runs, with the peak RSS. Prints a table and writes JSON.
 */
import { spawn } from 'node:child_process';
import { promises as fs, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { AMAZONQ_PROFILE, amazonQDatabase, generateAmazonQ, scaleAmazonQProfile } from './generate-amazonq.ts';
import {
  appendClaudeLines,
  CCUSAGE_PROFILE,
  generateClaude,
  prng,
  scaleClaudeProfile,
  uuidFrom,
  writeClaudeSession,
} from './generate-claude.ts';
import { CODEX_PROFILE, generateCodex, scaleCodexProfile } from './generate-codex.ts';
import { siteSearchLatency } from './site-search-latency.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'bin', 'agent-logbook.js');
const CCUSAGE = path.join(ROOT, 'node_modules', 'ccusage', 'dist', 'index.js');
/** Part of the corpus manifest: bump it when a generator changes its output, so that old corpora are rebuilt. */
const GENERATOR_VERSION = 2;
// Reports the child's peak RSS on exit, whatever the program is, and its CPU time (all threads), which on a
// shared machine says more than the wall clock. The main thread only:
// --import runs in worker threads too, and a worker ending early would report the peak so far.
const RSS_HOOK = `data:text/javascript,import{isMainThread}from'node:worker_threads';if(isMainThread)process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nBENCH_MAXRSS_KB '+u.maxRSS+' BENCH_CPU_US '+(u.userCPUTime+u.systemCPUTime)+'\\n')})`;

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: '0.1' },
    runs: { type: 'string', default: '3' },
    corpus: { type: 'string' },
    out: { type: 'string', default: path.join(ROOT, 'bench-out') },
    'skip-ccusage': { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
    huge: { type: 'string' },
  },
});
const scale = Number(args.scale);
const runs = Math.max(1, Number(args.runs));
const hugeGB = args.huge === undefined ? undefined : Number(args.huge);
if (!(scale > 0)) throw new Error(`--scale must be a positive number, not ${args.scale}`);
if (hugeGB !== undefined && !(hugeGB > 0)) throw new Error(`--huge must be a positive number of GB, not ${args.huge}`);

interface Measure {
  seconds: number;
  maxRssMB: number;
  /** User + system CPU seconds of the process, all threads. */
  cpuSeconds?: number;
}

function cpuSecondsIn(stderr: string): number | undefined {
  const match = /BENCH_CPU_US (\d+)/.exec(stderr);
  return match ? Number(match[1]) / 1e6 : undefined;
}

/** The stderr of the last child that ran (for figures a command prints, e.g. the site search's). */
let lastStderr = '';

function runNode(script: string, argv: string[], env: NodeJS.ProcessEnv = {}): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', RSS_HOOK, script, ...argv], {
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.length > 1_000_000) stderr = stderr.slice(-100_000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const rss = /BENCH_MAXRSS_KB (\d+)/.exec(stderr);
      lastStderr = stderr;
      if (code !== 0)
        return reject(new Error(`${path.basename(script)} ${argv.join(' ')} exited ${code}\n${stderr.slice(-2000)}`));
      resolve({ seconds, maxRssMB: rss ? Number(rss[1]) / 1024 : NaN, cpuSeconds: cpuSecondsIn(stderr) });
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function measure(label: string, before: (() => Promise<void>) | undefined, run: () => Promise<Measure>) {
  const results: Measure[] = [];
  for (let i = 0; i < runs; i++) {
    await before?.();
    results.push(await run());
    process.stderr.write(
      `  ${label} #${i + 1}: ${results[i]!.seconds.toFixed(2)} s, ${results[i]!.maxRssMB.toFixed(0)} MB\n`,
    );
  }
  return {
    label,
    seconds: median(results.map((r) => r.seconds)),
    maxRssMB: Math.max(...results.map((r) => r.maxRssMB)),
    cpuSeconds: median(results.map((r) => r.cpuSeconds ?? NaN)),
    runs: results,
  };
}

interface FileInfo {
  file: string;
  bytes: number;
}

/** Every file under `dir` whose name ends with `suffix`, with its size (none when `dir` is missing); `dir` may
 * also be a single file. */
async function filesUnder(dir: string, suffix = ''): Promise<FileInfo[]> {
  const stat = await fs.stat(dir).catch(() => undefined);
  if (!stat) return [];
  if (stat.isFile()) return [{ file: dir, bytes: stat.size }];
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true });
  const files: FileInfo[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || !entry.name.endsWith(suffix)) continue;
    const file = path.join(entry.parentPath, entry.name);
    files.push({ file, bytes: (await fs.stat(file)).size });
  }
  return files;
}

const sum = (files: FileInfo[]) => files.reduce((a, f) => a + f.bytes, 0);
const mb = (bytes: number) => (bytes / 1e6).toFixed(1);

/** Which build of the CLI `bin/agent-logbook.js` will run (the same test as the launcher). */
function cliBuild(): string {
  if (process.env.AGENT_LOGBOOK_FROM_SOURCE === '1') return 'src/ through tsx (AGENT_LOGBOOK_FROM_SOURCE=1)';
  let newest = 0;
  for (const entry of readdirSync(path.join(ROOT, 'src'), { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  try {
    if (statSync(path.join(ROOT, 'dist-cli', 'main.js')).mtimeMs >= newest) return 'dist-cli bundle';
  } catch {
    // No bundle.
  }
  return 'src/ through tsx (dist-cli is missing or older than src/)';
}

/** Regenerates `dir` with `generate` unless its manifest records the same profile. */
async function ensureCorpus(dir: string, profile: unknown, generate: () => Promise<void>): Promise<void> {
  const manifestFile = path.join(dir, 'manifest.json');
  const manifest = await fs.readFile(manifestFile, 'utf8').then(JSON.parse, () => undefined);
  if (JSON.stringify(manifest?.profile) === JSON.stringify(profile)) return;
  await fs.rm(dir, { recursive: true, force: true });
  await fs.mkdir(dir, { recursive: true });
  await generate();
  await fs.writeFile(manifestFile, JSON.stringify({ profile }));
}

async function main(): Promise<void> {
  const profile = {
    generator: GENERATOR_VERSION,
    claude: scaleClaudeProfile(CCUSAGE_PROFILE, scale),
    codex: scaleCodexProfile(CODEX_PROFILE, scale),
    amazonq: scaleAmazonQProfile(AMAZONQ_PROFILE, scale),
  };
  const corpus = path.resolve(args.corpus ?? path.join(os.tmpdir(), `agent-logbook-bench-${scale}`));
  const log = (s: string) => process.stderr.write(`${s}\n`);
  await ensureCorpus(corpus, profile, async () => {
    log(`Generating the corpus in ${corpus} (scale ${scale})…`);
    await generateClaude(corpus, profile.claude, log);
    await generateCodex(corpus, profile.codex, log);
    await generateAmazonQ(corpus, profile.amazonq, log);
  });

  const claudeFiles = (await filesUnder(path.join(corpus, '.claude', 'projects'), '.jsonl')).sort(
    (a, b) => a.bytes - b.bytes || a.file.localeCompare(b.file),
  );
  const codexFiles = await filesUnder(path.join(corpus, '.codex', 'sessions'), '.jsonl');
  const codexHistory = await filesUnder(path.join(corpus, '.codex', 'history.jsonl'));
  const db = amazonQDatabase(corpus);
  const dbBytes = (await fs.stat(db)).size;
  const composition = {
    claude: { files: claudeFiles.length, bytes: sum(claudeFiles) },
    codex: { files: codexFiles.length, bytes: sum(codexFiles), historyBytes: sum(codexHistory) },
    amazonq: { conversations: profile.amazonq.conversations, bytes: dbBytes },
  };
  const totalBytes = composition.claude.bytes + composition.codex.bytes + composition.amazonq.bytes;
  const compositionLines = [
    `  Claude Code: ${composition.claude.files} session files, ${mb(composition.claude.bytes)} MB`,
    `  Codex CLI:   ${composition.codex.files} rollouts, ${mb(composition.codex.bytes)} MB (+ history.jsonl ${mb(composition.codex.historyBytes)} MB)`,
    `  Amazon Q:    ${composition.amazonq.conversations} conversations, data.sqlite3 ${mb(composition.amazonq.bytes)} MB`,
    `  total:       ${mb(totalBytes)} MB`,
  ];
  const build = cliBuild();
  log(`Corpus ${corpus} (scale ${scale}):\n${compositionLines.join('\n')}\nCLI: ${build}`);

  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-bench-run-'));
  const data = path.join(work, 'data');
  const out = path.join(work, 'dist');
  const collect = () => runNode(CLI, ['collect', '--home', corpus, '--data', data]);
  const medianFile = claudeFiles[Math.floor(claudeFiles.length / 2)]!;
  const largestFile = claudeFiles[claudeFiles.length - 1]!;
  // What the measurements change in the corpus is undone at the end, so that the next run starts from the
  // same corpus: grown files are truncated back to their size, added files removed.
  const originalSizes = new Map<string, number>();
  const addedFiles: string[] = [];
  const grow = (file: string, lines: number) => async () => {
    if (!originalSizes.has(file)) originalSizes.set(file, (await fs.stat(file)).size);
    await appendClaudeLines(file, lines);
  };
  // A new session of the median size, named as Claude Code names them (a UUID), in a project of its own.
  const newProject = path.join(path.dirname(path.dirname(medianFile.file)), '-home-bench-work-new');
  const addFile = async () => {
    const random = prng(0xadd + addedFiles.length);
    const added = path.join(newProject, `${uuidFrom(random)}.jsonl`);
    addedFiles.push(added);
    await fs.mkdir(newProject, { recursive: true });
    await writeClaudeSession(
      added,
      medianFile.bytes,
      '/home/bench/work/new',
      Date.parse('2026-11-01T09:00:00Z'),
      random,
    );
  };
  const restore = async () => {
    for (const [file, size] of originalSizes) await fs.truncate(file, size);
    await fs.rm(newProject, { recursive: true, force: true });
  };
  try {
    await measureAll();
  } finally {
    await restore();
    await fs.rm(work, { recursive: true, force: true });
  }

  async function measureAll(): Promise<void> {
    const results = [];
    /** Figures that are not times (sizes), printed under the table. */
    const extras: string[] = [];
    let siteBytes: number | undefined;
    let liveUpdate: (Measure & { label: string }) | undefined;
    results.push(await measure('cold collect', () => fs.rm(data, { recursive: true, force: true }), collect));
    results.push(await measure('warm collect (nothing changed)', undefined, collect));
    results.push(
      await measure(
        `collect after one file grew (median-size Claude file, ${mb(medianFile.bytes)} MB, +5 lines)`,
        grow(medianFile.file, 5),
        collect,
      ),
    );
    results.push(
      await measure(
        `collect after the largest Claude file grew (${mb(largestFile.bytes)} MB, +3 lines)`,
        grow(largestFile.file, 3),
        collect,
      ),
    );
    results.push(await measure('collect after one new file', addFile, collect));
    // Search (issue 16): the index is made by the first search, then kept up to date by collect.
    const search =
      (...query: string[]) =>
      () =>
        runNode(CLI, ['search', '--no-collect', '--data', data, ...query]);
    const searchIndex = path.join(data, 'search');
    results.push(
      await measure(
        'search: first search, builds the index (--no-collect)',
        () => fs.rm(searchIndex, { recursive: true, force: true }),
        search('error'),
      ),
    );
    const searchIndexBytes = sum(await filesUnder(searchIndex));
    results.push(await measure('search: English word (whole process, --no-collect)', undefined, search('error')));
    results.push(await measure('search: Japanese word ログイン (whole process)', undefined, search('ログイン')));
    results.push(await measure('search: two-character Japanese 画面 (whole process)', undefined, search('画面')));
    results.push(await measure('search: rare word, --json (whole process)', undefined, search('zzqxv', '--json')));
    results.push(
      await measure('search: collect first (nothing changed), then search', undefined, () =>
        runNode(CLI, ['search', '--home', corpus, '--data', data, 'error']),
      ),
    );
    results.push(
      await measure('collect after one file grew, with the search index', grow(medianFile.file, 5), collect),
    );
    extras.push(`Search index (SQLite): ${mb(searchIndexBytes)} MB`);
    if (!args['skip-build']) {
      const siteBuild = () =>
        runNode(CLI, ['build', '--home', corpus, '--data', data, '--out', out, '--tz', 'UTC', '--verbose']);
      // A first build: no site, no render cache, no Astro cache (the collect before it finds nothing new).
      const firstBuild = async () => {
        await fs.rm(out, { recursive: true, force: true });
        for (const cache of [
          'render.sqlite',
          'render.sqlite-wal',
          'render.sqlite-shm',
          'astro',
          'renderer',
          'site-build',
          'site-search',
        ])
          await fs.rm(path.join(data, 'cache', cache), { recursive: true, force: true });
      };
      results.push(await measure('full site build (first build: no caches)', firstBuild, siteBuild));
      const siteSearch = /Site search: \d+ of (\d+) shards written \((\d+) pages.*?\), ([\d.]+) MB in ([\d.]+)s/.exec(
        lastStderr,
      );
      if (siteSearch)
        extras.push(
          `Site search (Pagefind): ${siteSearch[2]} pages in ${siteSearch[1]} shards, ${siteSearch[3]} MB, ` +
            `${siteSearch[4]} s of the full build`,
        );
      const latency = await siteSearchLatency(out, ['error', 'ログイン', '画面', 'function value', 'zzqxv']);
      if (latency)
        extras.push(
          `Site search in Chromium, typing to results (first query loads the index): ${latency
            .map((t) => `${t.query} ${t.ms.toFixed(0)} ms (${t.results})`)
            .join(', ')}`,
        );
      siteBytes = await directoryBytes(out);
      results.push(await measure('rebuild after one-file change', grow(medianFile.file, 5), siteBuild));
      const oneChangeSearch = /Site search: (\d+) of (\d+) shards written \((\d+) pages.*? in ([\d.]+)s/.exec(
        lastStderr,
      );
      if (oneChangeSearch)
        extras.push(
          `Site search after one change: ${oneChangeSearch[1]} of ${oneChangeSearch[2]} shards written ` +
            `(${oneChangeSearch[3]} pages) in ${oneChangeSearch[4]} s`,
        );
      results.push(await measure('build with nothing changed', undefined, siteBuild));
      liveUpdate = await measure(
        'serve --watch: append to a transcript until the open page is told to reload',
        undefined,
        () => liveUpdateLatency(corpus, data, out, grow(medianFile.file, 1)),
      );
      results.push(liveUpdate);
      const shareOut = path.join(work, 'share');
      results.push(
        await measure(
          'share build (redacted, anonymized)',
          () => fs.rm(shareOut, { recursive: true, force: true }),
          () => runNode(CLI, ['build', '--share', '--home', corpus, '--data', data, '--out', shareOut, '--tz', 'UTC']),
        ),
      );
    }
    let ccusage;
    if (!args['skip-ccusage']) {
      ccusage = await measure('ccusage daily --json (Claude part only)', undefined, () =>
        runNode(CCUSAGE, ['daily', '--json', '--offline'], { CLAUDE_CONFIG_DIR: path.join(corpus, '.claude') }),
      );
      results.push(ccusage);
    }

    let huge;
    if (hugeGB !== undefined) {
      const hugeHome = path.join(path.dirname(corpus), `agent-logbook-bench-huge-${hugeGB}`);
      const hugeProfile = { generator: GENERATOR_VERSION, bytes: Math.round(hugeGB * 1e9), seed: 4242 };
      const cwd = '/home/bench/work/huge';
      const hugeFile = path.join(
        hugeHome,
        '.claude',
        'projects',
        cwd.replace(/[^a-zA-Z0-9]/g, '-'),
        'f0e1d2c3-b4a5-4697-8879-6a5b4c3d2e1f.jsonl',
      );
      await ensureCorpus(hugeHome, hugeProfile, async () => {
        log(`Generating one ${hugeGB} GB Claude session in ${hugeHome}…`);
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
      const hugeBytes = (await fs.stat(hugeFile)).size;
      log(`Huge session: ${hugeFile}, ${mb(hugeBytes)} MB`);
      const hugeData = path.join(work, 'huge-data');
      const hugeCollect = () => runNode(CLI, ['collect', '--home', hugeHome, '--data', hugeData]);
      const label = `one ${(hugeBytes / 1e9).toFixed(2)} GB Claude session`;
      const cold = await measure(
        `${label}: cold collect`,
        () => fs.rm(hugeData, { recursive: true, force: true }),
        hugeCollect,
      );
      const grew = await measure(`${label}: collect after it grew (+3 lines)`, grow(hugeFile, 3), hugeCollect);
      results.push(cold, grew);
      if (!args['skip-build']) {
        // Issue 17: a 2 GB session still builds, within the same 1 GiB and without NODE_OPTIONS.
        const hugeOut = path.join(work, 'huge-site');
        try {
          results.push(
            await measure(
              `${label}: first site build`,
              () => fs.rm(hugeOut, { recursive: true, force: true }),
              () =>
                runNode(CLI, ['build', '--home', hugeHome, '--data', hugeData, '--out', hugeOut, '--tz', 'UTC'], {
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
      huge = { home: hugeHome, file: hugeFile, bytes: hugeBytes, mbPerSecond: hugeBytes / 1e6 / cold.seconds };
    }

    const cold = results[0]!;
    const mbPerSecond = totalBytes / 1e6 / cold.seconds;
    console.log(`\nCorpus (scale ${scale}), ${runs} runs each, median; CLI: ${build}`);
    console.log(compositionLines.join('\n'));
    console.log('\n| measurement | seconds | peak RSS MB |');
    console.log('|---|---:|---:|');
    for (const r of results) {
      const cpu = r.cpuSeconds === undefined || Number.isNaN(r.cpuSeconds) ? '' : ` (CPU ${r.cpuSeconds.toFixed(1)} s)`;
      console.log(`| ${r.label} | ${r.seconds.toFixed(2)}${cpu} | ${r.maxRssMB.toFixed(0)} |`);
    }
    console.log(
      `\nCold collect throughput: ${mbPerSecond.toFixed(0)} MB/s over ${mb(totalBytes)} MB (Claude + Codex JSONL + the Q database)`,
    );
    if (huge) console.log(`Huge session cold collect: ${huge.mbPerSecond.toFixed(0)} MB/s`);
    for (const line of extras) console.log(line);
    const full = results.find((r) => r.label.startsWith('full site build'));
    const oneChange = results.find((r) => r.label === 'rebuild after one-file change');
    if (full && oneChange && siteBytes !== undefined) {
      // The figures before the incremental build (issue 17), on the scale-1 corpus: full build 63 s and 3 GB
      // peak RSS, build after one session changed 61 s.
      console.log(
        `Site: ${mb(siteBytes)} MB; full build ${full.seconds.toFixed(1)} s (${(full.seconds / 63).toFixed(2)}× the 63 s before), ` +
          `peak RSS ${full.maxRssMB.toFixed(0)} MB (${(full.maxRssMB / 3072).toFixed(2)}× the 3 GB before); after one change ` +
          `${oneChange.seconds.toFixed(1)} s (${(oneChange.seconds / 61).toFixed(2)}× the 61 s before)` +
          (liveUpdate ? `; live update ${liveUpdate.seconds.toFixed(1)} s` : ''),
      );
    }
    if (ccusage) {
      // ccusage reads the whole corpus on every run; agent-logbook's daily run is an incremental collect.
      const daily = results[2]!;
      console.log(
        `ccusage daily (Claude only) / cold collect (all sources): ${(ccusage.seconds / cold.seconds).toFixed(2)}×`,
      );
      console.log(
        `ccusage daily (Claude only) / collect after one file grew (the daily case): ${(ccusage.seconds / daily.seconds).toFixed(1)}×`,
      );
    }

    await fs.mkdir(args.out!, { recursive: true });
    const file = path.join(args.out!, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    await fs.writeFile(
      file,
      JSON.stringify(
        {
          scale,
          runs,
          corpus: { dir: corpus, ...composition, bytes: totalBytes, profile },
          ...(huge ? { huge: { gb: hugeGB, ...huge } } : {}),
          cli: build,
          node: process.version,
          cpus: os.cpus().length,
          mbPerSecond,
          siteBytes,
          results,
          extras,
        },
        null,
        2,
      ),
    );
    console.log(`\nWritten: ${path.relative(ROOT, file)}`);
  }
}

async function directoryBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}

/**
 * Starts `serve --watch` (it collects and builds first), listens to its reload events as an open page does,
 * then appends to a transcript and measures until the reload arrives. The peak RSS is the server's.
 */
async function liveUpdateLatency(
  home: string,
  data: string,
  out: string,
  append: () => Promise<void>,
): Promise<Measure> {
  const http = await import('node:http');
  const port = 43000 + Math.floor(Math.random() * 2000);
  const child = spawn(
    process.execPath,
    [
      '--import',
      RSS_HOOK,
      CLI,
      'serve',
      '--watch',
      '--home',
      home,
      '--data',
      data,
      '--out',
      out,
      '--tz',
      'UTC',
      '--port',
      String(port),
    ],
    { env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1' }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  try {
    for (let waited = 0; !stderr.includes('Serving'); waited += 100) {
      if (waited > 600_000 || child.exitCode !== null) throw new Error(`serve --watch did not start:\n${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const reloaded = new Promise<void>((resolve, reject) => {
      http
        .get(`http://127.0.0.1:${port}/__agent-logbook/events`, (response) => {
          response.on('data', (chunk: Buffer) => chunk.toString().includes('data: reload') && resolve());
        })
        .on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 300));
    const started = process.hrtime.bigint();
    await append();
    await reloaded;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    child.kill('SIGINT');
    await exited;
    const rss = /BENCH_MAXRSS_KB (\d+)/.exec(stderr);
    return { seconds, maxRssMB: rss ? Number(rss[1]) / 1024 : NaN, cpuSeconds: undefined };
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

await main();
