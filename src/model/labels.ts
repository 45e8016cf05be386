import type { SourceId } from './message.ts';
import type { ConversationPattern } from './session.ts';

/** Every source's name (a string key, for ids read from archives and search records). */
export const SOURCE_LABELS: Readonly<Record<string, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'amazon-q': 'Amazon Q',
  'gemini-cli': 'Gemini CLI',
  'copilot-cli': 'Copilot CLI',
  cursor: 'Cursor',
  opencode: 'OpenCode',
  cline: 'Cline',
  messages: 'Custom agent',
} satisfies Record<SourceId, string>;

export const PATTERN_LABELS: Record<ConversationPattern, string> = {
  simple: 'simple',
  single_tool: 'single tool',
  multi_tool: 'multi tool',
  incomplete: 'incomplete',
};
