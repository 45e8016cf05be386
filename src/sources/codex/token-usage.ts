import type { NormalizedMessage, TokenUsage } from '../../model/message.ts';
import { pick } from './record-fields.ts';
import type { TokenCountInfo, TokenUsageCounts } from './schema.ts';

interface OpenResponse {
  id: string;
  first: NormalizedMessage;
  hasUsage: boolean;
}

/**
 * Groups a model's output items into responses and puts each request's token usage on the first
 * message of the response it belongs to.
 */
export class ResponseUsage {
  private open?: OpenResponse;
  private pendingUsage?: { usage: TokenUsage; holder: NormalizedMessage };
  private lastTotal?: string;

  constructor(private readonly idPrefix: string) {}

  /** The response the current output item belongs to: the open one, or a new one. */
  continueResponse(line: number): string {
    if (this.open) return this.open.id;
    return `${this.idPrefix}r${line}`;
  }

  startedResponse(first: NormalizedMessage): void {
    if (this.open) return;
    this.open = { id: first.metadata!.response_id!, first, hasUsage: false };
    if (this.pendingUsage) {
      giveUsage(first, this.pendingUsage.usage);
      this.open.hasUsage = true;
      this.pendingUsage = undefined;
    }
  }

  closeResponse(): void {
    this.open = undefined;
  }

  /**
   * Counts a request only when the thread's cumulative total changed (FORMATS.md §2.8), and puts its
   * usage on the first message of the response it belongs to: the open response (newer builds write
   * token_count after the items) or else the next one (0.4x builds write it before them).
   */
  countTokens(info: TokenCountInfo | undefined, holder: NormalizedMessage): void {
    const total = info?.total_token_usage;
    if (!total) return;
    const key = usageKey(total);
    if (key === this.lastTotal) return;
    const previous = this.lastTotal ? JSON.parse(this.lastTotal) : undefined;
    this.lastTotal = key;
    const last = info.last_token_usage ?? difference(total, previous);
    const usage = toUsage(last);
    if (this.open && !this.open.hasUsage) {
      giveUsage(this.open.first, usage);
      this.open.hasUsage = true;
      return;
    }
    if (this.pendingUsage) giveUsage(this.pendingUsage.holder, this.pendingUsage.usage);
    this.pendingUsage = { usage, holder };
  }

  /** A copied line's total: not counted here, but the baseline the next request is measured from. */
  setBaseline(total: TokenUsageCounts): void {
    this.lastTotal = usageKey(total);
  }

  /** At the end of the file, usage still waiting for its response stays on its own token_count line. */
  flushPending(): void {
    if (this.pendingUsage) giveUsage(this.pendingUsage.holder, this.pendingUsage.usage);
    this.pendingUsage = undefined;
  }
}

function giveUsage(message: NormalizedMessage, usage: TokenUsage): void {
  message.metadata ??= {};
  message.metadata.usage = usage;
}

function usageKey(u: TokenUsageCounts): string {
  return JSON.stringify([
    u.input_tokens ?? 0,
    u.cached_input_tokens ?? 0,
    u.output_tokens ?? 0,
    u.reasoning_output_tokens ?? 0,
    u.total_tokens ?? 0,
  ]);
}

function difference(total: TokenUsageCounts, previous: number[] | undefined): TokenUsageCounts {
  const [i = 0, c = 0, o = 0, r = 0, t = 0] = previous ?? [];
  return {
    input_tokens: (total.input_tokens ?? 0) - i,
    cached_input_tokens: (total.cached_input_tokens ?? 0) - c,
    output_tokens: (total.output_tokens ?? 0) - o,
    reasoning_output_tokens: (total.reasoning_output_tokens ?? 0) - r,
    total_tokens: (total.total_tokens ?? 0) - t,
  };
}

/** OpenAI semantics: cached ⊂ input, reasoning ⊂ output (FORMATS.md §2.8, §4). */
function toUsage(u: TokenUsageCounts): TokenUsage {
  const input = u.input_tokens ?? 0;
  const cached = u.cached_input_tokens ?? 0;
  return { input: Math.max(0, input - cached), output: u.output_tokens ?? 0, cacheRead: cached, cacheCreation: 0 };
}

/** The parts of a token_count's `info` kept on its meta line. */
export function tokenInfo(info: TokenCountInfo): Record<string, unknown> {
  return pick(info as Record<string, unknown>, ['total_token_usage', 'last_token_usage', 'model_context_window']);
}
