/**
 * npm run bench [-- --scale 0.1 --runs 3 --corpus DIR --skip-ccusage --skip-build]
 *
 * Generates a realistic corpus (ccusage's size profile, scaled), then measures the real CLI in child
 * processes: cold collect, warm collect, collect after a file grew, after a new file, a full site build
 * and a rebuild after a one-file change; and `ccusage daily --json` on the same Claude corpus.
 * Each figure is the median of --runs runs, with the peak RSS. Prints a table and writes JSON.
 */
import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CCUSAGE_PROFILE, generateClaude } from './generate-claude.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'bin', 'agent-logbook.js');
const CCUSAGE = path.join(ROOT, 'node_modules', 'ccusage', 'dist', 'index.js');
// Reports the child's peak RSS on exit, whatever the program is.
const RSS_HOOK = `data:text/javascript,process.on('exit',()=>process.stderr.write('\\nBENCH_MAXRSS_KB '+process.resourceUsage().maxRSS+'\\n'))`;

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: '0.1' },
    runs: { type: 'string', default: '3' },
    corpus: { type: 'string' },
    out: { type: 'string', default: path.join(ROOT, 'bench-out') },
    'skip-ccusage': { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
  },
});
const scale = Number(args.scale);
const runs = Math.max(1, Number(args.runs));

interface Measure {
  seconds: number;
  maxRssMB: number;
}

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
      if (code !== 0)
        return reject(new Error(`${path.basename(script)} ${argv.join(' ')} exited ${code}\n${stderr.slice(-2000)}`));
      resolve({ seconds, maxRssMB: rss ? Number(rss[1]) / 1024 : NaN });
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
    runs: results,
  };
}

async function dirBytes(dir: string): Promise<{ bytes: number; files: number }> {
  let bytes = 0;
  let files = 0;
  for (const entry of await fs.readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    files += 1;
    bytes += (await fs.stat(path.join(entry.parentPath, entry.name))).size;
  }
  return { bytes, files };
}

async function main(): Promise<void> {
  const profile = { ...CCUSAGE_PROFILE, files: Math.max(10, Math.round(CCUSAGE_PROFILE.files * scale)) };
  profile.maxBytes = Math.max(1_000_000, Math.round(CCUSAGE_PROFILE.maxBytes * Math.min(1, scale * 2)));
  const corpus = path.resolve(args.corpus ?? path.join(os.tmpdir(), `agent-logbook-bench-${scale}`));
  const manifestFile = path.join(corpus, 'manifest.json');
  const manifest = await fs.readFile(manifestFile, 'utf8').then(JSON.parse, () => undefined);
  if (JSON.stringify(manifest?.profile) !== JSON.stringify(profile)) {
    process.stderr.write(`Generating the corpus in ${corpus} (scale ${scale})…\n`);
    await fs.rm(corpus, { recursive: true, force: true });
    await fs.mkdir(corpus, { recursive: true });
    await generateClaude(corpus, profile, (s) => process.stderr.write(`${s}\n`));
    await fs.writeFile(manifestFile, JSON.stringify({ profile }));
  }
  const claude = await dirBytes(path.join(corpus, '.claude'));
  process.stderr.write(`Corpus: ${claude.files} Claude files, ${(claude.bytes / 1e6).toFixed(0)} MB\n`);

  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-bench-run-'));
  const data = path.join(work, 'data');
  const out = path.join(work, 'dist');
  const collect = () => runNode(CLI, ['collect', '--home', corpus, '--data', data]);
  const projects = path.join(corpus, '.claude', 'projects');
  const someFile = async () => {
    const dir = path.join(projects, (await fs.readdir(projects)).sort()[0]!);
    const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.jsonl')).sort();
    return path.join(dir, files[Math.floor(files.length / 2)]!);
  };
  const grow = async () => {
    const file = await someFile();
    const last = (await fs.readFile(file, 'utf8')).trimEnd().split('\n').pop()!;
    const record = JSON.parse(last);
    const lines = Array.from({ length: 5 }, (_, i) =>
      JSON.stringify({ ...record, uuid: `bench-${Date.now()}-${i}`, timestamp: new Date().toISOString() }),
    );
    await fs.appendFile(file, `${lines.join('\n')}\n`);
  };
  let added = 0;
  const addFile = async () => {
    const source = await someFile();
    await fs.copyFile(source, path.join(path.dirname(source), `00000000-bench-${added++}.jsonl`));
  };

  const results = [];
  results.push(await measure('cold collect', () => fs.rm(data, { recursive: true, force: true }), collect));
  results.push(await measure('warm collect (nothing changed)', undefined, collect));
  results.push(await measure('collect after one file grew', grow, collect));
  results.push(await measure('collect after one new file', addFile, collect));
  if (!args['skip-build']) {
    const build = () => runNode(CLI, ['build', '--home', corpus, '--data', data, '--out', out, '--tz', 'UTC']);
    results.push(await measure('full site build', () => fs.rm(out, { recursive: true, force: true }), build));
    results.push(await measure('rebuild after one-file change', grow, build));
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
    ccusage = await measure('ccusage daily --json', undefined, () =>
      runNode(CCUSAGE, ['daily', '--json', '--offline'], { CLAUDE_CONFIG_DIR: path.join(corpus, '.claude') }),
    );
    results.push(ccusage);
  }

  const cold = results[0]!;
  const mbPerSecond = claude.bytes / 1e6 / cold.seconds;
  console.log(
    `\nCorpus: ${claude.files} files, ${(claude.bytes / 1e6).toFixed(0)} MB (scale ${scale}), ${runs} runs each, median`,
  );
  console.log('| measurement | seconds | peak RSS MB |');
  console.log('|---|---:|---:|');
  for (const r of results) console.log(`| ${r.label} | ${r.seconds.toFixed(2)} | ${r.maxRssMB.toFixed(0)} |`);
  console.log(`\nCold collect throughput: ${mbPerSecond.toFixed(0)} MB/s of JSONL`);
  if (ccusage) console.log(`ccusage daily / cold collect: ${(ccusage.seconds / cold.seconds).toFixed(2)}×`);

  await fs.mkdir(args.out!, { recursive: true });
  const file = path.join(args.out!, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  await fs.writeFile(
    file,
    JSON.stringify(
      {
        scale,
        runs,
        corpus: { ...claude, profile },
        node: process.version,
        cpus: os.cpus().length,
        mbPerSecond,
        results,
      },
      null,
      2,
    ),
  );
  console.log(`\nWritten: ${path.relative(ROOT, file)}`);
  await fs.rm(work, { recursive: true, force: true });
}

await main();
