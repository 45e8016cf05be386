import { createHash } from 'node:crypto';
import type { NormalizedMessage } from '../../model/message.ts';
import type { MessageLog } from './message-log.ts';
import { idOf } from './record-fields.ts';
import type { EventPayload, SessionMetaPayload } from './schema.ts';
import type { ResponseUsage } from './token-usage.ts';

/** Copies of a parent's history are written within this long after the fork's own `session_meta`. */
const COPY_WINDOW_MS = 1000;

/** How to recognise the lines a fork or subagent copied from another session (FORMATS.md §2.3, §2.12). */
export type CopySource =
  /** The other session was read in this run: its lines' fingerprints, in file order. */
  | { fingerprints: string[] }
  /** The other session is known (archived) but its file is gone: lines written right after the fork's start. */
  | { time: true };

interface CopyRegion {
  from: string;
  source: CopySource;
  /** Index in the source's fingerprints up to which lines have matched. */
  cursor: number;
  positions?: Map<string, number[]>;
  startMs: number;
  /** Stands in for the copied lines, at the first of them. */
  marker?: NormalizedMessage;
  lines: number;
}

/** One line of the event format, as copy detection sees it. */
export interface EnvelopeLine {
  type: string;
  /** The line's `payload` as written (its fingerprint is of this). */
  payload: unknown;
  line: number;
  ts: string | undefined;
  /** The line's fingerprint, when it was already computed. */
  fingerprint?: string;
}

/** Who the file says it is, so far: its own `session_meta` (the first one) and id. */
export interface OwnSession {
  readonly meta?: SessionMetaPayload;
  readonly sessionId?: string;
}

/** The identity of a line's content, without its time (copies are re-stamped when written). */
export function fingerprint(type: string, payload: unknown): string {
  return createHash('sha1')
    .update(type)
    .update('\u0000')
    .update(JSON.stringify(payload ?? null))
    .digest('base64');
}

/**
 * Forks and subagents start with a copy of another session's lines (a second `session_meta`, or
 * right after a `session_meta` with `forked_from_id`). When that session is known, the copy is
 * left out (it is counted there) and one marker stands in for it; its token totals still set the
 * baseline, so the first request after the copy is counted alone.
 */
export class CopyDetector {
  /** Sessions whose copied history was left out of this one. */
  readonly copiedFrom = new Set<string>();
  private copy?: CopyRegion;

  constructor(
    private readonly copySource: ((id: string) => CopySource | undefined) | undefined,
    private readonly log: MessageLog,
    private readonly responses: ResponseUsage,
  ) {}

  isCopied(envelope: EnvelopeLine, own: OwnSession): boolean {
    const { type, line, ts } = envelope;
    const payload = (envelope.payload ?? {}) as Record<string, unknown>;
    const isMeta = type === 'session_meta';
    const metaId = isMeta ? idOf(payload as SessionMetaPayload) : undefined;
    if (isMeta && !own.meta) {
      // The file's own identity. A fork's copy follows it.
      const forkedFrom = (payload as SessionMetaPayload).forked_from_id;
      if (typeof forkedFrom === 'string' && forkedFrom) this.openCopy(forkedFrom, ts);
      return false;
    }
    if (isMeta && metaId && metaId !== own.sessionId && !this.copy) this.openCopy(metaId, ts);
    const region = this.copy;
    if (!region) return false;
    let copied: boolean;
    if ('fingerprints' in region.source) {
      const fp = envelope.fingerprint ?? fingerprint(type, envelope.payload);
      const at = region.positions!.get(fp)?.find((i) => i >= region.cursor);
      copied = at !== undefined;
      if (at !== undefined) region.cursor = at + 1;
    } else {
      const ms = ts ? Date.parse(ts) : NaN;
      copied = !Number.isNaN(ms) && ms <= region.startMs + COPY_WINDOW_MS;
    }
    if (!copied) {
      this.closeCopy();
      if (isMeta && metaId && metaId !== own.sessionId) return this.isCopied(envelope, own);
      return false;
    }
    region.lines += 1;
    if (!region.marker) {
      region.marker = this.log.push(line, ts, {
        role: 'system',
        source_type: 'meta',
        segments: [],
        event: 'copied_history',
        metadata: { kind: 'system_event', subtype: 'copied history', copied_from: region.from },
      });
    }
    if (type === 'event_msg' && (payload as EventPayload).type === 'token_count') {
      const total = (payload as EventPayload).info?.total_token_usage;
      if (total) this.responses.setBaseline(total);
    }
    return true;
  }

  /** Ends the current copy (if any) and fills in its marker. */
  closeCopy(): void {
    const region = this.copy;
    this.copy = undefined;
    if (!region?.marker) return;
    this.copiedFrom.add(region.from);
    region.marker.metadata!.copied_lines = region.lines;
    region.marker.segments = [
      {
        channel: 'system',
        type: 'text',
        format: 'copied_history',
        text: `${region.lines} lines copied from session ${region.from} are not repeated here; they belong to that session.`,
      },
    ];
  }

  private openCopy(from: string, ts: string | undefined): void {
    const source = this.copySource?.(from);
    if (!source) return;
    let positions: Map<string, number[]> | undefined;
    if ('fingerprints' in source) {
      positions = new Map();
      source.fingerprints.forEach((fp, i) => {
        const list = positions!.get(fp);
        if (list) list.push(i);
        else positions!.set(fp, [i]);
      });
    }
    const startMs = ts ? Date.parse(ts) : NaN;
    this.copy = { from, source, cursor: 0, positions, startMs, lines: 0 };
  }
}
