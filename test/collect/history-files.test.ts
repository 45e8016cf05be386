import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import type { HistoryPrompt } from '../../src/model/session.ts';
import { copyFixtureHome, COUNTED_ASSISTANTS, tempDir } from '../helpers/paths.ts';

async function run(home: string, dataDir: string) {
  return collect({ home, env: {}, dataDir, sourceOptions: { explicitHome: 'true', assistants: COUNTED_ASSISTANTS } });
}

async function archivedTexts(dataDir: string, source: string): Promise<string[]> {
  const prompts = JSON.parse(await fs.readFile(path.join(dataDir, 'prompts', `${source}.json`), 'utf8'));
  return (prompts as HistoryPrompt[]).map((p) => p.text);
}

/** Gives a file a whole-second mtime, which utimes can put back exactly (see editKeepingStamp). */
async function wholeSecondMtime(file: string): Promise<void> {
  await fs.utimes(file, 1772700000, 1772700000);
}

/** Rewrites a file in place (same inode) with text of the same length, and puts its (whole-second) mtime back:
 * its stamp is unchanged, so a collect that still read it would see the new text and one that trusts its stamp
 * would not. */
async function editKeepingStamp(file: string, from: string, to: string): Promise<void> {
  expect(Buffer.byteLength(from)).toBe(Buffer.byteLength(to));
  const before = await fs.stat(file);
  const text = await fs.readFile(file, 'utf8');
  expect(text).toContain(from);
  const handle = await fs.open(file, 'r+');
  await handle.write(Buffer.from(text.replace(from, to)), 0, undefined, 0);
  await handle.close();
  await fs.utimes(file, before.mtimeMs / 1000, before.mtimeMs / 1000);
  const after = await fs.stat(file);
  expect([after.size, after.mtimeMs, after.ino]).toEqual([before.size, before.mtimeMs, before.ino]);
}

describe('prompt histories in a warm collect', () => {
  it('does not read an unchanged history again, yet reports its prompts and warnings as before', async () => {
    const home = await copyFixtureHome();
    const data = path.join(await tempDir('hist'), 'data');
    const history = path.join(home, '.codex', 'history.jsonl');
    await wholeSecondMtime(history);
    const first = await run(home, data);
    const codex = (r: typeof first) => r.sources.find((s) => s.id === 'codex')!;
    const historyWarnings = (r: typeof first) => r.warnings.filter((w) => w.file.endsWith('.codex/history.jsonl'));
    expect(historyWarnings(first)).toHaveLength(2);

    await editKeepingStamp(history, 'Add rate limiting', 'Add rate LIMITING');
    const second = await run(home, data);
    expect(await archivedTexts(data, 'codex')).toContain('Add rate limiting to POST /login');
    expect(await archivedTexts(data, 'codex')).not.toContain('Add rate LIMITING to POST /login');
    expect(codex(second).prompts).toBe(codex(first).prompts);
    expect(codex(second).warnings).toBe(2);
    expect(historyWarnings(second)).toEqual(historyWarnings(first));
  });

  it('reads a history again when it grew, when the archive lost its prompts, or when a session is new', async () => {
    const home = await copyFixtureHome();
    const data = path.join(await tempDir('hist'), 'data');
    const first = await run(home, data);
    const prompts = (r: typeof first) => r.sources.find((s) => s.id === 'codex')!.prompts;
    const history = path.join(home, '.codex', 'history.jsonl');

    await fs.appendFile(history, `${JSON.stringify({ session_id: 'x', ts: 1772700000, text: 'one more prompt' })}\n`);
    await wholeSecondMtime(history);
    const grown = await run(home, data);
    expect(prompts(grown)).toBe(prompts(first) + 1);
    expect(await archivedTexts(data, 'codex')).toContain('one more prompt');

    // The archive's prompt file replaced by an older copy: its stamp no longer matches, so every history is read.
    await editKeepingStamp(history, 'one more prompt', 'one MORE prompt');
    await fs.rm(path.join(data, 'prompts', 'codex.json'));
    await run(home, data);
    expect(await archivedTexts(data, 'codex')).toContain('one MORE prompt');

    // A new rollout may be the session a history prompt names (its folder files the prompt): read again.
    await editKeepingStamp(history, 'one MORE prompt', 'one more PROMPT');
    const day = path.join(home, '.codex', 'sessions', '2026', '03', '04');
    const [rollout] = (await fs.readdir(day)).filter((f) => f.endsWith('.jsonl'));
    const copy = (await fs.readFile(path.join(day, rollout!), 'utf8')).replaceAll(
      '019cb1a0-0001-7000-8000-000000000001',
      '019cb1a0-0009-7000-8000-000000000009',
    );
    await fs.writeFile(path.join(day, 'rollout-2026-03-04T20-00-00-019cb1a0-0009-7000-8000-000000000009.jsonl'), copy);
    await run(home, data);
    expect(await archivedTexts(data, 'codex')).toContain('one more PROMPT');
  });
});
