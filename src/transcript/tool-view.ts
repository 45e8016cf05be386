import type { ToolCall } from '../model/message.ts';
import { type FileDiff, isPatchEnvelope, lineDiff, parsePatchEnvelope } from './diff.ts';

/** What a tool call's input and output are, so the page shows each tool for what it is (source-agnostic). */

export type TodoStatus = 'completed' | 'in_progress' | 'pending' | 'cancelled';

export type ToolInputView =
  | { kind: 'diff'; files: FileDiff[] }
  | { kind: 'code'; path?: string; lang?: string; code: string; caption: string }
  | { kind: 'shell'; command: string; cwd?: string; description?: string }
  | { kind: 'todo'; items: { text: string; status: TodoStatus }[]; explanation?: string }
  | { kind: 'web'; url?: string; query?: string; prompt?: string }
  | { kind: 'task'; agentType?: string; description?: string; prompt: string }
  | { kind: 'read'; path: string; range?: string }
  | { kind: 'json'; text: string };

export type ToolOutputView =
  | { kind: 'code'; lang?: string; code: string; firstLine: number }
  | { kind: 'shell'; exitCode?: number; stdout: string; stderr?: string; interrupted?: boolean }
  | { kind: 'text'; text: string };

type Args = Record<string, unknown>;

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function argsOf(call: ToolCall): Args | undefined {
  const a = call.arguments_json;
  if (a && typeof a === 'object' && !Array.isArray(a)) return a as Args;
  if (call.arguments?.trim().startsWith('{')) {
    try {
      const parsed = JSON.parse(call.arguments) as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Args;
    } catch {
      /* not JSON: shown as text */
    }
  }
  return undefined;
}

const EXTENSIONS: Record<string, string> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'tsx',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'jsx',
  json: 'json',
  jsonl: 'json',
  md: 'markdown',
  py: 'python',
  rb: 'ruby',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  swift: 'swift',
  c: 'c',
  h: 'c',
  cpp: 'cpp',
  cc: 'cpp',
  hpp: 'cpp',
  cs: 'csharp',
  php: 'php',
  sh: 'shellscript',
  bash: 'shellscript',
  zsh: 'shellscript',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'toml',
  html: 'html',
  htm: 'html',
  css: 'css',
  scss: 'scss',
  sql: 'sql',
  astro: 'astro',
  vue: 'vue',
  svelte: 'svelte',
  xml: 'xml',
  dockerfile: 'docker',
  lua: 'lua',
};

/** The highlighter's language for a file name, from its extension (undefined: plain text). */
export function languageOf(file: string | undefined): string | undefined {
  if (!file) return undefined;
  const name = file.split(/[\\/]/).pop()!.toLowerCase();
  if (name === 'dockerfile') return 'docker';
  if (name === 'makefile') return 'make';
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : EXTENSIONS[name.slice(dot + 1)];
}

/** Each assistant's tool names by what they do (lower case; an MCP prefix is taken off first). */
const TOOL_FAMILIES: Record<string, readonly string[]> = {
  edit: [
    'edit',
    'str_replace',
    'str_replace_based_edit_tool',
    'str_replace_editor',
    'replace',
    'strreplace',
    'search_replace',
    'edit_file',
    'editfile',
    'developer__edit',
  ],
  multiedit: ['multiedit', 'replace_in_file', 'apply_diff'],
  write: ['write', 'create', 'write_file', 'notebookedit', 'write_to_file', 'developer__write'],
  // One tool whose `command` says which edit (Amazon Q, Goose's text editor).
  fs_write: ['fs_write', 'developer__text_editor'],
  patch: ['apply_patch', 'patch'],
  read: ['read', 'fs_read', 'read_file', 'view', 'readfile'],
  shell: [
    'bash',
    'shell',
    'exec_command',
    'execute_bash',
    'local_shell',
    'shell_command',
    'container.exec',
    'run_shell_command',
    'run_terminal_cmd',
    'execute_command',
    'developer__shell',
  ],
  todo: [
    'todowrite',
    'update_plan',
    'todo_list',
    'write_todos',
    'todo_write',
    'update_todo_list',
    'todo',
    'todo__todo_write',
  ],
  fetch: ['webfetch', 'web_fetch', 'fetch'],
  search: ['websearch', 'web_search', 'web_search_call', 'search_web', 'google_web_search'],
  // Listing and searching the workspace: its output is files' names and lines, as a read's is their contents.
  find: [
    'glob',
    'grep',
    'ls',
    'list',
    'find',
    'list_dir',
    'list_directory',
    'list_files',
    'file_search',
    'grep_search',
    'codebase_search',
    'search_files',
    'search_file_content',
    'read_many_files',
    'list_code_definition_names',
  ],
  task: ['task', 'agent', 'spawn_agent', 'subagent', 'new_task'],
};
const FAMILY_OF = new Map(Object.entries(TOOL_FAMILIES).flatMap(([family, names]) => names.map((n) => [n, family])));

