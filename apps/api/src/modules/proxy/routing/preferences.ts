import type { CatalogModel, Deployment } from '../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { type Candidate, referenceCost } from './balancer';
import type { DeploymentLoad } from './deployment-stats';

/**
 * A caller's provider preferences (docs/routing.md, "Caller preferences"): the `provider` object of a request body,
 * in OpenRouter's shape. Provider names are the catalog's provider ids. Checked once per call before anything is
 * reserved: a wrong type, an unknown provider or an impossible combination is a 400 naming the field.
 */
export interface ProviderPreferences {
  /** Providers tried first, in this order; the model's other deployments follow unless allow_fallbacks is false. */
  order: string[] | null;
  /** Only these providers. */
  only: string[] | null;
  /** Never these providers. */
  ignore: string[] | null;
  /** Try the deployments by price (cheapest first), latency (fastest first) or throughput (highest first). */
  sort: 'price' | 'latency' | 'throughput' | null;
  /** false: only the providers of `order` (without `order`: only the first candidate); no other deployment. */
  allowFallbacks: boolean;
  maxPrice: MaxPrice | null;
}

/** Price ceilings in currency units, as the catalog's: per million prompt and completion tokens, per request, per image. */
export interface MaxPrice {
  prompt?: number;
  completion?: number;
  request?: number;
  image?: number;
}

export const NO_PREFERENCES: ProviderPreferences = Object.freeze({
  order: null,
  only: null,
  ignore: null,
  sort: null,
  allowFallbacks: true,
  maxPrice: null,
});

const FIELDS = ['order', 'only', 'ignore', 'sort', 'allow_fallbacks', 'max_price'];
const SORTS = ['price', 'latency', 'throughput'] as const;
const MAX_PRICE_FIELDS = ['prompt', 'completion', 'request', 'image'] as const;
const MAX_LIST = 64;

function invalid(param: string, message: string): GatewayException {
  return new GatewayException(GatewayErrorCode.INVALID_REQUEST, `${param} ${message}`, { param });
}

/**
 * Reads and checks `provider` against the catalog's provider ids and the model's deployments. `value` undefined or
 * null: no preferences. Throws GatewayException (400 invalid_request, `param` the field: `provider.only[1]`).
 */
export function readPreferences(
  value: unknown,
  model: CatalogModel,
  providerIds: Iterable<string>,
): ProviderPreferences {
  if (value === undefined || value === null) return NO_PREFERENCES;
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalid('provider', `must be an object such as {"order": ["…"], "allow_fallbacks": true}`);
  const raw = value as Record<string, unknown>;
  const known = new Set(providerIds);
  const served = new Set(model.deployments.map((d) => d.provider.id));
  const servedList = [...served].join(', ');
  for (const key of Object.keys(raw))
    if (!FIELDS.includes(key))
      throw invalid(`provider.${key}`, `is not supported by this gateway; use ${FIELDS.join(', ')}`);
  const list = (field: 'order' | 'only' | 'ignore'): string[] | null => {
    const items = raw[field];
    if (items === undefined || items === null) return null;
    if (!Array.isArray(items) || items.length > MAX_LIST)
      throw invalid(`provider.${field}`, `must be a list of at most ${MAX_LIST} provider names`);
    items.forEach((item, index) => {
      if (typeof item !== 'string') throw invalid(`provider.${field}[${index}]`, 'must be a provider name (a string)');
      if (!known.has(item))
        throw invalid(
          `provider.${field}[${index}]`,
          `"${item.slice(0, 100)}" is not a provider of this gateway; ${model.id} is served by ${servedList}`,
        );
    });
    return [...new Set(items as string[])];
  };
  const order = list('order');
  const only = list('only');
  const ignore = list('ignore');
  const sort = raw.sort ?? null;
  if (sort !== null && !SORTS.includes(sort as (typeof SORTS)[number]))
    throw invalid('provider.sort', `must be one of ${SORTS.join(', ')}`);
  const allowFallbacks = raw.allow_fallbacks ?? true;
  if (typeof allowFallbacks !== 'boolean') throw invalid('provider.allow_fallbacks', 'must be true or false');
  const maxPrice = readMaxPrice(raw.max_price);

  // Impossible combinations: a list that leaves no deployment of this model, or one that contradicts another.
  if (only && !only.some((id) => served.has(id)))
    throw invalid('provider.only', `names none of the providers of ${model.id} (${servedList})`);
  for (const [index, id] of (order ?? []).entries()) {
    if (ignore?.includes(id)) throw invalid(`provider.order[${index}]`, `"${id}" is also in provider.ignore`);
    if (only && !only.includes(id)) throw invalid(`provider.order[${index}]`, `"${id}" is not in provider.only`);
  }
  let allowed = model.deployments.filter(
    (d) => (!only || only.includes(d.provider.id)) && !ignore?.includes(d.provider.id),
  );
  if (!allowed.length)
    throw invalid(
      'provider.ignore',
      `leaves no provider of ${model.id} (${servedList})${only ? ' in provider.only' : ''}`,
    );
  if (order && !allowFallbacks) {
    allowed = allowed.filter((d) => order.includes(d.provider.id));
    if (!allowed.length)
      throw invalid(
        'provider.order',
        `names none of the providers of ${model.id} (${servedList}), and allow_fallbacks is false`,
      );
  }
  if (maxPrice && !allowed.some((d) => model.free || withinMaxPrice(d, maxPrice)))
    throw invalid(
      'provider.max_price',
      `is below the prices of every provider of ${model.id} that the preferences allow: GET /v1/models lists them`,
    );
  return { order, only, ignore, sort: sort as ProviderPreferences['sort'], allowFallbacks, maxPrice };
}

