import type { MessageMetadata, MessageSegment, ToolStatus } from '../../model/message.ts';
import type { Draft, EventSink } from './draft.ts';
import type {
  AssistantMessageData,
  CopilotEvent,
  ShutdownData,
  StartData,
  ToolCompleteData,
  ToolRequest,
  ToolStartData,
} from './schema.ts';

type Data = Record<string, unknown>;

/** Events that only mark steps of the loop (the messages around them say it all): no message. */
const SILENT = new Set([
  'assistant.turn_start',
  'assistant.turn_end',
  'assistant.idle',
  'session.idle',
  'hook.start',
  'hook.end',
  'session.usage_checkpoint',
  'pending_messages.modified',
]);

/** Events we know and keep as a background note (kind `system_event`, the record kept). */
const NOTED = new Set([
  'session.info',
  'session.warning',
  'session.mode_changed',
  'session.plan_changed',
  'session.todos_changed',
  'session.context_changed',
  'session.workspace_file_changed',
  'session.task_complete',
  'session.handoff',
  'session.snapshot_rewind',
  'session.truncation',
  'session.context_cleared',
  'session.remote_steerable_changed',
  'session.permissions_changed',
  'session.autopilot_objective_changed',
  'session.auto_mode_resolved',
  'session.binary_asset',
  'permission.requested',
  'permission.completed',
  'tool_search.activated',
  'subagent.selected',
  'subagent.deselected',
  'external_tool.requested',
  'external_tool.completed',
]);

const isObject = (v: unknown): v is Data => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);
const text = (t: string, channel: MessageSegment['channel'] = 'output', format = 'text'): MessageSegment => ({
  channel,
  type: 'text',
  format,
  text: t,
});
const note = (subtype: string, line: string | undefined, extra: MessageMetadata = {}, keepRecord = false): Draft => ({
  role: 'meta',
  source_type: 'meta',
  segments: line ? [text(line, 'system')] : [],
  metadata: { kind: 'system_event', subtype, ...extra },
  ...(keepRecord ? { keepRecord } : {}),
});

function dataOf(event: CopilotEvent): Data {
  if (event.data === undefined) return {};
  if (!isObject(event.data)) throw new Error('"data" is not an object');
  return event.data;
}

/** Adds the messages of one event to the normalizer. Throws on a record whose fields have the wrong types. */
export function addEvent(n: EventSink, event: CopilotEvent, line: number): void {
  const type = event.type;
  if (SILENT.has(type)) return;
  const data = dataOf(event);
  switch (type) {
    case 'session.start':
    case 'session.resume':
      return session(n, event, line, data as StartData);
    case 'user.message':
      return user(n, event, line, data);
    case 'system.message':
    case 'system.notification':
    case 'skill.invoked': {
      const content = str(data.content) ?? '';
      const subtype = type === 'skill.invoked' ? `skill:${str(data.name) ?? ''}` : type;
      n.push(event, line, {
        role: 'system',
        source_type: 'message',
        segments: [text(content, 'system')],
        metadata: { kind: 'injected', subtype },
      });
      return;
    }
    case 'assistant.message':
      return assistant(n, event, line, data as AssistantMessageData);
    case 'assistant.reasoning': {
      const content = str(data.content);
      if (!content) return;
      n.threadOf(n.thread(event)).lastThinking = content;
      n.push(event, line, {
        role: 'assistant',
        source_type: 'message',
        segments: [text(content, 'output', 'thinking')],
        metadata: { kind: 'thinking' },
      });
      return;
    }
    case 'tool.execution_start':
    case 'tool.user_requested':
      return toolStart(n, event, line, data as ToolStartData, type === 'tool.user_requested');
    case 'tool.execution_complete':
      return toolComplete(n, event, line, data as ToolCompleteData);
    case 'session.shutdown':
      return shutdown(n, event, line, data as ShutdownData);
    case 'session.model_change': {
      const model = str(data.newModel);
      n.push(
        event,
        line,
        note(
          type,
          model ? `Model: ${str(data.previousModel) ?? '—'} → ${model}` : undefined,
          model ? { model_selected: model } : {},
        ),
      );
      return;
    }
    case 'session.title_changed':
      if (str(data.title)) n.title = str(data.title);
      n.push(event, line, { ...note(type, str(data.title)), metadata: { kind: 'title', subtype: type } });
      return;
    case 'session.error':
    case 'model.call_failure':
      n.push(event, line, {
        role: 'system',
        source_type: 'message',
        segments: [text(str(data.message) ?? JSON.stringify(data), 'system')],
        metadata: { kind: 'api_error', subtype: str(data.errorType) ?? type },
      });
      return;
    case 'abort':
      n.push(event, line, {
        role: 'system',
        source_type: 'message',
        segments: [text(`Interrupted (${str(data.reason) ?? 'abort'})`, 'system')],
        metadata: { kind: 'interrupt', subtype: type },
      });
      return;
    case 'session.compaction_start':
      n.push(event, line, {
        role: 'system',
        source_type: 'meta',
        segments: [],
        metadata: { kind: 'compact_boundary', subtype: type },
      });
      return;
    case 'session.compaction_complete': {
      const pre = typeof data.preCompactionTokens === 'number' ? data.preCompactionTokens : undefined;
      const summary =
        str(data.summaryContent) ?? (data.success === false ? `Compaction failed: ${str(data.error) ?? ''}` : '');
      n.push(event, line, {
        role: 'system',
        source_type: 'message',
        segments: [text(summary, 'system')],
        metadata: {
          kind: 'compact_summary',
          subtype: type,
          compact: {
            ...(str(data.trigger) ? { trigger: str(data.trigger) } : {}),
            ...(pre !== undefined ? { pre_tokens: pre } : {}),
          },
        },
      });
      return;
    }
    case 'subagent.started':
    case 'subagent.completed':
    case 'subagent.failed': {
      const thread = n.threadOf(n.thread(event));
      if (type === 'subagent.started') {
        thread.agentType = str(data.agentName) ?? thread.agentType;
        thread.description = str(data.agentDisplayName) ?? thread.description;
      }
      const what =
        type === 'subagent.started'
          ? 'started'
          : type === 'subagent.completed'
            ? 'completed'
            : `failed: ${str(data.error) ?? ''}`;
      n.push(event, line, note(type, `${str(data.agentDisplayName) ?? str(data.agentName) ?? 'Subagent'} ${what}`));
      return;
    }
  }
  if (NOTED.has(type)) {
    n.push(event, line, note(type, str(data.message) ?? str(data.summary), {}, true));
    return;
  }
  n.push(event, line, {
    role: 'meta',
    source_type: 'meta',
    segments: [],
    metadata: { kind: 'unknown', subtype: type },
    keepRecord: true,
  });
}

