import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { COUNTED_ASSISTANTS, FIXTURE_HOME, tempDir } from './helpers/paths.ts';
import { runCli } from './helpers/cli.ts';
import { writeDemoDatabases } from './helpers/demo-databases.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    site: { dataDir: string; outDir: string; stderr: string; code: number };
  }
}

/**
 * Gives the run a temp directory of its own and removes it at the end, and builds the fixture site once (the
 * real CLI, the real Astro build) for the site and browser tests.
 *
 * Every temp file of the run, the tests' (`tempDir`) and those of the code under test and of the processes it
 * starts (they inherit TMPDIR; `os.tmpdir()` reads it on each call), goes under that directory, so a run
 * leaves nothing in the system's temp directory. Test workers start after this, with this environment.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const runTemp = await fs.mkdtemp(path.join(os.tmpdir(), 'agent-logbook-test-run-'));
  // Open to all, sticky, as /tmp is: a test runs the CLI as another user (nobody), who writes temp files too.
  await fs.chmod(runTemp, 0o1777);
  for (const name of ['TMPDIR', 'TMP', 'TEMP']) process.env[name] = runTemp;
  process.env.TZ = 'UTC';
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  // The SQLite databases of the demo home (Amazon Q, Kiro, Cursor, OpenCode) are generated, never committed (as `npm run demo` does).
  await writeDemoDatabases(FIXTURE_HOME);
  // Small shards, so the search box's merging of shards is what the browser tests see.
  process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS = '1500';
  const root = await tempDir('site');
  const dataDir = path.join(root, 'data');
  const outDir = path.join(root, 'dist');
  const run = await runCli([
    'build',
    '--home',
    FIXTURE_HOME,
    '--assistants',
    COUNTED_ASSISTANTS.join(','),
    '--data',
    dataDir,
    '--out',
    outDir,
    '--tz',
    'Asia/Tokyo',
  ]);
  delete process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS;
  project.provide('site', { dataDir, outDir, stderr: run.stderr, code: run.code });
  return async () => {
    await fs.rm(runTemp, { recursive: true, force: true });
  };
}
