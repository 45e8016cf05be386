import { idOf, pick } from './record-fields.ts';
import type { RolloutState } from './rollout-state.ts';
import type { CompactedPayload, SessionMetaPayload, TurnContextPayload } from './schema.ts';

/** A `session_meta` line: the file's own (the first one), a repeat of it, or another session's (a copy). */
export function addSessionMeta(
  state: RolloutState,
  payload: SessionMetaPayload,
  line: number,
  ts: string | undefined,
): void {
  const own = !state.meta;
  const id = idOf(payload);
  if (own) {
    state.meta = payload;
    state.sessionId = id ?? state.options.nameId;
    if (payload.cwd) state.cwd = payload.cwd;
    if (payload.cli_version) state.cliVersion = payload.cli_version;
    if (payload.git?.branch) state.gitBranch = payload.git.branch;
  }
  const instructions = typeof payload.instructions === 'string' ? payload.instructions.trim() : '';
  const parts = own && instructions ? 2 : undefined;
  state.log.push(
    line,
    ts,
    {
      role: 'meta',
      source_type: 'session',
      segments: [],
      metadata: {
        kind: 'system_event',
        subtype: own
          ? 'session_meta'
          : id && id === state.sessionId
            ? 'session_meta (again)'
            : 'session_meta (another session)',
        ...(id ? { session_id: id } : {}),
        ...pick(payload, ['cwd', 'originator', 'cli_version', 'model_provider', 'forked_from_id', 'parent_thread_id']),
        ...(payload.source !== undefined ? { session_source: payload.source } : {}),
        ...(payload.agent_nickname ? { agent_nickname: payload.agent_nickname } : {}),
        ...(payload.agent_role ? { agent_role: payload.agent_role } : {}),
        ...(payload.git ? { git: payload.git } : {}),
        ...(typeof payload.base_instructions?.text === 'string'
          ? { base_instructions_length: payload.base_instructions.text.length }
          : {}),
      },
    },
    parts ? 0 : undefined,
  );
  if (parts) {
    state.log.push(
      line,
      ts,
      {
        role: 'meta',
        source_type: 'message',
        segments: [{ channel: 'system', type: 'text', format: 'instructions', text: instructions }],
        metadata: { kind: 'injected', subtype: 'instructions' },
      },
      1,
    );
  }
}

export function addTurnContext(
  state: RolloutState,
  payload: TurnContextPayload,
  line: number,
  ts: string | undefined,
): void {
  const model = payload.model ?? payload.collaboration_mode?.settings?.model;
  if (typeof model === 'string' && model) state.model = model;
  state.cwd ??= payload.cwd;
  state.log.push(line, ts, {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: {
      kind: 'system_event',
      subtype: 'turn_context',
      ...pick(payload, ['turn_id', 'model', 'effort', 'summary', 'cwd', 'approval_policy']),
      ...(payload.sandbox_policy !== undefined ? { sandbox_policy: payload.sandbox_policy } : {}),
    },
  });
}

export function addCompacted(
  state: RolloutState,
  payload: CompactedPayload,
  line: number,
  ts: string | undefined,
): void {
  state.responses.closeResponse();
  const summary = typeof payload.message === 'string' ? payload.message.trim() : '';
  state.log.push(
    line,
    ts,
    {
      role: 'system',
      source_type: 'meta',
      segments: [],
      metadata: {
        kind: 'compact_boundary',
        subtype: 'compacted',
        compact: { trigger: summary ? 'local' : 'remote' },
        ...(Array.isArray(payload.replacement_history)
          ? { replacement_items: payload.replacement_history.length }
          : {}),
        ...pick(payload as Record<string, unknown>, ['window_id', 'window_number']),
      },
    },
    summary ? 0 : undefined,
  );
  if (summary) {
    state.log.push(
      line,
      ts,
      {
        role: 'system',
        source_type: 'message',
        segments: [{ channel: 'system', type: 'text', format: 'compact_summary', text: summary }],
        metadata: { kind: 'compact_summary' },
      },
      1,
    );
  }
}
