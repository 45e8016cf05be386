/**
 * The site index is split into shards, each a Pagefind bundle of its own that the search box merges
 * (`mergeIndex`): Pagefind cannot add to an index it wrote, so a build re-indexes only the shards whose
 * sessions changed. Sessions stay in the shard they were first put in; new ones, oldest first, fill the
 * newest shard up to a size (SHARD_CHARS) and then open another. So a day's work (new sessions, a grown one) touches
 * the newest shard and seldom another, while a full build indexes the shards on every core.
 */

/** Text a shard is filled up to before a new one is opened, unless `AGENT_LOGBOOK_SEARCH_SHARD_CHARS` says
 * otherwise: Pagefind takes ~1 s for a shard this size, so a rebuild after one change stays short, and a
 * history of 100 MB of prompts and answers makes ~30 shards for the search box to merge. */
export const SHARD_CHARS = 3_000_000;

export function shardChars(): number {
  const asked = Number(process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS);
  return Number.isInteger(asked) && asked > 0 ? asked : SHARD_CHARS;
}

export interface ShardState {
  /** The sessions of each shard (key → stamp), the text it held and the bytes it took when last written. */
  shards: Record<string, { sessions: Record<string, string>; chars: number; bytes?: number }>;
  /** The number the next shard's name takes. */
  next: number;
}

export interface SessionToPlace {
  key: string;
  stamp: string;
}

export interface ShardPlan {
  state: ShardState;
  /** Shards to index again (changed, new or missing from the site), and every session in each. */
  dirty: Map<string, string[]>;
  /** Shards no longer in the site. */
  removed: string[];
}

export function emptyShardState(): ShardState {
  return { shards: {}, next: 1 };
}

export function shardName(n: number): string {
  return `s${String(n).padStart(4, '0')}`;
}

/**
 * Where each session of the site goes, given the last build's shards. `sessions` is oldest first;
 * `charsOf` is asked only for sessions new to the index; `present` says whether a shard's files are in
 * the site as the last build left them.
 */
export function planShards(
  previous: ShardState,
  sessions: SessionToPlace[],
  charsOf: (key: string) => number,
  present: (shard: string) => boolean,
  limit = SHARD_CHARS,
): ShardPlan {
  const current = new Map(sessions.map((s) => [s.key, s.stamp]));
  const state: ShardState = { shards: {}, next: previous.next };
  const dirty = new Set<string>();
  const placed = new Set<string>();
  const removed: string[] = [];
  for (const [name, shard] of Object.entries(previous.shards)) {
    const kept: Record<string, string> = {};
    let changed = !present(name);
    for (const [key, stamp] of Object.entries(shard.sessions)) {
      const now = current.get(key);
      if (now === undefined || placed.has(key)) {
        changed = true; // gone from the site
        continue;
      }
      if (now !== stamp) changed = true;
      kept[key] = now;
      placed.add(key);
    }
    if (Object.keys(kept).length === 0) {
      removed.push(name);
      continue;
    }
    state.shards[name] = { ...shard, sessions: kept };
    if (changed) dirty.add(name);
  }
  let open = Object.keys(state.shards).sort().at(-1);
  for (const session of sessions) {
    if (placed.has(session.key)) continue;
    const chars = charsOf(session.key);
    if (open === undefined || state.shards[open]!.chars >= limit) {
      open = shardName(state.next++);
      state.shards[open] = { sessions: {}, chars: 0 };
    }
    const shard = state.shards[open]!;
    shard.sessions[session.key] = session.stamp;
    shard.chars += chars;
    dirty.add(open);
  }
  const plan = new Map<string, string[]>();
  for (const name of [...dirty].sort()) plan.set(name, Object.keys(state.shards[name]!.sessions));
  return { state, dirty: plan, removed };
}
