/**
 * Cline and Roo Code before native tool calling (and whenever the provider has none) have the model write its
 * tool calls as XML in the assistant's text, one per message (`src/core/assistant-message/parse-assistant-message.ts`
 * in cline/cline, `toolUseNames` in `src/shared/tools.ts`); the result comes back in the next user message as a
 * text block headed `[<tool> for '<what>'] Result:` (`toolDescription()` in `src/core/task/index.ts`).
 */

export const XML_TOOLS = [
  'execute_command',
  'read_file',
  'write_to_file',
  'replace_in_file',
  'apply_diff',
  'insert_content',
  'search_and_replace',
  'search_files',
  'list_files',
  'list_code_definition_names',
  'codebase_search',
  'browser_action',
  'use_mcp_tool',
  'access_mcp_resource',
  'ask_followup_question',
  'plan_mode_respond',
  'act_mode_respond',
  'attempt_completion',
  'new_task',
  'switch_mode',
  'fetch_instructions',
  'load_mcp_documentation',
  'update_todo_list',
  'web_fetch',
  'web_search',
  'condense',
  'summarize_task',
  'report_bug',
  'new_rule',
  'use_skill',
  'run_slash_command',
  'generate_image',
  'edit_file',
  'apply_patch',
] as const;

const TOOL_SET = new Set<string>(XML_TOOLS);
const TOOL_BLOCK = new RegExp(`<(${XML_TOOLS.join('|')})>([\\s\\S]*?)(?:</\\1>|$)`, 'g');
const PARAM = /<([a-z_]+)>([\s\S]*?)<\/\1>/g;

export type TextPart = { kind: 'text'; text: string } | { kind: 'thinking'; text: string };
export type XmlPart = TextPart | { kind: 'call'; name: string; input: Record<string, unknown>; xml: string };

function trimNewlines(s: string): string {
  return s.replace(/^\r?\n/, '').replace(/\r?\n$/, '');
}

/** Prose, `<thinking>` and tool calls of one assistant text, in order. */
export function splitAssistantText(source: string): XmlPart[] {
  const parts: XmlPart[] = [];
  const prose = (s: string) => {
    let rest = s;
    for (const m of s.matchAll(/<thinking>([\s\S]*?)(?:<\/thinking>|$)/g)) {
      const before = rest.slice(0, rest.indexOf(m[0]));
      if (before.trim()) parts.push({ kind: 'text', text: before.trim() });
      if (m[1]!.trim()) parts.push({ kind: 'thinking', text: m[1]!.trim() });
      rest = rest.slice(rest.indexOf(m[0]) + m[0].length);
    }
    if (rest.trim()) parts.push({ kind: 'text', text: rest.trim() });
  };
  let at = 0;
  for (const m of source.matchAll(TOOL_BLOCK)) {
    prose(source.slice(at, m.index));
    const input: Record<string, unknown> = {};
    for (const p of m[2]!.matchAll(PARAM)) input[p[1]!] = trimNewlines(p[2]!);
    addEdits(input);
    parts.push({ kind: 'call', name: m[1]!, input, xml: m[0] });
    at = m.index + m[0].length;
  }
  prose(source.slice(at));
  return parts;
}

/** SEARCH/REPLACE blocks (Cline's `------- SEARCH` / `=======` / `+++++++ REPLACE`, the older and Roo's
 * `<<<<<<< SEARCH` / `>>>>>>> REPLACE`, Roo's `:start_line:` header) as old/new pairs. */
export function searchReplaceEdits(diff: string): { old_string: string; new_string: string }[] {
  const edits: { old_string: string; new_string: string }[] = [];
  const block =
    /^(?:-{3,} ?SEARCH|<{3,} ?SEARCH)>?\r?\n([\s\S]*?)^={3,}\r?\n([\s\S]*?)^(?:\+{3,} ?REPLACE|>{3,} ?REPLACE)/gm;
  for (const m of diff.matchAll(block)) {
    const old = m[1]!.replace(/^(?::start_line:\s*\d+\r?\n|:end_line:\s*\d+\r?\n)*(?:-{3,}\r?\n)?/, '');
    edits.push({ old_string: old.replace(/\r?\n$/, ''), new_string: m[2]!.replace(/\r?\n$/, '') });
  }
  return edits;
}

/** `replace_in_file` / `apply_diff` inputs get `edits` (old/new pairs) beside their `diff`, so they show as diffs. */
export function addEdits(input: Record<string, unknown>): void {
  if (typeof input.diff !== 'string' || input.edits !== undefined) return;
  const edits = searchReplaceEdits(input.diff);
  if (edits.length) input.edits = edits;
}

/** `[read_file for 'src/a.ts'] Result:` → the tool's name and the text after the header. */
export function parseResultHeader(text: string): { name: string; output: string } | undefined {
  const m = /^\[([a-z_]+)(?: for [^\]]*)?\] Result:\s*\r?\n?/.exec(text);
  if (!m || !TOOL_SET.has(m[1]!)) return undefined;
  return { name: m[1]!, output: text.slice(m[0].length) };
}

/** Whether a tool result says it failed or the user refused it (Cline's `formatResponse` texts). */
export function resultStatus(output: string): 'completed' | 'error' | 'rejected' {
  if (/^The user denied this operation\b/.test(output) || /^\[?The user denied/.test(output)) return 'rejected';
  if (/^(?:The tool execution failed|Error:|\[ERROR\]|<error>)/.test(output)) return 'error';
  return 'completed';
}
