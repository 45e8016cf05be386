import { describe, expect, it } from 'vitest';
import { mapLimit } from '../../src/util/map-limit.ts';

describe('mapLimit', () => {
  it('keeps the order of the items and never runs more than the limit at once', async () => {
    let running = 0;
    let most = 0;
    const items = Array.from({ length: 40 }, (_, i) => i);
    const results = await mapLimit(items, 6, async (n) => {
      running += 1;
      most = Math.max(most, running);
      // Later items finish first, so the order of the results cannot come from the order of completion.
      await new Promise((resolve) => setTimeout(resolve, 40 - n));
      running -= 1;
      return n * 2;
    });
    expect(results).toEqual(items.map((n) => n * 2));
    expect(most).toBe(6);
    expect(await mapLimit([], 4, async () => 1)).toEqual([]);
  });
});
