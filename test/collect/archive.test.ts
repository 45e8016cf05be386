import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { readBodyFile } from '../../src/archive/data-dir.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { runCli } from '../helpers/cli.ts';
import { copyFixtureHome, COUNTED_ASSISTANTS, FIXTURE_HOME, SESSION, tempDir } from '../helpers/paths.ts';

async function snapshot(dir: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const rel of await fs.readdir(dir, { recursive: true })) {
    const full = path.join(dir, rel);
    const stat = await fs.stat(full);
    if (stat.isFile()) {
      const hash = createHash('sha256')
        .update(await fs.readFile(full))
        .digest('hex');
      out.set(rel, `${hash}:${stat.mtimeMs}`);
    }
  }
  return out;
}

async function summaries(dataDir: string): Promise<Map<string, SessionSummary>> {
  const list = JSON.parse(await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8')) as SessionSummary[];
  return new Map(list.map((s) => [s.sessionId, s]));
}

describe('collect', () => {
  it('never changes a source file', async () => {
    const before = await snapshot(path.join(FIXTURE_HOME, '.claude'));
    const dataDir = path.join(await tempDir('data'), 'd');
    await collect({
      home: FIXTURE_HOME,
      env: {},
      dataDir,
      sourceOptions: { explicitHome: 'true', assistants: COUNTED_ASSISTANTS },
    });
    expect(await snapshot(path.join(FIXTURE_HOME, '.claude'))).toEqual(before);
  });

  it('keeps a session in the archive after its transcript is deleted, and merges prompt history', async () => {
    const home = await copyFixtureHome();
    const dataDir = path.join(await tempDir('data'), 'd');
    const options = { home, env: {}, dataDir, sourceOptions: { explicitHome: 'true', assistants: COUNTED_ASSISTANTS } };
    const first = await collect(options);
    expect(first.totalSessions).toBe(6 + 7 + 4); // Claude A–F, Codex (fixtures/CODEX.md), Amazon Q A–D
    expect(first.archivedOnly).toBe(0);

    // Claude's cleanup deletes a transcript and rewrites the history without its prompts.
    const webapp = path.join(home, '.claude', 'projects', '-home-alice-work-webapp');
    await fs.rm(path.join(webapp, `${SESSION.A}.jsonl`));
    await fs.rm(path.join(webapp, SESSION.A), { recursive: true });
    const history = path.join(home, '.claude', 'history.jsonl');
    const lines = (await fs.readFile(history, 'utf8')).split('\n').filter((l) => l && !l.includes(SESSION.A));
    await fs.writeFile(history, `${lines.join('\n')}\n`);

    const second = await collect(options);
    expect(second.totalSessions).toBe(17);
    expect(second.archivedOnly).toBe(1);
    const after = await summaries(dataDir);
    expect(after.get(SESSION.A)).toMatchObject({ title: 'Fix login redirect', sourcePresent: false });
    expect(after.get(SESSION.A)!.stats.entries).toBe(7);
    expect(after.get(SESSION.B)!.sourcePresent).toBe(true);
    const body = (await readBodyFile(dataDir, after.get(SESSION.A)!.body))!;
    expect(body.session.subagents).toHaveLength(1);
    const prompts = JSON.parse(await fs.readFile(path.join(dataDir, 'prompts', 'claude-code.json'), 'utf8'));
    expect(prompts).toHaveLength(11);
  });

  it('refuses a --data directory that holds something else, and one of another format version', async () => {
    const dir = await tempDir('data');
    await fs.writeFile(path.join(dir, 'notes.txt'), 'mine');
    await expect(
      collect({
        home: FIXTURE_HOME,
        env: {},
        dataDir: dir,
        sourceOptions: { explicitHome: 'true', assistants: COUNTED_ASSISTANTS },
      }),
    ).rejects.toThrow(/not an agent-logbook data directory/);
    const old = await tempDir('data');
    await fs.writeFile(path.join(old, 'format.json'), '{"format":"agent-logbook-data","version":999}');
    await expect(
      collect({
        home: FIXTURE_HOME,
        env: {},
        dataDir: old,
        sourceOptions: { explicitHome: 'true', assistants: COUNTED_ASSISTANTS },
      }),
    ).rejects.toThrow(/v999 is not agent-logbook-data v2/);
  });

  it('reads a version 1 archive (one JSON document per session) and upgrades it in place', async () => {
    const home = await copyFixtureHome();
    const dataDir = path.join(await tempDir('data'), 'data');
    const run = () =>
      collect({ home, env: {}, dataDir, sourceOptions: { explicitHome: 'true', assistants: COUNTED_ASSISTANTS } });
    await run();
    const a = (await summaries(dataDir)).get(SESSION.A)!;
    const before = (await readBodyFile(dataDir, a.body))!;
    expect(before.session.messages.length).toBeGreaterThan(10);
    // Rewrite as version 1 did, then let Claude "delete" the transcript: only the v1 copy is left.
    await fs.writeFile(path.join(dataDir, 'format.json'), '{"format":"agent-logbook-data","version":1}');
    await fs.writeFile(path.join(dataDir, a.body), JSON.stringify({ ...before, version: 1 }));
    await fs.rm(path.join(dataDir, a.body.replace(/\.json$/, '.messages.jsonl')));
    const webapp = path.join(home, '.claude', 'projects', '-home-alice-work-webapp');
    await fs.rm(path.join(webapp, `${SESSION.A}.jsonl`));
    await fs.rm(path.join(webapp, SESSION.A), { recursive: true });

    await run();
    expect(JSON.parse(await fs.readFile(path.join(dataDir, 'format.json'), 'utf8')).version).toBe(2);
    const after = (await readBodyFile(dataDir, a.body))!;
    expect(after.version).toBe(1);
    expect(after.session).toEqual(before.session);
    expect((await summaries(dataDir)).get(SESSION.A)).toMatchObject({ sourcePresent: false, title: a.title });
  });
});

describe('the CLI', () => {
  it('says where it looked when there are no histories, and exits 0', async () => {
    const home = await tempDir('empty-home');
    const run = await runCli(['collect', '--home', home, '--data', path.join(home, 'data')]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/^Claude Code: not found \(looked in .*\.claude, .*\.config\/claude\)$/m);
    expect(run.stderr).toMatch(/No conversations found yet/);
    // Cline is looked for in every editor's storage: a few places named, the rest counted.
    const cline = /^Cline.*: not found \(looked in (.*)\)$/m.exec(run.stderr)?.[1] ?? '';
    expect(cline).toMatch(
      /^\S+saoudrizwan\.claude-dev, \S+rooveterinaryinc\.roo-cline, \S+kilocode\.kilo-code and \d+ more places; --verbose lists them$/,
    );
    const verbose = await runCli(['collect', '--home', home, '--data', path.join(home, 'data'), '--verbose']);
    const all = /^Cline.*: not found \(looked in (.*)\)$/m.exec(verbose.stderr)?.[1]?.split(', ') ?? [];
    expect(all.length).toBe(3 + Number(/and (\d+) more/.exec(cline)?.[1]));
    expect(all.every((place) => place.includes(path.sep) && !place.includes('more places'))).toBe(true);
  });

  it('exits 2 on bad arguments', async () => {
    expect((await runCli(['build', '--tz', 'Mars/Olympus'])).code).toBe(2);
    expect((await runCli(['collect', '--no-such-flag'])).code).toBe(2);
    expect((await runCli(['frobnicate'])).code).toBe(2);
  });

  it('defaults the data directory to XDG_DATA_HOME for the real home', async () => {
    const xdg = await tempDir('xdg');
    const run = await runCli(['collect', '--claude-dir', path.join(FIXTURE_HOME, '.claude')], { XDG_DATA_HOME: xdg });
    expect(run.code).toBe(0);
    expect(run.stderr).toContain(`Data: ${path.join(xdg, 'agent-logbook')}: 6 sessions.`);
  });
});