function readMaxPrice(value: unknown): MaxPrice | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || Array.isArray(value))
    throw invalid('provider.max_price', `must be an object of ${MAX_PRICE_FIELDS.join(', ')} ceilings`);
  const maxPrice: MaxPrice = {};
  for (const [key, price] of Object.entries(value as Record<string, unknown>)) {
    if (!(MAX_PRICE_FIELDS as readonly string[]).includes(key))
      throw invalid(
        `provider.max_price.${key}`,
        `is not supported by this gateway; use ${MAX_PRICE_FIELDS.join(', ')}`,
      );
    // OpenRouter's SDKs send these as strings ("1.5"); plain numbers are as good.
    const number = typeof price === 'string' && /^\d+(\.\d+)?$/.test(price.trim()) ? Number(price) : price;
    if (typeof number !== 'number' || !Number.isFinite(number) || number < 0)
      throw invalid(`provider.max_price.${key}`, 'must be a non-negative number (currency units)');
    maxPrice[key as keyof MaxPrice] = number;
  }
  return maxPrice;
}

/**
 * Whether a deployment's prices are within the ceilings: `prompt` against its input price per million tokens (and
 * its long-context one), `completion` against its output prices, `request` against perRequest, `image` against
 * perImage. A price it does not charge is 0.
 */
export function withinMaxPrice(deployment: Deployment, maxPrice: MaxPrice): boolean {
  const p = deployment.pricing;
  const under = (ceiling: number | undefined, ...prices: (number | undefined)[]) =>
    ceiling === undefined || prices.every((price) => (price ?? 0) <= ceiling);
  return (
    under(maxPrice.prompt, p.inputPerMTok, p.inputAbovePerMTok) &&
    under(maxPrice.completion, p.outputPerMTok, p.outputAbovePerMTok) &&
    under(maxPrice.request, p.perRequest) &&
    under(maxPrice.image, p.perImage)
  );
}

export interface ApplyOptions {
  /** The deployment's live load (for `sort: latency` and `throughput`). */
  load: (deployment: Deployment) => DeploymentLoad;
  /** What this call costs at a deployment (for `sort: price`); default: referenceCost of its pricing. */
  cost?: (deployment: Deployment) => number;
  free?: boolean;
}

/**
 * The balancer's candidates under the preferences: only/ignore and max_price filter, `sort` re-orders (stable: ties
 * keep the balancer's order), `order` puts its providers first in its order, and allow_fallbacks false keeps only
 * those (without `order`: only the first candidate). Pure; the order of a probe candidate is kept like any other.
 */
export function applyPreferences(
  candidates: Candidate[],
  preferences: ProviderPreferences,
  options: ApplyOptions,
): Candidate[] {
  const { only, ignore, order, sort, maxPrice } = preferences;
  let list = candidates.filter(
    ({ deployment: d }) =>
      (!only || only.includes(d.provider.id)) &&
      !ignore?.includes(d.provider.id) &&
      (!maxPrice || options.free || withinMaxPrice(d, maxPrice)),
  );
  if (sort) {
    const cost = options.cost ?? ((d: Deployment) => referenceCost(d.pricing));
    const measure = (d: Deployment): number => {
      const load = options.load(d);
      if (sort === 'price') return cost(d);
      if (sort === 'latency') return load.ttfbMs ?? 0;
      return -(load.tokensPerSecond ?? Number.MAX_VALUE);
    };
    list = list
      .map((candidate) => ({ candidate, value: measure(candidate.deployment) }))
      .sort((a, b) => a.value - b.value)
      .map(({ candidate }) => candidate);
  }
  if (order) {
    const rank = (c: Candidate) => {
      const at = order.indexOf(c.deployment.provider.id);
      return at < 0 ? order.length : at;
    };
    list = list
      .map((candidate, index) => ({ candidate, index }))
      .sort((a, b) => rank(a.candidate) - rank(b.candidate) || a.index - b.index)
      .map(({ candidate }) => candidate);
    if (!preferences.allowFallbacks) list = list.filter((c) => order.includes(c.deployment.provider.id));
  } else if (!preferences.allowFallbacks) list = list.slice(0, 1);
  return list;
}

/**
 * The reservation rule (docs/routing.md, "Prices"): a call is reserved at the most expensive deployment it may use,
 * and billed at the one that answered. Given the candidates the call may try and what the call would cost at worst at
 * each (its estimate), the candidate to reserve at; null for no candidates.
 */
export function reservationDeployment(
  candidates: Candidate[],
  worstMicros: (deployment: Deployment) => number,
): Deployment | null {
  let most: { deployment: Deployment; micros: number } | null = null;
  for (const { deployment } of candidates) {
    const micros = worstMicros(deployment);
    if (!most || micros > most.micros) most = { deployment, micros };
  }
  return most?.deployment ?? null;
}
