/**
 * npm run bench [-- --scale 0.1 --runs 3 --corpus DIR --skip-ccusage --skip-build --huge GB --against REV
 *                 --generate-only --help]
 *
 * Generates a realistic corpus of every source in one home (Claude Code after ccusage's size profile, Codex CLI
 * rollouts and an Amazon Q database, and about a tenth of the sessions from Gemini CLI, Copilot CLI, Cursor,
 * OpenCode and Cline; all scaled), then measures the real CLI in child processes
 * (suite.ts): cold collect, warm collect, collect after a median-size and after the largest Claude file grew,
 * after a new file, searches, a full site build, a rebuild after a one-file change (a median-size session, then
 * the newest one), a live update and a share build; and `ccusage daily --json` on the Claude part of the same corpus. `--huge GB` adds one Claude session of
 * that many GB, alone in a home of its own (streamed to disk). `--against REV` measures the CLI of another
 * commit too, on the same corpus in the same run, and prints each figure's ratio to it.
 * Each figure is the median of --runs runs, with the peak RSS. Prints a table and writes JSON. `--generate-only`
 * makes the corpus (unless it is there already) and prints what it holds, without measuring.
 */
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { corpusComposition, CorpusChanges, ensureCorpus, GENERATOR_VERSION, mb } from './corpus.ts';
import { AMAZONQ_PROFILE, generateAmazonQ, scaleAmazonQProfile } from './generate-amazonq.ts';
import { CCUSAGE_PROFILE, generateClaude, scaleClaudeProfile } from './generate-claude.ts';
import { CODEX_PROFILE, generateCodex, scaleCodexProfile } from './generate-codex.ts';
import { measure, type Measured, runNode } from './measure.ts';
import { generateOtherSources, scaleOtherProfiles } from './other-sources.ts';
import { cliAt, cliBuild, type OtherCli } from './previous.ts';
import { LABELS, runSuite, type SuiteResult } from './suite.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = path.join(ROOT, 'bin', 'agent-logbook.js');
const CCUSAGE = path.join(ROOT, 'node_modules', 'ccusage', 'dist', 'index.js');

