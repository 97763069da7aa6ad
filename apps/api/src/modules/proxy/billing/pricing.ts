import type { ModelPricing } from '@switchyard/shared-dto';

export type { Metered } from '../call/usage';
import type { Metered } from '../call/usage';

/** The largest cost, in micro-units (about 9 billion currency units). */
export const MAX_COST_MICROS = Number.MAX_SAFE_INTEGER;

/** Per-token prices in micro-units (a price per million tokens in currency units is micro-units per token). */
export interface TokenPrices {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  output: number;
}

/** Every input token of a call, cached or not: what the long-context threshold is compared with. */
export function promptTokensOf(metered: Metered): number {
  return (
    (metered.inputTokens ?? 0) +
    (metered.cacheReadTokens ?? 0) +
    (metered.cacheWriteTokens ?? 0) +
    (metered.cacheWrite1hTokens ?? 0)
  );
}

/**
 * The per-token prices of a call whose prompt counts `promptTokens`. A cache price left out is the input price (a
 * one-hour write: the five-minute write price, else the input price). Above `tierAboveTokens`, input and output take
 * their `Above` prices, and every cache price scales with the input price (Anthropic, Gemini and OpenAI double all
 * four together).
 */
export function tokenPrices(pricing: ModelPricing, promptTokens: number): TokenPrices {
  const input = pricing.inputPerMTok ?? 0;
  const cacheWrite = pricing.cacheWritePerMTok ?? input;
  const base: TokenPrices = {
    input,
    cacheRead: pricing.cacheReadPerMTok ?? input,
    cacheWrite,
    cacheWrite1h: pricing.cacheWrite1hPerMTok ?? cacheWrite,
    output: pricing.outputPerMTok ?? 0,
  };
  if (pricing.tierAboveTokens === undefined || !(promptTokens > pricing.tierAboveTokens)) return base;
  const inputAbove = pricing.inputAbovePerMTok ?? input;
  const scale = input > 0 ? inputAbove / input : 1;
  return {
    input: inputAbove,
    cacheRead: base.cacheRead * scale,
    cacheWrite: base.cacheWrite * scale,
    cacheWrite1h: base.cacheWrite1h * scale,
    output: pricing.outputAbovePerMTok ?? base.output,
  };
}

/** The highest price an input token of such a call could be charged: what a reservation holds per input token. */
export function worstInputPrice(prices: TokenPrices): number {
  return Math.max(prices.input, prices.cacheRead, prices.cacheWrite, prices.cacheWrite1h);
}

/** The terms of the cost formula, in micro-units (fractions kept): Σ component × its price. */
export interface CostTerms {
  input: number;
  cache_read: number;
  cache_write: number;
  cache_write_1h: number;
  output: number;
  images: number;
  seconds: number;
  characters: number;
  request: number;
}

export function costTerms(pricing: ModelPricing, metered: Metered): CostTerms {
  const prices = tokenPrices(pricing, promptTokensOf(metered));
  return {
    input: (metered.inputTokens ?? 0) * prices.input,
    cache_read: (metered.cacheReadTokens ?? 0) * prices.cacheRead,
    cache_write: (metered.cacheWriteTokens ?? 0) * prices.cacheWrite,
    cache_write_1h: (metered.cacheWrite1hTokens ?? 0) * prices.cacheWrite1h,
    output: (metered.outputTokens ?? 0) * prices.output,
    images: (metered.images ?? 0) * (pricing.perImage ?? 0) * 1e6,
    seconds: (metered.seconds ?? 0) * (pricing.perSecond ?? 0) * 1e6,
    characters: (metered.characters ?? 0) * (pricing.perMChars ?? 0),
    request: (metered.requests ?? 0) * (pricing.perRequest ?? 0) * 1e6,
  };
}

/**
 * Cost in integer micro-units (1 currency unit = 1,000,000): the sum of the terms, a fraction of a micro-unit
 * rounded up once, at the end, so a call that used anything of a priced model is never free (docs/budgets.md).
 */
export function costMicros(pricing: ModelPricing, metered: Metered): number {
  const terms = costTerms(pricing, metered);
  return roundUp(
    terms.input +
      terms.cache_read +
      terms.cache_write +
      terms.cache_write_1h +
      terms.output +
      terms.images +
      terms.seconds +
      terms.characters +
      terms.request,
  );
}

/**
 * A sum of micro-units rounded up to a whole one. The tolerance keeps binary floating point (0.15 * 1000 =
 * 150.00000000000003) from rounding an exact price up. A request can ask for absurd amounts (n: 1e308, 1e999
 * seconds); its cost is then capped at the largest exact integer, which no budget covers (the call is refused),
 * instead of reaching the database as Infinity.
 */
export function roundUp(micros: number): number {
  return micros < MAX_COST_MICROS ? Math.max(0, Math.ceil(micros - Math.max(1e-6, micros * 1e-12))) : MAX_COST_MICROS;
}

/**
 * The answer's `usage.cost_details`: the formula's terms in currency units (to 10⁻¹² of a unit), the token terms
 * always, the others when they count. `usage.cost` is their sum rounded up to the micro-unit: what was debited (less
 * only when the account could not pay it all; docs/budgets.md).
 */
export function costDetails(pricing: ModelPricing, metered: Metered): Record<string, number> {
  const terms = costTerms(pricing, metered);
  const details: Record<string, number> = {};
  for (const [name, micros] of Object.entries(terms) as [keyof CostTerms, number][]) {
    if (micros === 0 && (name === 'images' || name === 'seconds' || name === 'characters' || name === 'request'))
      continue;
    details[name] = Number.isFinite(micros) ? Math.round(micros * 1e6) / 1e12 : micros;
  }
  return details;
}

/** Micro-units to currency units for JSON and headers (exact to the micro-unit). */
export function toUnits(micros: number): number {
  return micros / 1e6;
}
