/** Event kinds FORMATS.md §2.6 documents; kept as `system_event` meta. Any other kind is `unknown`. */
export const KNOWN_EVENTS = new Set([
  'user_message',
  'agent_message',
  'agent_reasoning',
  'agent_reasoning_raw_content',
  'agent_reasoning_section_break',
  'token_count',
  'task_started',
  'turn_started',
  'task_complete',
  'turn_complete',
  'turn_aborted',
  'context_compacted',
  'thread_name_updated',
  'thread_rolled_back',
  'undo_started',
  'undo_completed',
  'entered_review_mode',
  'exited_review_mode',
  'exec_command_end',
  'patch_apply_end',
  'mcp_tool_call_end',
  'web_search_end',
  'view_image_tool_call',
  'image_generation_end',
  'collab_agent_spawn_end',
  'collab_agent_interaction_end',
  'collab_waiting_end',
  'collab_close_end',
  'sub_agent_activity',
  'dynamic_tool_call_request',
  'dynamic_tool_call_response',
  'guardian_assessment',
  'thread_goal_updated',
  'thread_settings_applied',
  'item_completed',
  'plan_update',
  'background_event',
  'error',
  'stream_error',
  'warning',
]);
/** event_msg kinds that repeat a response_item; never shown or counted. */
export const MIRRORS = new Set(['user_message', 'agent_message', 'agent_reasoning', 'agent_reasoning_raw_content']);
/** event_msg kinds whose `call_id` carries the richer end of a tool call. */
export const CALL_ENDS = new Set([
  'exec_command_end',
  'patch_apply_end',
  'mcp_tool_call_end',
  'web_search_end',
  'view_image_tool_call',
  'dynamic_tool_call_response',
]);
/** Response item types that are a model's output (they open or continue a response). */
export const CALL_TYPES = new Set([
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
  'tool_search_call',
  'image_generation_call',
]);
export const OUTPUT_TYPES = new Set(['function_call_output', 'custom_tool_call_output', 'tool_search_output']);
/** Response item types with nothing to show. */
export const SILENT_ITEMS = new Set(['ghost_snapshot', 'compaction', 'compaction_summary', 'other']);
/** Top-level line types that are documented but carry nothing to show. */
export const SILENT_LINES = new Set(['world_state', 'inter_agent_communication_metadata', 'token_usage_record']);