/** An archive written before records were checked may hold a name that is not text: no family. */
function toolFamily(name: unknown): string {
  if (typeof name !== 'string') return 'other';
  return FAMILY_OF.get(name.toLowerCase().replace(/^mcp__.*__/, '')) ?? 'other';
}

const LOOKUP_FAMILIES = new Set(['read', 'find', 'fetch', 'search']);

/** A tool that looks something up (reads a file, lists or searches the workspace, fetches a page, searches the web):
 * its output is what the assistant read, not what it did. */
export function isLookupTool(name: unknown): boolean {
  return LOOKUP_FAMILIES.has(toolFamily(name));
}

function commandText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    const parts = value as string[];
    // `["bash", "-lc", "…"]` runs its last word: show that.
    if (parts.length === 3 && /(^|\/)(ba|z)?sh$/.test(parts[0]!) && /^-l?c$/.test(parts[1]!)) return parts[2];
    return parts.map((p) => (/^[\w@%+=:,./-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`)).join(' ');
  }
  return undefined;
}

function pretty(call: ToolCall): string {
  if (call.arguments_json !== undefined) return JSON.stringify(call.arguments_json, null, 2);
  return call.arguments ?? '';
}

function todoStatus(value: unknown): TodoStatus {
  const s = String(value ?? '').toLowerCase();
  if (s === 'completed' || s === 'done') return 'completed';
  if (s === 'in_progress' || s === 'in-progress' || s === 'active') return 'in_progress';
  if (s === 'cancelled' || s === 'canceled') return 'cancelled';
  return 'pending';
}

/** How a call's input is shown. */
export function toolInputView(call: ToolCall): ToolInputView {
  const args = argsOf(call);
  const family = toolFamily(call.name);
  // Amazon Q's fs_read takes a list of operations: the first one's path stands for them.
  const operations = Array.isArray(args?.operations) ? (args.operations as Args[]) : [];
  const path =
    str(args?.file_path) ??
    str(args?.path) ??
    str(args?.filePath) ??
    str(args?.absolute_path) ??
    str(args?.target_file) ??
    str(args?.notebook_path) ??
    str(operations[0]?.path) ??
    '';
  if (family === 'patch' || (call.arguments && isPatchEnvelope(call.arguments) && !args)) {
    const text = str(args?.input) ?? str(args?.patch) ?? str(args?.patchText) ?? call.arguments ?? '';
    if (isPatchEnvelope(text)) return { kind: 'diff', files: parsePatchEnvelope(text) };
  }
  if (args) {
    if (family === 'edit' && typeof args.old_string === 'string' && typeof args.new_string === 'string')
      return { kind: 'diff', files: [{ path, action: 'update', lines: lineDiff(args.old_string, args.new_string) }] };
    if (family === 'edit' && typeof args.old_str === 'string' && typeof args.new_str === 'string')
      return { kind: 'diff', files: [{ path, action: 'update', lines: lineDiff(args.old_str, args.new_str) }] };
    if (family === 'edit' && typeof args.oldString === 'string' && typeof args.newString === 'string')
      return { kind: 'diff', files: [{ path, action: 'update', lines: lineDiff(args.oldString, args.newString) }] };
    // Goose's developer `edit`: `before` replaced by `after`.
    if (family === 'edit' && typeof args.before === 'string' && typeof args.after === 'string')
      return { kind: 'diff', files: [{ path, action: 'update', lines: lineDiff(args.before, args.after) }] };
    if (family === 'multiedit' && Array.isArray(args.edits)) {
      const lines = (args.edits as Args[]).flatMap((e, i) => [
        ...(i > 0 ? [{ op: '@' as const, text: `edit ${i + 1}` }] : []),
        ...lineDiff(str(e?.old_string) ?? '', str(e?.new_string) ?? ''),
      ]);
      return { kind: 'diff', files: [{ path, action: 'update', lines }] };
    }
    // Amazon Q's fs_write and Kiro's write: one tool, its `command` says which edit.
    if (family === 'fs_write' || (family === 'write' && typeof args.command === 'string')) {
      const command = str(args.command);
      // Goose's text editor also reads.
      if (command === 'view' && path) {
        const range = Array.isArray(args.view_range) ? `lines ${args.view_range.map(String).join('–')}` : undefined;
        return { kind: 'read', path, range };
      }
      const oldText = str(args.old_str) ?? str(args.oldStr) ?? '';
      const newText = str(args.new_str) ?? str(args.newStr);
      if (command === 'str_replace' || command === 'strReplace')
        return { kind: 'diff', files: [{ path, action: 'update', lines: lineDiff(oldText, newText ?? '') }] };
      if (command === 'append' || command === 'insert')
        return {
          kind: 'diff',
          files: [
            {
              path,
              action: 'update',
              lines: lineDiff('', newText ?? str(args.file_text) ?? str(args.content) ?? ''),
            },
          ],
        };
      const text = str(args.file_text) ?? str(args.content);
      if (text !== undefined) return { kind: 'code', path, lang: languageOf(path), code: text, caption: 'Writes' };
    }
    if (family === 'write') {
      const text = str(args.content) ?? str(args.file_text) ?? str(args.contents) ?? str(args.new_source);
      if (text !== undefined) return { kind: 'code', path, lang: languageOf(path), code: text, caption: 'Writes' };
    }
    if (family === 'shell') {
      const command = commandText(args.command) ?? commandText(args.cmd);
      if (command !== undefined) {
        if (isPatchEnvelope(command.replace(/^apply_patch\s+/, '')))
          return { kind: 'diff', files: parsePatchEnvelope(command.replace(/^apply_patch\s+/, '')) };
        if (Array.isArray(args.command) && args.command[0] === 'apply_patch' && typeof args.command[1] === 'string')
          return { kind: 'diff', files: parsePatchEnvelope(args.command[1]) };
        return {
          kind: 'shell',
          command,
          cwd: str(args.workdir) ?? str(args.cwd) ?? str(args.dir_path) ?? str(args.working_directory),
          description: str(args.description) ?? str(args.summary),
        };
      }
    }
    if (family === 'read' && path) {
      const offset = args.offset ?? args.start_line;
      const limit = args.limit ?? args.end_line;
      const range =
        offset !== undefined || limit !== undefined
          ? `${offset !== undefined ? `from line ${String(offset)}` : ''}${limit !== undefined ? ` (${String(limit)} lines)` : ''}`.trim()
          : undefined;
      return { kind: 'read', path, range: operations.length > 1 ? `and ${operations.length - 1} more` : range };
    }
    if (family === 'todo') {
      const list = Array.isArray(args.todos)
        ? args.todos
        : Array.isArray(args.plan)
          ? args.plan
          : typeof args.todos === 'string'
            ? checklistItems(args.todos)
            : typeof args.content === 'string'
              ? checklistItems(args.content)
              : undefined;
      if (list)
        return {
          kind: 'todo',
          items: (list as Args[]).map((t) => ({
            text: str(t?.content) ?? str(t?.step) ?? str(t?.text) ?? str(t?.description) ?? JSON.stringify(t),
            status: todoStatus(t?.status),
          })),
          explanation: str(args.explanation),
        };
    }
    if (family === 'fetch' || family === 'search') {
      const url = str(args.url);
      const query =
        str(args.query) ??
        str(args.search_term) ??
        (Array.isArray(args.queries) ? (args.queries as unknown[]).join(' · ') : undefined);
      if (url || query) return { kind: 'web', url, query, prompt: str(args.prompt) };
    }
    if (family === 'task') {
      const prompt = str(args.prompt) ?? str(args.message) ?? '';
      return {
        kind: 'task',
        agentType: str(args.subagent_type) ?? str(args.agent_type),
        description: str(args.description),
        prompt,
      };
    }
  }
  return { kind: 'json', text: pretty(call) };
}

/** A Markdown checklist (`- [x] done`, `- [-] doing`, `- [ ] to do`), as Roo Code's update_todo_list writes it. */
function checklistItems(text: string): Args[] {
  return text
    .split('\n')
    .map((line) => /^\s*[-*]\s*\[([ xX-])\]\s*(.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({
      content: m[2],
      status: m[1] === ' ' ? 'pending' : m[1] === '-' ? 'in_progress' : 'completed',
    }));
}

/** `     12→text` (Claude Read) or `    12\ttext` (cat -n): the numbers taken off, and the first one kept. */
function stripLineNumbers(text: string): { code: string; firstLine: number } | undefined {
  const lines = text.split('\n');
  const numbered = /^\s*(\d+)(?:→|\t)(.*)$/;
  const first = numbered.exec(lines[0] ?? '');
  if (!first) return undefined;
  const out: string[] = [];
  for (const line of lines) {
    const match = numbered.exec(line);
    if (match) out.push(match[2]!);
    else if (line.trim() === '' || line.startsWith('<system-reminder>')) break;
    else return undefined;
  }
  return { code: out.join('\n'), firstLine: Number(first[1]) };
}

function exitCodeOf(json: unknown, metadata: Record<string, unknown> | undefined, text: string): number | undefined {
  const fromRecord = (o: unknown): number | undefined => {
    if (!o || typeof o !== 'object') return undefined;
    const r = o as Record<string, unknown>;
    for (const key of ['exit_code', 'exitCode', 'exit_status', 'returncode']) {
      const v = r[key];
      if (typeof v === 'number') return v;
      if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v.trim());
    }
    return r.metadata ? fromRecord(r.metadata) : undefined;
  };
  const found = fromRecord(metadata) ?? fromRecord(json);
  if (found !== undefined) return found;
  const match = /(?:^|\n)(?:Process exited with code|(?:Error: )?Exit code:?) (-?\d+)/.exec(text.slice(0, 2000));
  return match ? Number(match[1]) : undefined;
}

/** A shell tool's structured stderr, when it holds anything. */
function shellStderr(json: unknown): string | undefined {
  const stderr = json && typeof json === 'object' ? (json as Record<string, unknown>).stderr : undefined;
  return typeof stderr === 'string' && stderr.trim() ? stderr : undefined;
}

/** Whether a shell tool's page shows its structured stdout (Claude Code's) rather than the text the model got.
 * Not when the structured output is empty while the text has something (a command sent to the background,
 * "Command running in background with ID: …"): the text is what the model saw. */
export function isStructuredShell(json: unknown, output: string): boolean {
  const stdout = json && typeof json === 'object' ? (json as Record<string, unknown>).stdout : undefined;
  return typeof stdout === 'string' && (stdout.trim() !== '' || shellStderr(json) !== undefined || !output.trim());
}

/** How a result is shown, given the call it answers. */
export function toolOutputView(
  call: ToolCall | undefined,
  output: string,
  json: unknown,
  metadata?: Record<string, unknown>,
): ToolOutputView {
  const family = call ? toolFamily(call.name) : 'other';
  const args = call ? argsOf(call) : undefined;
  if (family === 'read') {
    const stripped = stripLineNumbers(output);
    const path = str(args?.file_path) ?? str(args?.path);
    if (stripped) return { kind: 'code', lang: languageOf(path), ...stripped };
  }
  if (family === 'shell') {
    const o = json && typeof json === 'object' ? (json as Record<string, unknown>) : undefined;
    const stderr = shellStderr(json);
    const stdout = isStructuredShell(json, output) ? (o!.stdout as string) : output;
    let body = stdout;
    // Codex exec_command: a few header lines, then `Output:`.
    const header =
      /^(?:Chunk ID:[^\n]*\n)?(?:Wall time:[^\n]*\n)?(?:Process exited with code -?\d+\n)?(?:Original token count:[^\n]*\n)?Output:\n/.exec(
        body,
      );
    if (header) body = body.slice(header[0].length);
    return {
      kind: 'shell',
      exitCode: exitCodeOf(json, metadata, output),
      stdout: body,
      stderr,
      interrupted: o?.interrupted === true,
    };
  }
  return { kind: 'text', text: output };
}