const { values: args } = parseArgs({
  options: {
    scale: { type: 'string', default: '0.1' },
    runs: { type: 'string', default: '3' },
    corpus: { type: 'string' },
    out: { type: 'string', default: path.join(ROOT, 'bench-out') },
    'skip-ccusage': { type: 'boolean', default: false },
    'skip-build': { type: 'boolean', default: false },
    huge: { type: 'string' },
    against: { type: 'string' },
    'generate-only': { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (args.help) {
  const source = await fs.readFile(fileURLToPath(import.meta.url), 'utf8');
  console.log(
    source
      .slice(source.indexOf('/**') + 3, source.indexOf('*/'))
      .replace(/^ \* ?/gm, '')
      .trim(),
  );
  process.exit(0);
}
const scale = Number(args.scale);
const runs = Math.max(1, Number(args.runs));
const hugeGB = args.huge === undefined ? undefined : Number(args.huge);
if (!(scale > 0)) throw new Error(`--scale must be a positive number, not ${args.scale}`);
if (hugeGB !== undefined && !(hugeGB > 0)) throw new Error(`--huge must be a positive number of GB, not ${args.huge}`);
const log = (s: string) => process.stderr.write(`${s}\n`);

async function main(): Promise<void> {
  const profile = {
    generator: GENERATOR_VERSION,
    claude: scaleClaudeProfile(CCUSAGE_PROFILE, scale),
    codex: scaleCodexProfile(CODEX_PROFILE, scale),
    amazonq: scaleAmazonQProfile(AMAZONQ_PROFILE, scale),
    others: scaleOtherProfiles(scale),
  };
  const corpus = path.resolve(args.corpus ?? path.join(os.tmpdir(), `agent-logbook-bench-${scale}`));
  await ensureCorpus(corpus, profile, async () => {
    log(`Generating the corpus in ${corpus} (scale ${scale})…`);
    await generateClaude(corpus, profile.claude, log);
    await generateCodex(corpus, profile.codex, log);
    await generateAmazonQ(corpus, profile.amazonq, log);
    await generateOtherSources(corpus, profile.others, log);
  });
  const { claudeFiles, composition, totalBytes, lines } = await corpusComposition(
    corpus,
    profile.amazonq.conversations,
    profile.others,
  );
  if (args['generate-only']) {
    console.log(`Corpus ${corpus} (scale ${scale}):\n${lines.join('\n')}`);
    return;
  }
  const build = cliBuild(ROOT);
  log(`Corpus ${corpus} (scale ${scale}):\n${lines.join('\n')}\nCLI: ${build}`);

  const work = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-bench-run-'));
  const changes = new CorpusChanges(claudeFiles[Math.floor(claudeFiles.length / 2)]!);
  let other: OtherCli | undefined;
  try {
    const suite = async (cli: string, name: string, siteSearch: boolean): Promise<SuiteResult> => {
      log(`Measuring ${name}…`);
      try {
        const options = { cli, corpus, runs, claudeFiles, changes, hugeGB, log, siteSearch };
        return await runSuite({ ...options, work: path.join(work, name), skipBuild: args['skip-build']! });
      } finally {
        await changes.restore();
      }
    };
    let previous: SuiteResult | undefined;
    if (args.against) {
      other = await cliAt(ROOT, args.against);
      previous = await suite(other.cli, other.rev, false);
    }
    const current = await suite(CLI, 'current', true);
    const ccusage = args['skip-ccusage']
      ? undefined
      : await measure('ccusage daily --json (Claude part only)', runs, undefined, () =>
          runNode(CCUSAGE, ['daily', '--json', '--offline'], { CLAUDE_CONFIG_DIR: path.join(corpus, '.claude') }),
        );
    const mbPerSecond = totalBytes / 1e6 / current.results[0]!.seconds;
    report(build, lines, totalBytes, current, previous && other ? { rev: other.rev, ...previous } : undefined, ccusage);
    await fs.mkdir(args.out!, { recursive: true });
    const file = path.join(args.out!, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    const { results, extras, siteBytes, huge } = current;
    const json = {
      scale,
      runs,
      corpus: { dir: corpus, ...composition, bytes: totalBytes, profile },
      ...(huge ? { huge: { gb: hugeGB, ...huge } } : {}),
      cli: build,
      node: process.version,
      cpus: os.cpus().length,
      mbPerSecond,
      siteBytes,
      results: ccusage ? [...results, ccusage] : results,
      extras,
      ...(previous && other ? { against: { rev: other.rev, ...previous } } : {}),
    };
    await fs.writeFile(file, JSON.stringify(json, null, 2));
    console.log(`\nWritten: ${path.relative(ROOT, file)}`);
  } finally {
    await other?.remove();
    await fs.rm(work, { recursive: true, force: true });
  }
}

const cpuOf = (r: Measured) =>
  r.cpuSeconds === undefined || Number.isNaN(r.cpuSeconds) ? '' : ` (CPU ${r.cpuSeconds.toFixed(1)} s)`;

function report(
  build: string,
  lines: string[],
  totalBytes: number,
  current: SuiteResult,
  previous: (SuiteResult & { rev: string }) | undefined,
  ccusage: Measured | undefined,
): void {
  const { results, extras, siteBytes, huge } = current;
  console.log(`\nCorpus (scale ${scale}), ${runs} runs each, median; CLI: ${build}`);
  console.log(lines.join('\n'));
  if (previous) {
    console.log(`\n| measurement | seconds | peak RSS MB | at ${previous.rev}: seconds | RSS MB | ratio (time) |`);
    console.log('|---|---:|---:|---:|---:|---:|');
  } else {
    console.log('\n| measurement | seconds | peak RSS MB |');
    console.log('|---|---:|---:|');
  }
  for (const r of ccusage ? [...results, ccusage] : results) {
    const row = `| ${r.label} | ${r.seconds.toFixed(2)}${cpuOf(r)} | ${r.maxRssMB.toFixed(0)} |`;
    const before = previous?.results.find((p) => p.label === r.label);
    if (!previous) console.log(row);
    else if (!before) console.log(`${row} — | — | — |`);
    else
      console.log(
        `${row} ${before.seconds.toFixed(2)}${cpuOf(before)} | ${before.maxRssMB.toFixed(0)} | ${(r.seconds / before.seconds).toFixed(2)}× |`,
      );
  }
  const cold = results[0]!;
  console.log(
    `\nCold collect throughput: ${(totalBytes / 1e6 / cold.seconds).toFixed(0)} MB/s over ${mb(totalBytes)} MB (every source's files)`,
  );
  if (huge) console.log(`Huge session cold collect: ${huge.mbPerSecond.toFixed(0)} MB/s`);
  for (const line of extras) console.log(line);
  const full = results.find((r) => r.label === LABELS.fullBuild);
  const oneChange = results.find((r) => r.label === LABELS.oneChange);
  const live = results.find((r) => r.label === LABELS.live);
  if (full && oneChange && siteBytes !== undefined) {
    // The figures before the incremental build (issue 17), on the scale-1 corpus: full build 63 s and 3 GB
    // peak RSS, build after one session changed 61 s.
    console.log(
      `Site: ${mb(siteBytes)} MB${previous?.siteBytes ? ` (${mb(previous.siteBytes)} MB at ${previous.rev})` : ''}; ` +
        `full build ${full.seconds.toFixed(1)} s (${(full.seconds / 63).toFixed(2)}× the 63 s before), ` +
        `peak RSS ${full.maxRssMB.toFixed(0)} MB (${(full.maxRssMB / 3072).toFixed(2)}× the 3 GB before); after one change ` +
        `${oneChange.seconds.toFixed(1)} s (${(oneChange.seconds / 61).toFixed(2)}× the 61 s before)` +
        (live ? `; live update ${live.seconds.toFixed(1)} s` : ''),
    );
  }
  if (ccusage) {
    // ccusage reads the whole corpus on every run; agent-logbook's daily run is an incremental collect.
    const daily = results.find((r) => r.label.startsWith(LABELS.daily))!;
    console.log(
      `ccusage daily (Claude only) / cold collect (all sources): ${(ccusage.seconds / cold.seconds).toFixed(2)}×`,
    );
    console.log(
      `ccusage daily (Claude only) / collect after one file grew (the daily case): ${(ccusage.seconds / daily.seconds).toFixed(1)}×`,
    );
  }
}

await main();
