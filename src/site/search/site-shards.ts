/**
 * The site index is split into shards, each a Pagefind bundle of its own that the search box merges
 * (`mergeIndex`): Pagefind cannot add to an index it wrote, so a build re-indexes only the shards whose
 * sessions changed. Sessions stay in the shard they were first put in; new ones, oldest first, fill the
 * newest shard up to a size (SHARD_CHARS) and then open another. So a day's work (new sessions, a grown one) touches
 * the newest shard and seldom another, while a full build indexes the shards on every core.
 *
 * The search box pays for every shard on its first query (each is fetched and set up: ~25 ms apiece on a slow
 * machine, and each query searches every shard), so sessions that ended more than RECENT_DAYS before the newest
 * one go to shards OLD_SHARD_FACTOR times as big: they seldom change, and a first build puts most of a history
 * there. Small shards whose sessions have all grown old are merged into a big one, COMPACT_SHARDS at a time,
 * written once. A huge session is indexed in runs of its pages (site-records.ts `siteEntries`), each of about
 * RUN_FACTOR times SHARD_CHARS and in a shard of its own: Pagefind's indexer holds a whole shard in memory.
 */

/** Text a shard is filled up to before a new one is opened, unless `AGENT_LOGBOOK_SEARCH_SHARD_CHARS` says
 * otherwise: Pagefind takes ~1 s for a shard this size, so a rebuild after one change stays short. */
export const SHARD_CHARS = 3_000_000;

/** How many times SHARD_CHARS a shard of old sessions holds. At 4, the bench's history (scale 1) was 9 shards
 * and its first query took 0.41–0.45 s by hand 3 s after the page opened; at 8, 5 shards and 0.36–0.39 s (the
 * same three bundles' texts fetched; see docs/decisions.md, "Search"). */
export const OLD_SHARD_FACTOR = 8;

/** How many times SHARD_CHARS of a huge session one run holds: Pagefind holds ~75 MB for a run this size. */
export const RUN_FACTOR = 4;

/** A session whose last message is this many days older than the newest session's is old. */
export const RECENT_DAYS = 30;

/** Small shards of old sessions merged together, once there are this many. */
export const COMPACT_SHARDS = 4;

export function shardChars(): number {
  const asked = Number(process.env.AGENT_LOGBOOK_SEARCH_SHARD_CHARS);
  return Number.isInteger(asked) && asked > 0 ? asked : SHARD_CHARS;
}

export interface ShardState {
  /** The sessions of each shard (key → stamp), the text it held and the bytes it took when last written; `alone`
   * for a shard that holds one run of a huge session and nothing else. */
  shards: Record<string, { sessions: Record<string, string>; chars: number; bytes?: number; old?: true; alone?: true }>;
  /** The number the next shard's name takes. */
  next: number;
}

export interface SessionToPlace {
  key: string;
  stamp: string;
  /** When its last message was (ISO); without it, a session counts as recent. */
  endedAt?: string;
  /** A run of a huge session: placed in a shard of its own, never merged with another. */
  alone?: boolean;
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
 * `charsOf` is asked for the sessions to place (new to the index, or moved by a merge); `present` says whether a shard's files are in
 * the site as the last build left them; `limit` is the size of a shard of recent sessions.
 */
export function planShards(
  previous: ShardState,
  sessions: SessionToPlace[],
  charsOf: (key: string) => number,
  present: (shard: string) => boolean,
  limit = SHARD_CHARS,
): ShardPlan {
  const current = new Map(sessions.map((s) => [s.key, s]));
  const isOld = oldness(sessions);
  const state: ShardState = { shards: {}, next: previous.next };
  const dirty = new Set<string>();
  const placed = new Set<string>();
  const removed: string[] = [];
  for (const [name, shard] of Object.entries(previous.shards)) {
    const kept: Record<string, string> = {};
    let changed = !present(name);
    for (const [key, stamp] of Object.entries(shard.sessions)) {
      const now = current.get(key)?.stamp;
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
  // Small shards whose sessions have all grown old: merged, COMPACT_SHARDS of them (the oldest) in a build, once
  // there are that many, so that no build writes more than one big shard's worth for it.
  const bigLimit = limit * OLD_SHARD_FACTOR;
  const compactable = Object.entries(state.shards)
    .filter(
      ([, shard]) =>
        !shard.alone && shard.chars < bigLimit / 2 && Object.keys(shard.sessions).every((key) => isOld(key)),
    )
    .map(([name]) => name)
    .sort();
  for (const name of compactable.length >= COMPACT_SHARDS ? compactable.slice(0, COMPACT_SHARDS) : []) {
    for (const key of Object.keys(state.shards[name]!.sessions)) placed.delete(key);
    delete state.shards[name];
    dirty.delete(name);
    removed.push(name);
  }
  // New sessions go to the newest shard of their kind while it has room. An old session is not added to a big
  // shard that is not written anyway: a session imported late (a new source) must not make a rebuild index one.
  let openRecent = Object.keys(state.shards)
    .filter((name) => !state.shards[name]!.old && !state.shards[name]!.alone)
    .sort()
    .at(-1);
  let openOld: string | undefined;
  for (const session of sessions) {
    if (placed.has(session.key)) continue;
    const old = isOld(session.key);
    const chars = charsOf(session.key);
    if (session.alone) {
      const own = shardName(state.next++);
      state.shards[own] = { sessions: { [session.key]: session.stamp }, chars, alone: true, ...(old && { old: true }) };
      dirty.add(own);
      continue;
    }
    let open = old ? openOld : openRecent;
    if (open === undefined || state.shards[open]!.chars >= (old ? bigLimit : limit)) {
      open = shardName(state.next++);
      state.shards[open] = old ? { sessions: {}, chars: 0, old: true } : { sessions: {}, chars: 0 };
      if (old) openOld = open;
      else openRecent = open;
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

/** Whether a session is old: its last message RECENT_DAYS or more before the newest session's last message. */
function oldness(sessions: SessionToPlace[]): (key: string) => boolean {
  const endedAt = new Map<string, number>();
  let newest = -Infinity;
  for (const s of sessions) {
    const at = s.endedAt ? Date.parse(s.endedAt) : NaN;
    if (Number.isNaN(at)) continue;
    endedAt.set(s.key, at);
    if (at > newest) newest = at;
  }
  // A session dated in the future (a wrong clock) must not make every other one old.
  const from = Math.min(newest, Date.now()) - RECENT_DAYS * 86_400_000;
  return (key) => (endedAt.get(key) ?? Infinity) <= from;
}
