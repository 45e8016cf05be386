import { amazonQ } from './amazon-q/index.ts';
import { claudeCode } from './claude-code/index.ts';
import { cline } from './cline/index.ts';
import { codex } from './codex/index.ts';
import { copilotCli } from './copilot-cli/index.ts';
import { cursor } from './cursor/index.ts';
import { geminiCli } from './gemini-cli/index.ts';
import { goose } from './goose/index.ts';
import { messages } from './messages/index.ts';
import { openCode } from './opencode/index.ts';
import { qwenCode } from './qwen-code/index.ts';
import type { Source } from './source.ts';

/** Every source the collector knows. A new source is one folder plus one line here. */
export const SOURCES: readonly Source[] = [
  claudeCode,
  codex,
  amazonQ,
  geminiCli,
  qwenCode,
  copilotCli,
  cursor,
  openCode,
  goose,
  cline,
  messages,
];
