import { parseTime } from './record-fields.ts';
import type { RolloutState } from './rollout-state.ts';
import type { LegacyHeader } from './schema.ts';
import { addSessionMeta } from './session-records.ts';

/** The first line of a legacy JSONL rollout, or the `session` of a TS-era `.json` one. */
export function addLegacyHeader(state: RolloutState, header: LegacyHeader, line: number): void {
  const ts = parseTime(header.timestamp);
  state.log.lineTimeEstimated = !ts;
  if (ts) state.legacyStartMs = Date.parse(ts);
  state.sessionId = typeof header.id === 'string' && header.id ? header.id : state.options.nameId;
  if (header.cwd) state.cwd = header.cwd;
  if (header.cli_version) state.cliVersion = header.cli_version;
  if (header.git?.branch) state.gitBranch = header.git.branch;
  addSessionMeta(
    state,
    { id: state.sessionId, timestamp: header.timestamp, instructions: header.instructions, cwd: header.cwd },
    line,
    ts,
  );
  state.meta = { id: state.sessionId, timestamp: header.timestamp, cwd: header.cwd };
}

/** Seed 004's legacy rule: the line's own time, else session start + 1 s per line, else file mtime. */
export function legacyTime(state: RolloutState, record: LegacyHeader, line: number): string | undefined {
  const own = parseTime(record.timestamp);
  state.log.lineTimeEstimated = !own;
  if (own) return own;
  if (state.legacyStartMs !== undefined) return new Date(state.legacyStartMs + (line - 1) * 1000).toISOString();
  return undefined;
}
