import { promises as fs } from 'node:fs';
import path from 'node:path';
import { JSDOM } from 'jsdom';
import { describe, expect, inject, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import {
  checkRetention,
  readClaudeCleanup,
  retentionSentence,
  savedFromDeletion,
} from '../../src/insights/retention.ts';
import type { SessionSummary } from '../../src/model/session.ts';
import { runCli } from '../helpers/cli.ts';
import { copyFixtureHome, SESSION, tempDir, WEBAPP } from '../helpers/paths.ts';

const site = inject('site');

describe('retention', () => {
  it("reads Claude Code's cleanupPeriodDays, or names the default", async () => {
    const home = await tempDir('ret-home');
    await fs.mkdir(path.join(home, '.claude', 'projects'), { recursive: true });
    const none = await readClaudeCleanup(home, {}, { explicitHome: 'true' });
    expect(retentionSentence(none)).toBe(
      'Claude Code deletes transcripts after 30 days — `cleanupPeriodDays`, default',
    );
    await fs.writeFile(path.join(home, '.claude', 'settings.json'), JSON.stringify({ cleanupPeriodDays: 14 }));
    const set = await readClaudeCleanup(home, {}, { explicitHome: 'true' });
    expect(set).toMatchObject({ days: 14, from: path.join(home, '.claude', 'settings.json') });
    expect(retentionSentence(set)).toBe('Claude Code deletes transcripts after 14 days — `cleanupPeriodDays`');
  });

  it('collect warns, with the fix, about sessions deleted before any collect and about a long pause', async () => {
    const home = await tempDir('ret-gap');
    await fs.mkdir(path.join(home, '.claude', 'projects'), { recursive: true });
    const prompt = (at: number, sessionId: string) =>
      JSON.stringify({ display: 'old work', timestamp: at, project: '/tmp/x', sessionId });
    await fs.writeFile(
      path.join(home, '.claude', 'history.jsonl'),
      `${prompt(1772000000000, 'aaaaaaaa-0000-4000-8000-000000000001')}\n${prompt(1772100000000, 'aaaaaaaa-0000-4000-8000-000000000002')}\n`,
    );
    const data = path.join(await tempDir('ret-data'), 'd');
    const run = await runCli(['collect', '--home', home, '--data', data]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(
      /^Retention: Claude Code: 2 sessions were deleted before any collect saw them \(prompts of 2026-02-25 to 2026-02-26 .*a gap in collecting\. To keep every session, run `agent-logbook collect` daily .*raise `cleanupPeriodDays` in .*settings\.json \(now 30, the default\)\.$/m,
    );
    const file = JSON.parse(await fs.readFile(path.join(data, 'insights', 'retention.json'), 'utf8'));
    expect(file.sources.map((s: { source: string }) => s.source)).toEqual(['claude-code', 'codex', 'amazon-q']);

    const later = new Date(Date.parse(file.checkedAt) + 29 * 86_400_000);
    const warnings = await checkRetention({
      home,
      env: {},
      dataDir: data,
      sourceOptions: { explicitHome: 'true' },
      now: later,
    });
    expect(warnings.at(-1)).toMatch(
      /^Claude Code: the last collect was 29 days ago and transcripts are deleted after 30 days, so sessions can be deleted before a collect sees them\. Run `agent-logbook collect` daily/,
    );
    const soon = new Date(Date.parse(later.toISOString()) + 86_400_000);
    const calm = await checkRetention({
      home,
      env: {},
      dataDir: data,
      sourceOptions: { explicitHome: 'true' },
      now: soon,
    });
    expect(calm.some((w) => w.includes('the last collect was'))).toBe(false);
  });

  it('counts the sessions that exist only in the archive', async () => {
    const home = await copyFixtureHome();
    const dataDir = path.join(await tempDir('ret-saved'), 'd');
    const options = { home, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } };
    await collect(options);
    await fs.rm(
      path.join(home, path.relative(path.dirname(path.dirname(path.dirname(WEBAPP))), WEBAPP), `${SESSION.A}.jsonl`),
    );
    await collect(options);
    const summaries = JSON.parse(
      await fs.readFile(path.join(dataDir, 'index', 'sessions.json'), 'utf8'),
    ) as SessionSummary[];
    expect(savedFromDeletion(summaries)).toEqual({ 'claude-code': 1 });
  });

  it('the home page says how long each assistant keeps history', async () => {
    const doc = new JSDOM(await fs.readFile(path.join(site.outDir, 'index.html'), 'utf8')).window.document;
    const items = [...doc.querySelectorAll('.retention li')].map((li) => li.textContent!.replace(/\s+/g, ' ').trim());
    expect(items[0]).toContain('Claude Code deletes transcripts after 30 days — cleanupPeriodDays');
    expect(items[1]).toContain('Codex CLI keeps its session rollouts; it deletes none by itself');
    expect(items[2]).toContain('a new q chat in the same directory overwrites the last one');
    expect(doc.querySelector('.retention li code')?.textContent).toBe('cleanupPeriodDays');
  });
});
