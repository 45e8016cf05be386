import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bodyStamp, withBodyStampsHeld } from '../../src/archive/stamps.ts';
import { tempDir } from '../helpers/paths.ts';

describe("a body's stamp", () => {
  it('is taken once while a build holds them, and afresh outside', async () => {
    const data = await tempDir('stamps');
    const body = path.join('sessions', 'claude-code', 'a.json');
    await fs.mkdir(path.join(data, 'sessions', 'claude-code'), { recursive: true });
    await fs.writeFile(path.join(data, body), '{"summary":{}}\n');
    await fs.writeFile(path.join(data, 'sessions', 'claude-code', 'a.messages.jsonl'), '{"m":1}\n');
    const before = bodyStamp(data, body);
    expect(before).toMatch(/^\d+:[\d.]+:\d+ \d+:[\d.]+:\d+$/);

    const grow = () => fs.appendFile(path.join(data, 'sessions', 'claude-code', 'a.messages.jsonl'), '{"m":2}\n');
    const seen = await withBodyStampsHeld(async () => {
      const first = bodyStamp(data, body);
      await grow();
      // Nested holds are the same hold.
      const again = await withBodyStampsHeld(async () => bodyStamp(data, body));
      return { first, again, missing: bodyStamp(data, 'sessions/claude-code/gone.json') };
    });
    expect(seen.first).toBe(before);
    expect(seen.again).toBe(before);
    expect(seen.missing).toBeUndefined();
    // Outside the hold, the grown file's stamp: its size is 8 bytes more.
    const after = bodyStamp(data, body)!;
    expect(after).not.toBe(before);
    expect(Number(after.split(' ')[1]!.split(':')[0])).toBe(Number(before!.split(' ')[1]!.split(':')[0]) + 8);
  });
});
