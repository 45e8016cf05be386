import type { SessionSummary } from '../model/session.ts';
import { bodyStamp } from '../archive/stamps.ts';
import { stampedBytes } from '../util/stamp.ts';
import { PageTextCache, readSessionTexts } from './page-texts.ts';

/** Up to this many changed bodies, of up to this many bytes in all, are read for their texts before the pages. */
const BEFORE_PAGES_BODIES = 4;
const BEFORE_PAGES_BYTES = 8 << 20;

export interface StaleTextsReport {
  /** Sessions whose texts were read now. */
  read: number;
  /** Sessions whose texts are left to the pages' build (the sessions' Markdown export gathers them). */
  left: SessionSummary[];
}

/**
 * The site search's texts of the sessions whose bodies changed since their texts were gathered. A few small ones
 * (the daily case: a session or two grew) are read now, before the pages, so that the site search can be written
 * while the pages render. More are left to the pages' build: each such session's Markdown export reads every page
 * of it anyway and gathers them as it goes (see the `.md.gz` route), so a first build reads each body once. What
 * neither gathers (a session whose export was not made again) the site search reads itself.
 */
export function readStaleTexts(dataDir: string, summaries: readonly SessionSummary[]): StaleTextsReport {
  const cache = new PageTextCache(dataDir);
  try {
    const known = cache.stamps();
    const stale: { summary: SessionSummary; stamp: string }[] = [];
    for (const summary of summaries) {
      const stamp = bodyStamp(dataDir, summary.body);
      if (stamp !== undefined && known.get(summary.id)?.stamp !== stamp) stale.push({ summary, stamp });
    }
    const bytes = stale.reduce((n, { stamp }) => n + stampedBytes(stamp), 0);
    if (stale.length > BEFORE_PAGES_BODIES || bytes > BEFORE_PAGES_BYTES) {
      return { read: 0, left: stale.map(({ summary }) => summary) };
    }
    for (const { summary, stamp } of stale) cache.put(summary.id, stamp, readSessionTexts(dataDir, summary));
    return { read: stale.length, left: [] };
  } finally {
    cache.close();
  }
}
