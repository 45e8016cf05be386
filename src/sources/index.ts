import { claudeCode } from './claude-code/index.ts';
import type { Source } from './source.ts';

/** Every source the collector knows. A new source is one folder plus one line here. */
export const SOURCES: readonly Source[] = [claudeCode];
