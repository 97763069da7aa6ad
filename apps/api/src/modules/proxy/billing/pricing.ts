import type { ModelPricing } from '@switchyard/shared-dto';

export interface Metered {
  promptTokens?: number;
  completionTokens?: number;
  images?: number;
  seconds?: number;
  characters?: number;
}

/** The largest cost, in micro-units (about 9 billion currency units). */
export const MAX_COST_MICROS = Number.MAX_SAFE_INTEGER;

/**
 * Cost in integer micro-units (1 currency unit = 1,000,000). A price per million tokens in currency units is
 * exactly micro-units per token, so token costs need no division. A fraction of a micro-unit is rounded up: a call
 * that used anything of a priced model is never free (docs/budgets.md).
 */
export function costMicros(pricing: ModelPricing, metered: Metered): number {
  const micros =
    (metered.promptTokens ?? 0) * (pricing.inputPerMTok ?? 0) +
    (metered.completionTokens ?? 0) * (pricing.outputPerMTok ?? 0) +
    (metered.images ?? 0) * (pricing.perImage ?? 0) * 1e6 +
    (metered.seconds ?? 0) * (pricing.perSecond ?? 0) * 1e6 +
    (metered.characters ?? 0) * (pricing.perMChars ?? 0);
  // The tolerance keeps binary floating point (0.15 * 1000 = 150.00000000000003) from rounding an exact price up.
  // A request can ask for absurd amounts (n: 1e308, 1e999 seconds); its cost is then capped at the largest exact
  // integer, which no budget covers (the call is refused), instead of reaching the database as Infinity.
  return micros < MAX_COST_MICROS ? Math.max(0, Math.ceil(micros - Math.max(1e-6, micros * 1e-12))) : MAX_COST_MICROS;
}

/** Micro-units to currency units for JSON and headers (exact to the micro-unit). */
export function toUnits(micros: number): number {
  return micros / 1e6;
}
