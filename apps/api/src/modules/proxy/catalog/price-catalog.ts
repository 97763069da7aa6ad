import { calcPrice, findProvider, type ModelInfo, type ModelPrice } from '@pydantic/genai-prices';
import type { ModelPricing } from '@switchyard/shared-dto';
import type { ProviderType } from './catalog.types';
import { PROVIDER_KINDS } from './provider-kinds';

/**
 * The bundled price catalog (docs/pricing.md, "The price catalog"): @pydantic/genai-prices, its data inside the
 * package. It is read as installed and never updated at run time (its updatePrices is never called), so prices change
 * only when the package is upgraded, and nothing is fetched at start or per call.
 */

/** A model's prices from the catalog. */
export interface CatalogPrice {
  pricing: ModelPricing;
  /** The catalog entry matched, `provider/model`. */
  entry: string;
  /** When the catalog's price for it changes next (a dated change, a time-of-day tariff), or null. */
  changesAt: Date | null;
}

/**
 * The catalog's prices for a model, by provider kind (and, for an OpenAI-compatible server, its base URL) and
 * upstream model id, in force at `at`; null when the catalog has none. Only the prices the gateway meters are taken:
 * tokens (input, cache reads, five-minute and one-hour cache writes, output, the long-context tier), requests and
 * audio hours (as seconds).
 */
export function catalogPrice(
  kind: ProviderType,
  baseUrl: string | null,
  upstreamModel: string,
  at: Date = new Date(),
): CatalogPrice | null {
  const providerId =
    (PROVIDER_KINDS[kind].priceByUrl && baseUrl && findProvider({ providerApiUrl: baseUrl })?.id) ||
    PROVIDER_KINDS[kind].priceCatalog;
  if (!providerId) return null;
  let found: ReturnType<typeof calcPrice>;
  try {
    found = calcPrice({}, upstreamModel, { providerId, timestamp: at });
  } catch {
    return null; // an entry the library cannot price (a malformed constraint): treated as absent
  }
  if (!found) return null;
  const pricing = toPricing(found.model_price);
  if (!Object.keys(pricing).length) return null;
  return { pricing, entry: `${found.provider.id}/${found.model.id}`, changesAt: nextChange(found.model, at) };
}

type PriceValue = ModelPrice[string];

/** A catalog price's base and, when it is tiered, its first threshold and its highest tier's price (never below). */
function split(value: PriceValue): { base: number; above?: { start: number; price: number } } | null {
  if (typeof value === 'number') return { base: value };
  if (!value || typeof value !== 'object' || !Array.isArray(value.tiers)) return null;
  const tiers = [...value.tiers].sort((a, b) => a.start - b.start);
  if (!tiers.length) return { base: value.base };
  return { base: value.base, above: { start: tiers[0].start, price: Math.max(...tiers.map((tier) => tier.price)) } };
}

/** The catalog's price keys as Switchyard's pricing fields. */
export function toPricing(price: ModelPrice): ModelPricing {
  const pricing: ModelPricing = {};
  const starts: number[] = [];
  // A price per thousand or per hour, per unit: to 12 significant digits (0.36 / 3600 is 0.0001, not 0.0000999…).
  const per = (value: number, scale: number) => (scale === 1 ? value : Number((value * scale).toPrecision(12)));
  const take = (key: string, field: keyof ModelPricing, aboveField?: keyof ModelPricing, scale = 1) => {
    const value = split(price[key]);
    if (!value) return;
    pricing[field] = per(value.base, scale);
    if (value.above && aboveField) {
      pricing[aboveField] = per(value.above.price, scale);
      starts.push(value.above.start);
    } else if (value.above) starts.push(value.above.start);
  };
  take('input_mtok', 'inputPerMTok', 'inputAbovePerMTok');
  take('output_mtok', 'outputPerMTok', 'outputAbovePerMTok');
  // Above the threshold the cache prices scale with the input price (pricing.ts); the catalog's tiered cache
  // prices do exactly that (price-catalog.spec.ts checks every one).
  take('cache_read_mtok', 'cacheReadPerMTok');
  take('cache_write_mtok', 'cacheWritePerMTok');
  take('cache_write_1h_mtok', 'cacheWrite1hPerMTok');
  take('requests_kcount', 'perRequest', undefined, 1 / 1000);
  take('audio_hours', 'perSecond', undefined, 1 / 3600);
  if (starts.length) pricing.tierAboveTokens = Math.min(...starts);
  return pricing;
}

/** The next time after `at` that the model's catalog price may change: a dated change, or a time-of-day window edge. */
function nextChange(model: ModelInfo, at: Date): Date | null {
  if (!Array.isArray(model.prices)) return null;
  const times: number[] = [];
  for (const { constraint } of model.prices) {
    if (!constraint) continue;
    if (constraint.type === 'start_date') times.push(Date.parse(`${constraint.start_date}T00:00:00Z`));
    else if (constraint.type === 'time_of_date')
      for (const edge of [constraint.start_time, constraint.end_time]) {
        const ms = secondsOfDay(edge) * 1000;
        const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
        times.push(day + ms, day + 86_400_000 + ms);
      }
  }
  const next = times.filter((time) => time > at.getTime()).sort((a, b) => a - b)[0];
  return next === undefined ? null : new Date(next);
}

/** `HH:MM:SS[.fff](Z|±HH:MM)` as seconds after midnight UTC. */
function secondsOfDay(time: string): number {
  const match = /^(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/.exec(time);
  if (!match) return 0;
  const local = Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
  const offset = match[4] === 'Z' ? 0 : (match[5] === '+' ? 1 : -1) * (Number(match[6]) * 3600 + Number(match[7]) * 60);
  return (((local - offset) % 86_400) + 86_400) % 86_400;
}
