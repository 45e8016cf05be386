import type { TokenUsage } from '../model/message.ts';
import { LONG_CONTEXT_SUFFIX } from '../model/session-accumulator.ts';
import table from './prices.json' with { type: 'json' };

/** One model's prices in USD per token, as LiteLLM names them (scripts/refresh-prices.ts keeps only these). */
export interface ModelPrice {
  input_cost_per_token: number;
  output_cost_per_token: number;
  cache_creation_input_token_cost?: number;
  cache_creation_input_token_cost_above_1hr?: number;
  cache_read_input_token_cost?: number;
  input_cost_per_token_above_200k_tokens?: number;
  output_cost_per_token_above_200k_tokens?: number;
  cache_creation_input_token_cost_above_200k_tokens?: number;
  cache_creation_input_token_cost_above_1hr_above_200k_tokens?: number;
  cache_read_input_token_cost_above_200k_tokens?: number;
}

export interface PriceTable {
  source: string;
  currency: string;
  asOf: string;
  packages: { package: string; version: string; published: string }[];
  models: Record<string, ModelPrice>;
}

export const PRICES: PriceTable = table as PriceTable;

/**
 * The base model id of a provider's id: Bedrock (`us.anthropic.claude-sonnet-4-5-20250929-v1:0`), Vertex
 * (`claude-sonnet-4-5@20250929`), Azure/OpenRouter-style prefixes (`azure/gpt-5`) and a context note
 * (`claude-sonnet-4-5[1m]`) come off.
 */
export function baseModel(id: string): string {
  let m = id.trim().toLowerCase();
  m = m.replace(/\[[^\]]*\]$/, '');
  m = m.slice(m.lastIndexOf('/') + 1);
  m = m.replace(/^(?:[a-z]{2,6}\.)?anthropic\./, '');
  m = m.replace(/-v\d+(?::\d+)?$/, '');
  m = m.replace(/@(\d{8})$/, '-$1');
  m = m.replace(/@.*$/, '');
  // Copilot CLI writes Claude versions with a dot (`claude-sonnet-4.5`).
  m = m.replace(/^(claude-[a-z]+-\d+)\.(\d+)/, '$1-$2');
  return m;
}

/** The price of a model id, by its base model, then without a date suffix; undefined when not in the table
 * (never guessed from a similar name). */
export function priceOf(id: string, prices: PriceTable = PRICES): { model: string; price: ModelPrice } | undefined {
  const base = baseModel(id);
  for (const candidate of [base, base.replace(/-\d{8}$/, '')]) {
    const price = prices.models[candidate];
    if (price) return { model: candidate, price };
  }
  return undefined;
}

/** Splits a `tokensByModel` key into the model and whether its requests were over the long-context threshold. */
export function splitModelKey(key: string): { model: string; long: boolean } {
  return key.endsWith(LONG_CONTEXT_SUFFIX)
    ? { model: key.slice(0, -LONG_CONTEXT_SUFFIX.length), long: true }
    : { model: key, long: false };
}

/**
 * API-equivalent cost in USD of these tokens at this price. Cache writes are 5-minute unless counted as
 * 1-hour (1.25× and 2× the input price where the table has no explicit figure); cache reads at the table's
 * cache-read price (Codex cached input included), else the input price; reasoning is already part of output.
 * `long`: the requests' prompts exceeded 200k tokens, so the model's long-context tier applies where it has one.
 */
export function priceTokens(usage: TokenUsage, price: ModelPrice, long = false): number {
  const pick = (base: number | undefined, above: number | undefined) => (long && above !== undefined ? above : base);
  const input = pick(price.input_cost_per_token, price.input_cost_per_token_above_200k_tokens)!;
  const output = pick(price.output_cost_per_token, price.output_cost_per_token_above_200k_tokens)!;
  const read = pick(price.cache_read_input_token_cost, price.cache_read_input_token_cost_above_200k_tokens) ?? input;
  const write5m =
    pick(price.cache_creation_input_token_cost, price.cache_creation_input_token_cost_above_200k_tokens) ??
    input * 1.25;
  const write1h =
    pick(
      price.cache_creation_input_token_cost_above_1hr,
      price.cache_creation_input_token_cost_above_1hr_above_200k_tokens,
    ) ?? input * 2;
  const oneHour = Math.min(usage.cacheCreation1h ?? 0, usage.cacheCreation);
  return (
    usage.input * input +
    usage.output * output +
    usage.cacheRead * read +
    (usage.cacheCreation - oneHour) * write5m +
    oneHour * write1h
  );
}
