/** Cost of a model call from configured per-million-token prices (the usage ledger, docs/cli.md). */
import type { Usage } from '../common/messages.js';
import { roundCost } from '../common/messages.js';

export interface ModelPricing {
  input: number;
  output: number;
  cacheRead?: number | undefined;
  cacheWrite?: number | undefined;
}

export interface RawTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning: number;
}

/** Usage with its cost; cache reads default to the input price, cache writes to 1.25× input. */
export function priceUsage(t: RawTokens, pricing: ModelPricing | undefined): Usage {
  const cost = pricing
    ? (t.input * pricing.input +
        t.output * pricing.output +
        t.cacheRead * (pricing.cacheRead ?? pricing.input) +
        t.cacheWrite * (pricing.cacheWrite ?? pricing.input * 1.25)) /
      1_000_000
    : 0;
  return {
    input_tokens: t.input,
    output_tokens: t.output,
    cache_read_tokens: t.cacheRead,
    cache_write_tokens: t.cacheWrite,
    reasoning_tokens: t.reasoning,
    total_tokens: t.input + t.output + t.cacheRead + t.cacheWrite,
    cost_usd: roundCost(cost),
  };
}

/** The config parts pricing comes from (structural, so common/ need not import the config schema). */
export interface PricingSources {
  pricing: Record<string, ModelPricing>;
  providers: Partial<Record<string, { models?: Record<string, { pricing?: ModelPricing | undefined }> | undefined }>>;
}

/** Pricing for a call: the provider's per-model entry, else the global table (requested, then reported model). */
export function pricingFor(
  src: PricingSources,
  provider: string,
  model: string,
  reportedModel?: string,
): ModelPricing | undefined {
  return (
    src.providers[provider]?.models?.[model]?.pricing ??
    findPricing(src.pricing, model) ??
    (reportedModel && reportedModel !== model ? findPricing(src.pricing, reportedModel) : undefined)
  );
}

/** Find a model's pricing: exact name first, then the name without a `vendor/` prefix. */
export function findPricing(table: Record<string, ModelPricing>, model: string): ModelPricing | undefined {
  return table[model] ?? table[model.split('/').pop() ?? model];
}