function session(n: EventSink, event: CopilotEvent, line: number, data: StartData): void {
  if (event.type === 'session.start' && !n.start) n.start = data;
  const context = isObject(data.context) ? data.context : {};
  n.cwd ??= str(context.cwd);
  n.gitBranch ??= str(context.branch);
  const version = str(data.copilotVersion);
  const where = str(context.cwd);
  const line1 = `${event.type === 'session.start' ? 'Started' : 'Resumed'}${version ? ` (Copilot CLI ${version})` : ''}${where ? ` in ${where}` : ''}`;
  const extra: MessageMetadata = {
    ...(str(context.gitRoot) ? { git_root: str(context.gitRoot) } : {}),
    ...(str(context.repository) ? { repository: str(context.repository) } : {}),
    ...(str(context.branch) ? { git_branch: str(context.branch) } : {}),
    ...(str(data.selectedModel) ? { model_selected: str(data.selectedModel) } : {}),
  };
  n.push(event, line, { ...note(event.type, line1, extra), source_type: 'session' });
}

function user(n: EventSink, event: CopilotEvent, line: number, data: Data): void {
  if (data.content !== undefined && typeof data.content !== 'string') throw new Error('"content" is not text');
  const source = str(data.source);
  const injected = data.isAutopilotContinuation === true || (source !== undefined && source !== 'user');
  const attachments = Array.isArray(data.attachments) ? data.attachments.filter(isObject) : [];
  const metadata: MessageMetadata = {
    kind: injected ? 'injected' : 'prompt',
    ...(source ? { subtype: source } : {}),
    ...(attachments.length
      ? { attachments: attachments.map((a) => str(a.path) ?? str(a.displayName) ?? str(a.type) ?? '') }
      : {}),
  };
  n.push(event, line, {
    role: 'user',
    source_type: 'message',
    segments: [text(str(data.content) ?? '', 'input')],
    metadata,
  });
}

