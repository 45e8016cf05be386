import { saneIsoFromMs, saneIsoFromText } from '../../util/time.ts';
import type { Session } from '../../model/session.ts';
import type { ConversationRow } from './reader.ts';
import { NOTICE_UNIT, unitOf, type Draft } from './draft.ts';

/** Times outside the sane range (util/time.ts) are treated as absent. */
export function isoFromMs(ms: unknown): string | undefined {
  return saneIsoFromMs(ms);
}

export function isoFromText(text: unknown): string | undefined {
  return saneIsoFromText(text);
}

/**
 * Times, best first: the data's own (user `timestamp`, `request_metadata` epoch ms); the time an earlier run
 * gave the same stored unit (kept in the archive: the time first seen); the previous data time; the row's
 * `created_at` for its first unit; the next data time; the row's `updated_at` (Kiro) or the file's mtime.
 */
export function resolveTimes(drafts: Draft[], archived: Session | undefined, row: ConversationRow): void {
  const archivedTimes = new Map<string, string>();
  for (const m of archived?.messages ?? []) {
    const unit = unitOf(m);
    if (!unit || !m.timestamp) continue;
    const part = /\.(\d+)$/.exec(m.id.split('#').slice(1).join('#'))?.[1] ?? '0';
    archivedTimes.set(`${unit}|${part}`, m.timestamp);
    if (!archivedTimes.has(`${unit}|*`)) archivedTimes.set(`${unit}|*`, m.timestamp);
  }
  const fallback = isoFromMs(row.updatedAt) ?? isoFromMs(row.fileMtimeMs) ?? new Date(0).toISOString();
  const created = isoFromMs(row.createdAt);
  // `created_at` is when the first stored unit happened (the transcript notice goes with it).
  const firstUnit = drafts.find((d) => d.unit !== NOTICE_UNIT)?.unit;
  const nextData: (string | undefined)[] = new Array(drafts.length);
  let upcoming: string | undefined;
  for (let i = drafts.length - 1; i >= 0; i -= 1) {
    nextData[i] = upcoming;
    if (drafts[i]!.dataTime) upcoming = drafts[i]!.dataTime;
  }
  let previousData: string | undefined;
  drafts.forEach((d, i) => {
    let time = d.dataTime;
    let estimated = false;
    if (time) previousData = time;
    else {
      estimated = true;
      time =
        archivedTimes.get(`${d.unit}|${d.part}`) ??
        archivedTimes.get(`${d.unit}|*`) ??
        previousData ??
        (created && (d.unit === firstUnit || d.unit === NOTICE_UNIT) ? created : undefined) ??
        nextData[i] ??
        fallback;
    }
    d.message.timestamp = time;
    d.message.id = `${time}#${d.local}`;
    if (estimated) d.message.timestamp_estimated = true;
  });
}
