import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { copyFixtureHome, tempDir } from '../helpers/paths.ts';

const COPILOT = path.join('.copilot', 'session-state', 'c0ffee00-1111-4222-8333-444455556666');

async function copilotRun(home: string, dataDir: string) {
  const report = await collect({
    home,
    env: {},
    dataDir,
    sourceOptions: { explicitHome: 'true', assistants: ['copilot-cli'] },
  });
  const source = report.sources.find((s) => s.id === 'copilot-cli')!;
  return { read: source.sessions, unchanged: source.unchanged, archivedOnly: report.archivedOnly };
}

// A session read from several files (Copilot CLI's events.jsonl and workspace.yaml) is kept while every one of
// them is as it was, and read again when any one of them changed.
describe('a warm collect of a session of several files', () => {
  it('reads it again when its second file changed, was replaced or is gone', async () => {
    const home = await copyFixtureHome();
    const data = path.join(await tempDir('files'), 'data');
    const workspace = path.join(home, COPILOT, 'workspace.yaml');
    expect(await copilotRun(home, data)).toEqual({ read: 1, unchanged: 0, archivedOnly: 0 });
    expect(await copilotRun(home, data)).toEqual({ read: 0, unchanged: 1, archivedOnly: 0 });

    await fs.appendFile(workspace, '# edited\n');
    expect(await copilotRun(home, data)).toEqual({ read: 1, unchanged: 0, archivedOnly: 0 });
    expect(await copilotRun(home, data)).toEqual({ read: 0, unchanged: 1, archivedOnly: 0 });

    // Another file of the same size and times put in its place.
    const { atime, mtime } = await fs.stat(workspace);
    const copy = `${workspace}.copy`;
    await fs.copyFile(workspace, copy);
    await fs.utimes(copy, atime, mtime);
    await fs.rename(copy, workspace);
    expect(await copilotRun(home, data)).toEqual({ read: 1, unchanged: 0, archivedOnly: 0 });

    await fs.rm(workspace);
    expect(await copilotRun(home, data)).toEqual({ read: 1, unchanged: 0, archivedOnly: 0 });
    expect(await copilotRun(home, data)).toEqual({ read: 0, unchanged: 1, archivedOnly: 0 });
  });
});
