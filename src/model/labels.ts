import type { SourceId } from './message.ts';
import type { ConversationPattern } from './session.ts';

/** Every source's name (a string key, for ids read from archives and search records). */
export const SOURCE_LABELS: Readonly<Record<string, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'amazon-q': 'Amazon Q',
  'gemini-cli': 'Gemini CLI',
  'qwen-code': 'Qwen Code',
  'copilot-cli': 'Copilot CLI',
  cursor: 'Cursor',
  opencode: 'OpenCode',
  goose: 'Goose',
  cline: 'Cline',
  messages: 'Custom agent',
} satisfies Record<SourceId, string>;

/** A conversation pattern's name on pages and in reports (the ids stay as archives store them). */
export const PATTERN_LABELS: Record<ConversationPattern, string> = {
  simple: 'simple',
  single_tool: 'single tool',
  multi_tool: 'multi tool',
  incomplete: 'no final answer',
};

/** What each pattern means, in one line: a legend, or the title of a pattern's badge. */
export const PATTERN_HINTS: Record<ConversationPattern, string> = {
  simple: 'answered without calling any tool',
  single_tool: 'one round of tool calls, then a final answer',
  multi_tool: 'two or more rounds of tool calls, then a final answer',
  incomplete: 'the session ended on a tool call, mid-work or with no reply to the last prompt',
};
