import type { NormalizedMessage, TokenUsage } from '../../model/message.ts';
import type { BodyOut } from '../../model/body.ts';
import type { ClaudeUsage } from './schema.ts';

/** Token counts as `[input, output, cacheRead, cacheCreation, cacheCreation1h]` (the last absent in states saved
 * before it was kept): state is kept per response, so kept small. */
type Tokens = [number, number, number, number, number?];

/** A response's usage: its first message (once written), the best usage seen, and, while the two differ,
 * what the first message shows (`null`: nothing). */
export interface ResponseUsage {
  first?: string;
  best?: Tokens;
  shown?: Tokens | null;
  model?: string;
}

function tokens(u: TokenUsage): Tokens {
  return u.cacheCreation1h
    ? [u.input, u.output, u.cacheRead, u.cacheCreation, u.cacheCreation1h]
    : [u.input, u.output, u.cacheRead, u.cacheCreation];
}

function usageOf(t: Tokens): TokenUsage {
  return {
    input: t[0],
    output: t[1],
    cacheRead: t[2],
    cacheCreation: t[3],
    ...(t[4] ? { cacheCreation1h: t[4] } : {}),
  };
}

function sameTokens(a: Tokens | undefined | null, b: Tokens | undefined | null): boolean {
  return !!a && !!b && a[0] === b[0] && a[1] === b[1] && a[2] === b[2] && a[3] === b[3] && (a[4] ?? 0) === (b[4] ?? 0);
}

/** The usage of each response of a thread: shown on its first message, patched there once a later line of the
 * same response carries the final counts. */
export class ResponseUsages {
  /** Saved as is in the thread's state (the map itself, not a copy). */
  constructor(readonly byResponse = new Map<string, ResponseUsage>()) {}

  private entry(responseId: string): ResponseUsage {
    let r = this.byResponse.get(responseId);
    if (!r) this.byResponse.set(responseId, (r = {}));
    return r;
  }

  record(responseId: string, usage: ClaudeUsage, model: string | undefined): void {
    const cacheCreation = count(usage.cache_creation_input_tokens);
    const oneHour = usage.cache_creation?.ephemeral_1h_input_tokens;
    const next: TokenUsage = {
      input: count(usage.input_tokens),
      output: count(usage.output_tokens),
      cacheRead: count(usage.cache_read_input_tokens),
      cacheCreation,
      ...(typeof oneHour === 'number' && oneHour > 0 ? { cacheCreation1h: Math.min(oneHour, cacheCreation) } : {}),
    };
    const r = this.entry(responseId);
    if (typeof model === 'string' && model) r.model = model;
    // Streamed lines repeat the usage of message_start; the final line carries the real output count.
    if (r.best && next.output < r.best[1]) return;
    if (r.first && r.shown === undefined) r.shown = r.best ?? null; // its first message shows the old best
    r.best = tokens(next);
    if (sameTokens(r.best, r.shown)) delete r.shown;
  }

  /** Called as a message is written: the first message of its response shows the usage known so far. */
  noteWritten(m: NormalizedMessage): void {
    const responseId = m.metadata?.response_id;
    if (!responseId) return;
    const r = this.entry(responseId);
    if (!r.first) {
      r.first = m.id;
      if (r.best) m.metadata!.usage = usageOf(r.best);
    }
  }

  /** Patches the first message of each response whose usage changed after it was written. */
  patchFinal(out: BodyOut, thread: string): void {
    for (const r of this.byResponse.values()) {
      if (r.first && r.best && r.shown !== undefined) {
        out.patch(thread, {
          id: r.first,
          usage: usageOf(r.best),
          ...(r.shown ? { was: { usage: usageOf(r.shown) } } : {}),
          ...(r.model ? { model: r.model } : {}),
          at: r.first.slice(0, r.first.indexOf('#')), // a message id starts with its time
        });
      }
      delete r.shown;
    }
  }
}

/** A token count as the record gives it: a number, or a numeric string; anything else (a line with a wrong type)
 * counts 0, so the session's totals stay numbers. */
function count(value: unknown): number {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : 0;
  return Number.isFinite(n) && n > 0 ? n : 0;
}
