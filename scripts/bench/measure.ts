// Running the CLI (or ccusage) in a child process and taking its wall time, CPU time and peak RSS.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// Reports the child's peak RSS on exit, whatever the program is, and its CPU time (all threads), which on a
// shared machine says more than the wall clock. The main thread only:
// --import runs in worker threads too, and a worker ending early would report the peak so far.
export const RSS_HOOK = `data:text/javascript,import{isMainThread}from'node:worker_threads';if(isMainThread)process.on('exit',()=>{const u=process.resourceUsage();process.stderr.write('\\nBENCH_MAXRSS_KB '+u.maxRSS+' BENCH_CPU_US '+(u.userCPUTime+u.systemCPUTime)+'\\n')})`;

export interface Measure {
  seconds: number;
  maxRssMB: number;
  /** The peak of the summed RSS of the process and every process it started (Pagefind's indexers), sampled
   * every half second from /proc; undefined where there is no /proc. */
  treeRssMB?: number;
  /** User + system CPU seconds of the process, all threads. */
  cpuSeconds?: number;
}

export interface Measured extends Measure {
  label: string;
  runs: Measure[];
}

export function cpuSecondsIn(stderr: string): number | undefined {
  const match = /BENCH_CPU_US (\d+)/.exec(stderr);
  return match ? Number(match[1]) / 1e6 : undefined;
}

export function peakRssIn(stderr: string): number {
  const rss = /BENCH_MAXRSS_KB (\d+)/.exec(stderr);
  return rss ? Number(rss[1]) / 1024 : NaN;
}

/** The stderr of the last child that ran (for figures a command prints, e.g. the site search's). */
let lastStderr = '';
export const lastChildStderr = (): string => lastStderr;

export function runNode(script: string, argv: string[], env: NodeJS.ProcessEnv = {}): Promise<Measure> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, ['--import', RSS_HOOK, script, ...argv], {
      env: { ...process.env, ASTRO_TELEMETRY_DISABLED: '1', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let treePeak: number | undefined;
    const sampler = setInterval(() => {
      const mb = child.pid === undefined ? undefined : treeRssMB(child.pid);
      if (mb !== undefined) treePeak = Math.max(treePeak ?? 0, mb);
    }, 500);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (stderr.length > 1_000_000) stderr = stderr.slice(-100_000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(sampler);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      lastStderr = stderr;
      if (code !== 0)
        return reject(new Error(`${path.basename(script)} ${argv.join(' ')} exited ${code}\n${stderr.slice(-2000)}`));
      const maxRssMB = peakRssIn(stderr);
      // A sample can miss the process's own peak between two samples: the sum is at least that.
      const treeMB = treePeak === undefined ? undefined : Math.max(treePeak, maxRssMB);
      resolve({ seconds, maxRssMB, treeRssMB: treeMB, cpuSeconds: cpuSecondsIn(stderr) });
    });
  });
}

/** The summed RSS, in MB, of a process and its descendants now, from /proc (undefined without it). */
function treeRssMB(root: number): number | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const children = new Map<number, number[]>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // After the command in parentheses: state, then the parent's pid.
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
    } catch {
      // gone meanwhile
    }
  }
  let kB = 0;
  for (const pending = [root]; pending.length > 0;) {
    const pid = pending.pop()!;
    pending.push(...(children.get(pid) ?? []));
    try {
      kB += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone meanwhile
    }
  }
  return kB / 1024;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** `runs` runs of `run`, each after `before`: the median time and CPU, the highest peak RSS. */
export async function measure(
  label: string,
  runs: number,
  before: (() => Promise<void>) | undefined,
  run: () => Promise<Measure>,
): Promise<Measured> {
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
    treeRssMB: results.some((r) => r.treeRssMB !== undefined)
      ? Math.max(...results.map((r) => r.treeRssMB ?? 0))
      : undefined,
    cpuSeconds: median(results.map((r) => r.cpuSeconds ?? NaN)),
    runs: results,
  };
}