function assistant(n: EventSink, event: CopilotEvent, line: number, data: AssistantMessageData): void {
  if (data.content !== undefined && typeof data.content !== 'string') throw new Error('"content" is not text');
  const responseId = str(data.apiCallId) ?? str(data.messageId) ?? n.nextResponseId();
  const model = str(data.model);
  if (model) n.models.add(model);
  const meta = (): MessageMetadata => ({ kind: 'response', response_id: responseId, ...(model ? { model } : {}) });
  const thread = n.threadOf(n.thread(event));
  const segments: MessageSegment[] = [];
  const thinking = str(data.reasoningText);
  if (thinking && thinking !== thread.lastThinking) segments.push(text(thinking, 'output', 'thinking'));
  if (thinking) thread.lastThinking = thinking;
  if (str(data.content)) segments.push(text(data.content!));
  const drafts: Draft[] = [];
  if (segments.length) drafts.push({ role: 'assistant', source_type: 'message', segments, metadata: meta() });
  const requests = Array.isArray(data.toolRequests) ? data.toolRequests.filter(isObject) : [];
  for (const r of requests as ToolRequest[])
    drafts.push(callDraft(str(r.toolCallId) ?? '', str(r.name) ?? 'unknown', r.arguments, meta(), r));
  if (!drafts.length) drafts.push({ role: 'assistant', source_type: 'message', segments: [], metadata: meta() });
  const tokens = typeof data.outputTokens === 'number' && data.outputTokens > 0 ? data.outputTokens : 0;
  if (tokens) drafts[0]!.metadata = { ...drafts[0]!.metadata, output_tokens: tokens };
  const made = n.push(event, line, ...drafts);
  for (const m of made) if (m.source_type === 'tool_call' && m.tool_call?.call_id) n.calls.set(m.tool_call.call_id, m);
  if (tokens) {
    n.ledger.noteOutput(tokens);
    n.pendingOutput.push({ message: made[0]!, tokens });
  }
}

function callDraft(id: string, name: string, args: unknown, metadata: MessageMetadata, r?: ToolRequest): Draft {
  const input = args ?? {};
  const extra: MessageMetadata = {
    ...(r && str(r.intentionSummary) ? { intention: str(r.intentionSummary) } : {}),
    ...(r && str(r.mcpServerName) ? { mcp_server: str(r.mcpServerName) } : {}),
  };
  return {
    role: 'tool',
    source_type: 'tool_call',
    segments: [],
    tool_call: {
      call_id: id,
      name,
      status: 'unanswered',
      arguments: typeof input === 'string' ? input : JSON.stringify(input, null, 2),
      arguments_json: input,
    },
    metadata: { ...metadata, ...extra },
  };
}

function toolStart(n: EventSink, event: CopilotEvent, line: number, data: ToolStartData, byUser: boolean): void {
  const id = str(data.toolCallId);
  if (id && n.calls.has(id)) return; // the call was already shown from the assistant's toolRequests
  const draft = callDraft(
    id ?? '',
    str(data.toolName) ?? 'unknown',
    data.arguments,
    byUser
      ? { kind: 'command', subtype: event.type }
      : { subtype: event.type, ...(str(data.model) ? { model: str(data.model) } : {}) },
  );
  const [m] = n.push(event, line, draft);
  if (id && m) n.calls.set(id, m);
}

function statusOf(data: ToolCompleteData): ToolStatus {
  if (data.success !== false) return 'completed';
  const code = `${data.error?.code ?? ''} ${data.error?.message ?? ''}`;
  return /\b(rejected|denied|declined|cancell?ed)\b/i.test(code) ? 'rejected' : 'error';
}

function toolComplete(n: EventSink, event: CopilotEvent, line: number, data: ToolCompleteData): void {
  const id = str(data.toolCallId) ?? '';
  const call = n.calls.get(id);
  const status = statusOf(data);
  const result = isObject(data.result) ? data.result : undefined;
  const output =
    status === 'completed'
      ? (str(result?.content) ?? str(result?.detailedContent) ?? '')
      : (str(data.error?.message) ?? str(result?.content) ?? '');
  const detailed = str(result?.detailedContent);
  const [m] = n.push(event, line, {
    role: 'tool',
    source_type: 'tool_result',
    segments: [],
    tool_call: {
      call_id: id,
      name: call?.tool_call?.name ?? 'unknown',
      status,
      output,
      ...(detailed && detailed !== output ? { output_json: { detailedContent: detailed } } : {}),
    },
  });
  if (call?.tool_call && m) {
    call.tool_call.status = status;
    n.link(call, m);
  }
}

function shutdown(n: EventSink, event: CopilotEvent, line: number, data: ShutdownData): void {
  const { models, premiumRequests, cumulative } = n.ledger.add(data);
  n.pendingOutput = [];
  const changes = isObject(data.codeChanges) ? data.codeChanges : undefined;
  const head = note(
    event.type,
    `Session ended (${str(data.shutdownType) ?? 'shutdown'})${str(data.errorReason) ? `: ${data.errorReason}` : ''}`,
    {
      ...(changes ? { code_changes: changes } : {}),
      ...(cumulative ? { running_total: true } : {}),
      // Premium requests are on the per-model lines when there are some, else here.
      ...(models.length === 0 && premiumRequests > 0 ? { premiumRequests } : {}),
    },
  );
  const lines = models.map((m) =>
    note('usage', undefined, {
      model: m.model,
      usage: m.usage,
      premiumRequests: m.premiumRequests,
      requests: m.requests,
      ...(m.reasoning ? { reasoning_tokens: m.reasoning } : {}),
    }),
  );
  for (const m of models) n.models.add(m.model);
  n.push(event, line, head, ...lines);
}
