import type { ToolCall } from './message.ts';

/** Which files a tool call edits, by what the call asked for (not by whether it worked). */

/** Tools that name one file they write, and the argument keys that may name it (the first present wins):
 * Claude Code, Amazon Q and Kiro, Gemini CLI, Copilot CLI, Cursor, OpenCode, Goose, Cline / Roo / Kilo. */
const FILE_TOOLS: Record<string, readonly string[]> = {
  Edit: ['file_path'],
  MultiEdit: ['file_path'],
  Write: ['file_path', 'path'],
  NotebookEdit: ['notebook_path'],
  fs_write: ['path'],
  write: ['path', 'filePath'],
  edit: ['path', 'filePath', 'file_path'],
  create: ['path'],
  replace: ['file_path'],
  write_file: ['file_path'],
  StrReplace: ['path'],
  edit_file: ['target_file', 'file_path', 'path'],
  search_replace: ['file_path', 'target_file', 'path'],
  write_to_file: ['path'],
  replace_in_file: ['path'],
  apply_diff: ['path'],
  developer__text_editor: ['path'],
  developer__write: ['path'],
  developer__edit: ['path'],
};

/** Tools whose `command` may only read: those commands edit nothing (Goose's text editor). */
const READ_COMMANDS: Record<string, readonly string[]> = { developer__text_editor: ['view'] };

/** Tools whose input may carry an apply_patch patch (Codex: freeform apply_patch, or through the shell). */
const PATCH_TOOLS = new Set([
  'apply_patch',
  'patch',
  'shell',
  'local_shell',
  'exec_command',
  'shell_command',
  'container.exec',
]);

const PATCH_FILE = /^\*\*\* (?:Add|Update|Delete) File: (.+?)\s*$|^\*\*\* Move to: (.+?)\s*$/gm;

export function editedFiles(call: Pick<ToolCall, 'name' | 'arguments' | 'arguments_json'>): string[] {
  const keys = FILE_TOOLS[call.name];
  if (keys) {
    const args = argumentsObject(call);
    if (READ_COMMANDS[call.name]?.includes(String(args?.command))) return [];
    const file = keys.map((k) => args?.[k]).find((v): v is string => typeof v === 'string' && v.length > 0);
    return file ? [file] : [];
  }
  if (PATCH_TOOLS.has(call.name)) {
    const text = patchText(call);
    if (!text) return [];
    const files = new Set<string>();
    for (const match of text.matchAll(PATCH_FILE)) files.add((match[1] ?? match[2])!);
    return [...files];
  }
  return [];
}

function argumentsObject(call: Pick<ToolCall, 'arguments' | 'arguments_json'>): Record<string, unknown> | undefined {
  if (call.arguments_json && typeof call.arguments_json === 'object') {
    return call.arguments_json as Record<string, unknown>;
  }
  if (typeof call.arguments === 'string' && call.arguments.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(call.arguments);
      if (parsed && typeof parsed === 'object') return parsed as Record<string, unknown>;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** The patch inside a call's input, whether it is the whole input or a string inside its JSON. */
function patchText(call: Pick<ToolCall, 'arguments' | 'arguments_json'>): string | undefined {
  const strings: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (typeof v === 'string') strings.push(v);
    else if (depth < 4 && Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (depth < 4 && v && typeof v === 'object') for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(call.arguments_json, 0);
  if (strings.length === 0 && typeof call.arguments === 'string') {
    const parsed = argumentsObject(call);
    if (parsed) walk(parsed, 0);
    else strings.push(call.arguments);
  }
  return strings.find((s) => s.includes('*** Begin Patch'));
}
