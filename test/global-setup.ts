import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { FIXTURE_HOME, tempDir } from './helpers/paths.ts';
import { runCli } from './helpers/cli.ts';
import { writeDemoDatabases } from './helpers/amazonq-db.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    site: { dataDir: string; outDir: string; stderr: string; code: number };
  }
}

/** Builds the fixture site once (the real CLI, the real Astro build) for the site and browser tests. */
export default async function setup(project: TestProject): Promise<void> {
  process.env.TZ = 'UTC';
  process.env.ASTRO_TELEMETRY_DISABLED = '1';
  // The Amazon Q / Kiro databases of the demo home are generated, never committed (as `npm run demo` does).
  await writeDemoDatabases(FIXTURE_HOME);
  // Small shards, so the search box's merging of shards is what the browser tests see.
  process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS = '1500';
  const root = await tempDir('site');
  const dataDir = path.join(root, 'data');
  const outDir = path.join(root, 'dist');
  const run = await runCli(['build', '--home', FIXTURE_HOME, '--data', dataDir, '--out', outDir, '--tz', 'Asia/Tokyo']);
  delete process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS;
  project.provide('site', { dataDir, outDir, stderr: run.stderr, code: run.code });
}
