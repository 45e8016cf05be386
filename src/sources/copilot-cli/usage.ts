import type { TokenUsage } from '../../model/message.ts';
import type { ModelMetric, ShutdownData } from './schema.ts';

/**
 * Token accounting. Copilot CLI persists no per-request usage: `assistant.usage` is ephemeral (never written to
 * events.jsonl), and `assistant.message` carries only `outputTokens`. The counted numbers are the per-model
 * totals of `session.shutdown` (`modelMetrics`), written when the CLI exits. A resumed session has one shutdown
 * per run. Builds disagree on whether a later shutdown holds the run's own numbers or the running total, so
 * each shutdown is told apart by the output tokens its messages carry: when its output total is nearer the sum
 * over the whole file than the sum since the previous shutdown, it is a running total and the previous
 * snapshot is taken off. Without per-message output tokens (older builds), a shutdown is the run's own.
 */

export interface ModelUsage {
  model: string;
  usage: TokenUsage;
  /** Reasoning tokens (a part of output, as the API reports them). */
  reasoning: number;
  requests: number;
  premiumRequests: number;
}

const n = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);

/** One model's metric as counted numbers: `inputTokens` includes cache reads and writes, our `input` does not. */
export function usageOf(model: string, m: ModelMetric): ModelUsage {
  const u = m.usage ?? {};
  const cacheRead = n(u.cacheReadTokens);
  const cacheCreation = n(u.cacheWriteTokens);
  return {
    model,
    usage: {
      input: Math.max(0, n(u.inputTokens) - cacheRead - cacheCreation),
      output: n(u.outputTokens),
      cacheRead,
      cacheCreation,
    },
    reasoning: n(u.reasoningTokens),
    requests: n(m.requests?.count),
    premiumRequests: n(m.requests?.cost),
  };
}

function minus(a: ModelUsage, b: ModelUsage | undefined): ModelUsage {
  if (!b) return a;
  const d = (x: number, y: number) => Math.max(0, x - y);
  return {
    model: a.model,
    usage: {
      input: d(a.usage.input, b.usage.input),
      output: d(a.usage.output, b.usage.output),
      cacheRead: d(a.usage.cacheRead, b.usage.cacheRead),
      cacheCreation: d(a.usage.cacheCreation, b.usage.cacheCreation),
    },
    reasoning: d(a.reasoning, b.reasoning),
    requests: d(a.requests, b.requests),
    premiumRequests: d(a.premiumRequests, b.premiumRequests),
  };
}

/** Follows the shutdowns of one file in order and says what each one adds. */
export class ShutdownLedger {
  /** What was counted so far, per model, and premium requests in all. */
  private counted = new Map<string, ModelUsage>();
  private countedPremium = 0;
  private shutdowns = 0;
  /** Output tokens of the assistant messages since the file began, and since the last shutdown. */
  private outputAll = 0;
  private outputSince = 0;

  noteOutput(tokens: unknown): void {
    this.outputAll += n(tokens);
    this.outputSince += n(tokens);
  }

  /** What this shutdown adds, per model, and the premium requests it adds in all. */
  add(data: ShutdownData): { models: ModelUsage[]; premiumRequests: number; cumulative: boolean } {
    const snapshot = Object.entries(data.modelMetrics ?? {})
      .filter((e): e is [string, ModelMetric] => !!e[1] && typeof e[1] === 'object')
      .map(([model, metric]) => usageOf(model, metric));
    const reported = snapshot.reduce((total, m) => total + m.usage.output, 0);
    const cumulative =
      this.shutdowns > 0 &&
      this.outputAll > this.outputSince &&
      Math.abs(reported - this.outputAll) < Math.abs(reported - this.outputSince);
    const models = snapshot
      .map((m) => (cumulative ? minus(m, this.counted.get(m.model)) : m))
      .filter((m) => m.requests > 0 || m.premiumRequests > 0 || Object.values(m.usage).some((v) => v > 0));
    for (const m of models) this.counted.set(m.model, sum(this.counted.get(m.model), m));
    const total = n(data.totalPremiumRequests);
    const premiumRequests = cumulative ? Math.max(0, total - this.countedPremium) : total;
    this.countedPremium += premiumRequests;
    this.shutdowns += 1;
    this.outputSince = 0;
    return { models, premiumRequests, cumulative };
  }
}

function sum(a: ModelUsage | undefined, b: ModelUsage): ModelUsage {
  if (!a) return b;
  return {
    model: b.model,
    usage: {
      input: a.usage.input + b.usage.input,
      output: a.usage.output + b.usage.output,
      cacheRead: a.usage.cacheRead + b.usage.cacheRead,
      cacheCreation: a.usage.cacheCreation + b.usage.cacheCreation,
    },
    reasoning: a.reasoning + b.reasoning,
    requests: a.requests + b.requests,
    premiumRequests: a.premiumRequests + b.premiumRequests,
  };
}
