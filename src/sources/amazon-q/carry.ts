import type { NormalizedMessage } from '../../model/message.ts';
import type { Session } from '../../model/session.ts';
import { NEXT_UNIT, NOTICE_UNIT, unitOf } from './draft.ts';

/**
 * What an earlier run stored that this copy no longer holds: the units (history elements, summaries, transcript
 * entries) the archive has *before* the first unit both share, or all of them when none is shared (history cleared
 * by `/compact`). Units after that point that are gone (a discarded tangent, a pending `next_message`) are not kept.
 */
export function planCarry(
  archived: Session | undefined,
  currentUnits: string[],
  currentHistoryKeys: string[],
): { carried: NormalizedMessage[]; offset: number } {
  const messages = archived?.messages ?? [];
  if (messages.length === 0) return { carried: [], offset: 0 };
  const current = new Set(currentUnits);
  const order: string[] = [];
  const positions = new Map<string, number>();
  for (const m of messages) {
    const unit = unitOf(m);
    if (!unit) continue;
    if (!order.includes(unit)) order.push(unit);
    const position = /#h(\d+)\.\d+$/.exec(m.id)?.[1];
    if (position !== undefined && !positions.has(unit)) positions.set(unit, Number(position));
  }
  const anchor = order.findIndex((u) => current.has(u) && u !== NOTICE_UNIT && u !== NEXT_UNIT);
  const candidates = anchor === -1 ? order : order.slice(0, anchor);
  const carriedUnits = new Set(candidates.filter((u) => !current.has(u) && u !== NEXT_UNIT));
  const carried = messages
    .filter((m) => carriedUnits.has(unitOf(m) ?? ''))
    .map((m) => ({ ...m, metadata: { ...m.metadata, archived_only: true } }));

  // Positions in message ids count from the first element ever seen, so they stay put when Q trims the front.
  let offset = 0;
  const shared = currentHistoryKeys.findIndex((k) => positions.has(k));
  if (shared !== -1) offset = Math.max(0, positions.get(currentHistoryKeys[shared]!)! - shared);
  else if (carried.length > 0 || positions.size > 0) offset = Math.max(-1, ...positions.values()) + 1;
  return { carried, offset };
}
