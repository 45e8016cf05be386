import { promises as fs } from 'node:fs';
import path from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { SessionSummary } from '../../src/model/session.ts';
import { isOnSomeDay, sessionDays } from '../../src/stats/indexes.ts';

// The session pages list the sessions isOnSomeDay keeps (siteSessions in src/site/collections.ts), the day
// indexes those sessionDays puts on a day (siteIndexes): the two must agree, or a session would have a page
// that no day links to, or none at all.
const site = inject('site');

describe('isOnSomeDay', () => {
  it('is whether sessionDays finds a day for the session, in any zone', async () => {
    const fixtures = JSON.parse(
      await fs.readFile(path.join(site.dataDir, 'index', 'sessions.json'), 'utf8'),
    ) as SessionSummary[];
    const base = fixtures[0]!;
    const variants: SessionSummary[] = [
      ...fixtures,
      { ...base, stats: { ...base.stats, activity: {} } },
      { ...base, startedAt: '', stats: { ...base.stats, activity: {} } },
    ] as SessionSummary[];
    const answers = new Set<boolean>();
    for (const timeZone of ['UTC', 'Asia/Tokyo', 'Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
      for (const summary of variants) {
        const onDay = isOnSomeDay(summary);
        expect(onDay, `${summary.id} in ${timeZone}`).toBe(sessionDays(summary, timeZone).size > 0);
        answers.add(onDay);
      }
    }
    // Both answers occur: a session with neither activity nor a start time is on no day.
    expect([...answers].sort()).toEqual([false, true]);
  });
});
