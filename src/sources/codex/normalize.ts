import type { NormalizedMessage } from '../../model/message.ts';
import type { JsonlRecord } from '../../util/jsonl.ts';
import { fingerprint } from './copy-detection.ts';
import { addEvent } from './events.ts';
import { addItem } from './items.ts';
import { addLegacyHeader, legacyTime } from './legacy.ts';
import type { RolloutFormat } from './message-log.ts';
import { SILENT_LINES } from './record-kinds.ts';
import { parseTime, scrub } from './record-fields.ts';
import { RolloutState, type NormalizerOptions } from './rollout-state.ts';
import type {
  CompactedPayload,
  EventPayload,
  LegacyHeader,
  ResponseItem,
  RolloutLine,
  SessionMetaPayload,
  TurnContextPayload,
} from './schema.ts';
import { addCompacted, addSessionMeta, addTurnContext } from './session-records.ts';

export { fingerprint, type CopySource } from './copy-detection.ts';
export { idOf, scrub } from './record-fields.ts';
export type { NormalizerOptions } from './rollout-state.ts';

/**
 * Turns the lines of one Codex rollout (event format, legacy format, or the items of a TS-era
 * `.json`) into normalized messages. One instance per file; feed lines in order, then `finish()`.
 */
export class RolloutNormalizer {
  private readonly state: RolloutState;

  constructor(
    readonly file: string,
    options: NormalizerOptions = {},
  ) {
    this.state = new RolloutState(file, options);
  }

  get messages(): NormalizedMessage[] {
    return this.state.log.messages;
  }
  /** Every line's fingerprint, when `collectFingerprints` was asked for. */
  get fingerprints(): string[] {
    return this.state.fingerprints;
  }
  get meta(): SessionMetaPayload | undefined {
    return this.state.meta;
  }
  get sessionId(): string | undefined {
    return this.state.sessionId;
  }
  get cwd(): string | undefined {
    return this.state.cwd;
  }
  get cliVersion(): string | undefined {
    return this.state.cliVersion;
  }
  get gitBranch(): string | undefined {
    return this.state.gitBranch;
  }
  get threadName(): string | undefined {
    return this.state.threadName;
  }
  get format(): RolloutFormat | undefined {
    return this.state.log.format;
  }
  /** Sessions whose copied history was left out of this one. */
  get copiedFrom(): Set<string> {
    return this.state.copies.copiedFrom;
  }
  /** Subagent threads this session spawned: child thread id → the spawning call's id. */
  get spawnedThreads(): Map<string, string> {
    return this.state.spawnedThreads;
  }
  /** The cwd an injected `<environment_context>` names: the project when no session_meta does. */
  get envCwd(): string | undefined {
    return this.state.envCwd;
  }

  add({ line, value }: JsonlRecord): void {
    const { state } = this;
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      state.log.push(line, undefined, {
        role: 'meta',
        source_type: 'meta',
        segments: [],
        event: 'non-object',
        metadata: { kind: 'unknown' },
        record: value,
      });
      return;
    }
    const record = value as RolloutLine & ResponseItem & LegacyHeader;
    if (typeof record.type === 'string' && 'payload' in record) {
      state.log.format ??= 'event';
      state.log.lineEvent = record.type;
      this.addEnvelope(record, line);
      return;
    }
    if (record.record_type === 'state') return; // legacy bookkeeping: skipped (FORMATS.md §2.10)
    state.log.lineEvent = 'legacy_session_entry';
    if (state.log.format === undefined && record.type === undefined && record.record_type === undefined) {
      state.log.format = 'legacy';
      addLegacyHeader(state, record, line);
      return;
    }
    state.log.format ??= 'legacy';
    addItem(state, record, line, 'legacy_session_entry', legacyTime(state, record, line));
  }

  /** The header of a TS-era `.json` rollout (`{session, items}`); its items follow through `addJsonItem`. */
  addJsonHeader(session: { timestamp?: string; id?: string; instructions?: string | null }): void {
    this.state.log.format = 'json';
    this.state.log.lineEvent = 'json_session';
    addLegacyHeader(this.state, session, 1);
  }

  addJsonItem(item: ResponseItem, index: number): void {
    const line = index + 2;
    if (!item || typeof item !== 'object') return;
    this.state.log.lineEvent = 'json_item';
    addItem(this.state, item, line, 'json_item', legacyTime(this.state, item as LegacyHeader, line));
  }

  /** Resolves prompts, tool links, pending usage and undated lines once the whole file has been read. */
  finish(mtime: string): void {
    const { state } = this;
    state.copies.closeCopy();
    state.log.dateUndated(mtime);
    state.responses.flushPending();
    state.prompts.resolve();
    state.links.link();
  }

  /** The first real prompt's text. */
  firstPrompt(): string | undefined {
    const prompt = this.messages.find((m) => m.metadata?.kind === 'prompt');
    return prompt?.segments.find((s) => s.type === 'text')?.text;
  }

  private addEnvelope(record: RolloutLine, line: number): void {
    const { state } = this;
    const type = record.type!;
    if (!record.payload || typeof record.payload !== 'object' || Array.isArray(record.payload)) {
      const found =
        record.payload === null ? 'null' : Array.isArray(record.payload) ? 'a list' : `a ${typeof record.payload}`;
      state.warnAt(line, `${type} payload is ${found}, not an object; kept as an unknown record`);
      state.log.push(line, parseTime(record.timestamp), {
        role: 'meta',
        source_type: 'meta',
        segments: [],
        event: type,
        metadata: { kind: 'unknown', subtype: type },
        record: scrub(record),
      });
      return;
    }
    const payload = record.payload as Record<string, unknown>;
    const ts = parseTime(record.timestamp);
    const fp = state.options.collectFingerprints ? fingerprint(type, record.payload) : undefined;
    if (fp !== undefined) state.fingerprints.push(fp);
    if (state.copies.isCopied({ type, payload: record.payload, line, ts, fingerprint: fp }, state)) return;
    switch (type) {
      case 'session_meta':
        addSessionMeta(state, payload as SessionMetaPayload, line, ts);
        break;
      case 'turn_context':
        addTurnContext(state, payload as TurnContextPayload, line, ts);
        break;
      case 'response_item':
        addItem(state, payload as ResponseItem, line, 'response_item', ts);
        break;
      case 'event_msg':
        addEvent(state, payload as EventPayload, line, ts);
        break;
      case 'compacted':
        addCompacted(state, payload as CompactedPayload, line, ts);
        break;
      default:
        if (SILENT_LINES.has(type)) {
          state.log.push(line, ts, {
            role: 'meta',
            source_type: 'meta',
            segments: [],
            event: type,
            metadata: { kind: 'system_event', subtype: type },
          });
        } else {
          state.log.push(line, ts, {
            role: 'meta',
            source_type: 'meta',
            segments: [],
            event: type,
            payloadType: typeof payload.type === 'string' ? payload.type : undefined,
            metadata: { kind: 'unknown', subtype: type },
            record: scrub(record),
          });
        }
    }
  }
}
