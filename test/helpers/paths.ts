import { existsSync, promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../..', import.meta.url));
export const FIXTURE_HOME = path.join(REPO, 'fixtures', 'home');
export const FIXTURE_CLAUDE = path.join(FIXTURE_HOME, '.claude');
/** Real sample files beside the repository (in our CI only); AGENT_LOGBOOK_SAMPLES points elsewhere. */
export const SAMPLES = path.resolve(REPO, process.env.AGENT_LOGBOOK_SAMPLES ?? path.join('..', 'shared', 'samples'));
export const HAS_SAMPLES = existsSync(SAMPLES);

/** Tests over the real samples skip when they are absent (a clone on its own), saying so in one line. */
export function noteSamples(what: string): boolean {
  if (!HAS_SAMPLES) console.warn(`skipped: ${what} (no sample files at ${SAMPLES})`);
  return HAS_SAMPLES;
}

export const WEBAPP = path.join(FIXTURE_CLAUDE, 'projects', '-home-alice-work-webapp');
export const API = path.join(FIXTURE_CLAUDE, 'projects', '-home-alice-work-api');
export const NOTES = path.join(FIXTURE_CLAUDE, 'projects', '-home-alice-notes----');

export const SESSION = {
  A: '11111111-1111-4111-8111-111111111111',
  B: '22222222-2222-4222-8222-222222222222',
  C: '33333333-3333-4333-8333-333333333333',
  D: '44444444-4444-4444-8444-444444444444',
  E: '55555555-5555-4555-8555-555555555555',
  F: '66666666-6666-4666-8666-666666666666',
} as const;

export async function tempDir(prefix: string): Promise<string> {
  return fs.mkdtemp(path.join(os.tmpdir(), `agent-logbook-${prefix}-`));
}

/** A private copy of the fixture home, for tests that change or delete source files. */
export async function copyFixtureHome(): Promise<string> {
  const dir = await tempDir('home');
  await fs.cp(FIXTURE_HOME, dir, { recursive: true });
  return dir;
}

/** A private copy of the fixture home, and a data and an output folder of their own, for a test that builds. */
export async function fixtureBuild(prefix: string): Promise<{ home: string; data: string; out: string }> {
  const home = await copyFixtureHome();
  const root = await tempDir(prefix);
  return { home, data: path.join(root, 'data'), out: path.join(root, 'site') };
}

/** The assistants whose fixture-home sessions the hand-counted tests count (Claude Code, Codex, Amazon Q and the
 * custom-agent messages): the other assistants' demo sessions have tests of their own (test/sources/). */
export const COUNTED_ASSISTANTS = ['claude-code', 'codex', 'amazon-q', 'messages'];
