import type { ConversationPattern } from './session.ts';

export const SOURCE_LABELS: Record<string, string> = {
  'claude-code': 'Claude Code',
  codex: 'Codex',
  'amazon-q': 'Amazon Q',
  messages: 'Custom agent',
};

export const PATTERN_LABELS: Record<ConversationPattern, string> = {
  simple: 'simple',
  single_tool: 'single tool',
  multi_tool: 'multi tool',
  incomplete: 'incomplete',
};
