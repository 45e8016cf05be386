import type { MessageMetadata } from '../../model/message.ts';
import { CALL_ENDS, KNOWN_EVENTS, MIRRORS } from './record-kinds.ts';
import { scrub } from './record-fields.ts';
import type { RolloutState } from './rollout-state.ts';
import type { EventPayload } from './schema.ts';
import { tokenInfo } from './token-usage.ts';

/** One `event_msg` line. */
export function addEvent(state: RolloutState, payload: EventPayload, line: number, ts: string | undefined): void {
  const kind = payload.type ?? payload.kind ?? 'unknown';
  const base = { payloadType: kind };
  const metadata: MessageMetadata = { kind: 'system_event', event_kind: kind, subtype: kind };
  if (kind === 'token_count') {
    const message = state.log.push(line, ts, {
      ...base,
      role: 'meta',
      source_type: 'meta',
      segments: [],
      metadata: { ...metadata, ...(payload.info ? { token_count: tokenInfo(payload.info) } : {}) },
    });
    state.responses.countTokens(payload.info ?? undefined, message);
    return;
  }
  if (kind === 'user_message' || kind === 'task_started' || kind === 'turn_started') state.responses.closeResponse();
  if (kind === 'task_complete' || kind === 'turn_complete') state.responses.closeResponse();
  if (kind === 'turn_aborted') {
    state.responses.closeResponse();
    state.log.push(line, ts, {
      ...base,
      role: 'system',
      source_type: 'meta',
      segments: [
        {
          channel: 'system',
          type: 'text',
          format: 'turn_aborted',
          text: `Turn aborted${payload.reason ? ` (${payload.reason})` : ''}`,
        },
      ],
      metadata: { kind: 'interrupt', event_kind: kind, ...(payload.reason ? { reason: payload.reason } : {}) },
    });
    return;
  }
  if (kind === 'error' || kind === 'stream_error' || kind === 'warning') {
    const text = typeof payload.message === 'string' ? payload.message : kind;
    state.log.push(line, ts, {
      ...base,
      role: 'system',
      source_type: 'meta',
      segments: [{ channel: 'system', type: 'text', format: kind, text }],
      metadata: { kind: kind === 'error' ? 'api_error' : 'system_event', event_kind: kind, subtype: kind },
    });
    return;
  }
  if (kind === 'thread_name_updated' && typeof payload.thread_name === 'string' && payload.thread_name.trim()) {
    state.threadName = payload.thread_name.trim();
    state.log.push(line, ts, {
      ...base,
      role: 'meta',
      source_type: 'meta',
      segments: [],
      metadata: { kind: 'title', event_kind: kind, subtype: kind, title: state.threadName },
    });
    return;
  }
  if (kind === 'collab_agent_spawn_end' && payload.new_thread_id && payload.call_id) {
    state.spawnedThreads.set(payload.new_thread_id, payload.call_id);
    metadata.new_thread_id = payload.new_thread_id;
  }
  if (MIRRORS.has(kind)) metadata.mirror = true;
  if (typeof payload.call_id === 'string') metadata.call_id = payload.call_id;
  const known = KNOWN_EVENTS.has(kind);
  const message = state.log.push(line, ts, {
    ...base,
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: known ? metadata : { ...metadata, kind: 'unknown' },
    ...(known ? {} : { record: scrub({ type: 'event_msg', payload }) }),
  });
  if (kind === 'user_message') state.prompts.addUserEvent(message, payload);
  if (CALL_ENDS.has(kind) && typeof payload.call_id === 'string') state.links.addCallEnd({ message, payload, kind });
}
