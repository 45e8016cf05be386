import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { resolveSettings } from '../../src/cli/options.ts';
import { runCli } from '../helpers/cli.ts';
import { FIXTURE_HOME, REPO, tempDir } from '../helpers/paths.ts';

/**
 * Every `sh` example in README.md, run as written against the demo home: `npx agent-logbook …` lines run the
 * real CLI with `--home fixtures/home` (unless they name a home), and a temporary `--data` and `--out`. Lines
 * that are not agent-logbook, or that do not end by themselves, are skipped by name below, so a new kind of
 * example has to be looked at.
 */
const README = readFileSync(path.join(REPO, 'README.md'), 'utf8');

/** Commands that are not ours, or run until stopped: each listed, so nothing is skipped by accident. */
const NOT_RUN = [
  /^npm install$/,
  /^npm test$/,
  /^npm run demo$/, // writes the demo databases; the global test setup does the same
  /^npm run bench\b/, // minutes of work: `npm run bench` is measured on its own
  /^npx agent-logbook serve\b/, // runs until stopped
  /^claude mcp add\b/, // registers our server with Claude Code, which CI does not have (test/mcp runs the server)
];

function shCommands(markdown: string): string[] {
  const commands: string[] = [];
  for (const [, body] of markdown.matchAll(/^```sh\n([\s\S]*?)^```/gm)) {
    for (const raw of body!.split('\n')) {
      const line = raw.replace(/\s+#.*$/, '').trim();
      if (line) commands.push(line);
    }
  }
  return commands;
}

/** Splits a command line on spaces (the README's examples quote nothing). */
function argsOf(line: string): string[] {
  return line.split(/\s+/).slice(2);
}

const commands = shCommands(README);
const ours = commands.filter((c) => !NOT_RUN.some((skip) => skip.test(c)));

describe('README examples', () => {
  let data: string;
  let out: string;
  beforeAll(async () => {
    const dir = await tempDir('readme');
    data = path.join(dir, 'data');
    out = path.join(dir, 'out');
  });

  it('has examples, and every one is run here or skipped by name', () => {
    expect(ours.length).toBeGreaterThan(8);
    for (const c of ours) expect(c, c).toMatch(/^npx agent-logbook /);
  });

  it.each(ours.map((c) => [c]))(
    '%s',
    async (line) => {
      const args = argsOf(line);
      const command = args[0]!;
      if (!args.includes('--home') && command !== 'serve') args.push('--home', FIXTURE_HOME);
      if (!args.includes('--data')) args.push('--data', data);
      const outAt = args.indexOf('--out');
      if (outAt >= 0) args[outAt + 1] = path.join(out, path.basename(args[outAt + 1]!));
      else if (command === 'build' || command === 'share') args.push('--out', path.join(out, command));
      const run = await runCli(args);
      expect(run.code, `${line}\n${run.stderr}`).toBe(0);
      expect(run.stderr).not.toMatch(/^agent-logbook: /m);
      if (command === 'report') expect(run.stdout.length).toBeGreaterThan(0);
      if (command === 'report' && args.includes('2026-W10')) {
        expect(run.stdout).toContain('# Week 2026-W10 (2026-03-02 – 2026-03-08)');
        expect(run.stdout).toContain('Add rate limiting to login endpoint');
      }
      if (command === 'share') await fs.access(path.join(out, 'session.html'));
    },
    300_000,
  );

  it('documents a config file that the settings reader accepts', async () => {
    // Our settings files (other JSON blocks show an assistant's MCP configuration).
    const blocks = [...README.matchAll(/^```json\n([\s\S]*?)^```/gm)]
      .map((m) => m[1]!)
      .filter((block) => !block.includes('mcpServers'));
    expect(blocks.length).toBeGreaterThan(0);
    const dir = await tempDir('readme-config');
    for (const block of blocks) {
      const file = path.join(dir, 'agent-logbook.config.json');
      await fs.writeFile(file, block);
      const settings = resolveSettings({ config: file, data: path.join(dir, 'data') }, { cwd: dir, env: {} });
      expect(settings.timeZone).toBe('Asia/Tokyo');
      expect(settings.siteUrl).toBe('https://alice.github.io/logbook/');
    }
  });
});
