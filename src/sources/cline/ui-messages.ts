import type { MessageMetadata } from '../../model/message.ts';
import { isObject, isoOf, MessageBuilder, str, text, type Draft } from './builder.ts';
import type { ModelAt } from './metadata.ts';
import type { UiIndex, UiMessage } from './ui-index.ts';

/**
 * A task whose API history is missing or unreadable, read from `ui_messages.json` alone (`ClineMessage` in
 * cline/cline `src/shared/ExtensionMessage.ts`): what the user saw, with each request's tokens and cost.
 */
const EVENTS = new Set([
  'api_req_finished',
  'api_req_retried',
  'checkpoint_created',
  'deleted_api_reqs',
  'shell_integration_warning',
  'shell_integration_warning_with_suggestion',
  'diff_error',
  'clineignore_error',
  'info',
  'task_progress',
  'load_mcp_documentation',
  'mcp_server_request_started',
  'mcp_notification',
  'hook_status',
  'hook_output_stream',
  'conditional_rules_applied',
  'compaction',
  'condense_context',
  'subagent_usage',
  'resume_task',
  'resume_completed_task',
  'command_permission_denied',
]);

function json(textValue: string | undefined): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(textValue ?? '');
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

export function normalizeUiMessages(ui: UiIndex, file: string, modelAt: ModelAt, b: MessageBuilder): void {
  const requests = new Map(ui.requests.map((r) => [r.index, r]));
  let response = 0;
  let promptSeen = false;
  let lastCommand: string | undefined;
  const meta = (m: UiMessage): MessageMetadata => {
    const model = modelAt(m.ts);
    return { kind: 'response', response_id: `ui-${response}`, ...(model ? { model } : {}) };
  };
  for (const m of ui.entries) {
    const kind = m.say ?? m.ask ?? '';
    const d: Draft[] = [];
    const prompt = (t: string) =>
      d.push({ role: 'user', source_type: 'message', segments: [text('input', t)], metadata: { kind: 'prompt' } });
    if (m.say === 'task' || m.say === 'user_feedback' || (m.say === 'text' && !promptSeen && response === 0)) {
      promptSeen = true;
      prompt(m.text ?? '');
    } else if (m.say === 'api_req_started') {
      response += 1;
      const r = requests.get(m.index);
      const model = modelAt(m.ts);
      d.push({
        role: 'meta',
        source_type: 'meta',
        segments: [],
        metadata: {
          kind: 'system_event',
          subtype: 'api_req_started',
          ...(r?.usage ? { usage: r.usage } : {}),
          ...(r?.costUsd !== undefined ? { costUsd: r.costUsd } : {}),
          ...(model ? { model } : {}),
        },
      });
    } else if (m.say === 'text' || kind === 'completion_result' || m.say === 'reasoning') {
      if (!m.text && !m.reasoning) continue;
      const thinking = m.say === 'reasoning';
      const segments = [
        text('output', (thinking ? (m.text ?? m.reasoning) : m.text) ?? '', thinking ? 'thinking' : 'text'),
      ];
      d.push({ role: 'assistant', source_type: 'message', segments, metadata: meta(m) });
    } else if (m.ask === 'followup' || m.ask === 'plan_mode_respond' || m.ask === 'act_mode_respond') {
      const v = json(m.text);
      const t = str(v?.question) ?? str(v?.response) ?? m.text ?? '';
      d.push({ role: 'assistant', source_type: 'message', segments: [text('output', t)], metadata: meta(m) });
    } else if (
      kind === 'tool' ||
      kind === 'use_mcp_server' ||
      kind === 'browser_action' ||
      kind === 'browser_action_launch'
    ) {
      if (m.partial) continue;
      const v = json(m.text) ?? { text: m.text };
      const name = str(v.tool) ?? str(v.toolName) ?? (kind === 'tool' ? 'tool' : kind);
      const id = `ui-${m.index}`;
      d.push({
        role: 'tool',
        source_type: 'tool_call',
        segments: [],
        tool_call: { call_id: id, name, status: 'completed', arguments: JSON.stringify(v, null, 2), arguments_json: v },
        metadata: meta(m),
      });
    } else if (kind === 'command') {
      lastCommand = `ui-${m.index}`;
      d.push({
        role: 'tool',
        source_type: 'tool_call',
        segments: [],
        tool_call: {
          call_id: lastCommand,
          name: 'execute_command',
          status: 'unanswered',
          arguments: JSON.stringify({ command: m.text ?? '' }, null, 2),
          arguments_json: { command: m.text ?? '' },
        },
        metadata: meta(m),
      });
    } else if (kind === 'command_output') {
      d.push({
        role: 'tool',
        source_type: 'tool_result',
        segments: [],
        tool_call: { call_id: lastCommand ?? '', name: 'execute_command', status: 'completed', output: m.text ?? '' },
      });
    } else if (m.say === 'error' || m.ask === 'api_req_failed' || m.ask === 'mistake_limit_reached') {
      d.push({
        role: 'system',
        source_type: 'message',
        segments: [text('system', m.text ?? '')],
        metadata: { kind: 'api_error', subtype: kind },
      });
    } else if (EVENTS.has(kind) || m.say === 'mcp_server_response' || m.say === 'browser_action_result') {
      d.push({
        role: 'meta',
        source_type: 'meta',
        segments: m.text ? [text('system', m.text)] : [],
        metadata: { kind: 'system_event', subtype: kind },
      });
    } else {
      d.push({
        role: 'meta',
        source_type: 'meta',
        segments: [],
        metadata: { kind: 'unknown', subtype: kind || m.type },
        record: m.record,
      });
    }
    for (const draft of d) b.push(draft, file, m.index, undefined, isoOf(m.ts), kind || m.type);
  }
}
