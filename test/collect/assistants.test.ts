import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { collect } from '../../src/collect/collect.ts';
import { copyFixtureHome, tempDir } from '../helpers/paths.ts';

describe('--assistants', () => {
  it('reads only the assistants named, and leaves the others as the archive knew them', async () => {
    const home = await copyFixtureHome();
    const dataDir = path.join(await tempDir('assistants'), 'data');
    const options = { home, env: {}, dataDir, sourceOptions: { explicitHome: 'true' } };
    await collect(options);
    const index = path.join(dataDir, 'index', 'sessions.json');
    const before = await fs.readFile(index, 'utf8');
    const writtenAt = (await fs.stat(index)).mtimeMs;
    const sources = (text: string) => new Set((JSON.parse(text) as { source: string }[]).map((s) => s.source));
    expect(sources(before).has('gemini-cli')).toBe(true);

    const only = await collect({
      ...options,
      sourceOptions: { ...options.sourceOptions, assistants: ['claude-code'] },
    });
    expect(only.sources.map((s) => s.id)).toEqual(['claude-code']);
    // Nothing changed and no other assistant's session was taken as gone: the index is not written again.
    expect((await fs.stat(index)).mtimeMs).toBe(writtenAt);
    expect(await fs.readFile(index, 'utf8')).toBe(before);
    expect(only.archivedOnly).toBe(0);
  });
});
