import { MODEL_PRICING_FIELDS, type ModelMethod, type ModelPricing } from '@switchyard/shared-dto';
import {
  type CatalogModel,
  type Deployment,
  type ProviderConfig,
  ROUTING_STRATEGIES,
  type RoutingStrategy,
} from './catalog.types';
import type { CatalogPrice } from './price-catalog';
import { PROVIDER_KINDS } from './provider-kinds';

/**
 * A catalog model's deployments (docs/routing.md): `deployments: [{ provider, upstreamModel, weight, pricing, rpm,
 * tpm }]` and `routing`, or today's shorthand, `provider` + `upstreamModel` (one deployment). Read in two steps by
 * the catalog loader: which providers (before the model's other fields are checked), then their prices (after).
 */

/** Reports one problem: the field (`models[2].deployments[1].weight`) and what is wrong with it. */
type Problem = (field: string, text: string) => void;
type Lookup = (
  kind: ProviderConfig['type'],
  baseUrl: string | null,
  upstreamModel: string,
  at: Date,
) => CatalogPrice | null;

/** A deployment as written, checked, before its prices are resolved. */
export interface DeploymentEntry {
  /** Its field path, for problems: `models[0]` for the shorthand, `models[0].deployments[1]` otherwise. */
  at: string;
  provider: ProviderConfig;
  upstreamModel: string;
  weight: number;
  /** Its own `pricing` (none for the shorthand: the model's is the deployment's). */
  pricing: ModelPricing | null;
  rpm: number | null;
  tpm: number | null;
}

export interface ModelRoutes {
  routing: RoutingStrategy;
  entries: DeploymentEntry[];
}

const DEPLOYMENT_KEYS = new Set(['provider', 'upstreamModel', 'weight', 'pricing', 'rpm', 'tpm']);
const PRICING_KEYS: readonly (keyof ModelPricing)[] = MODEL_PRICING_FIELDS;
const MAX_DEPLOYMENTS = 64;
const MAX_WEIGHT = 1_000_000;

/**
 * The model's deployments and routing strategy, checked; undefined when a problem was reported. The shorthand's
 * provider problem reads exactly as it always has (`models[0].provider "q" is not a provider id; use one of …`).
 */
export function readDeployments(
  entry: Record<string, unknown>,
  at: string,
  modelId: string,
  providers: Map<string, ProviderConfig>,
  problem: Problem,
): ModelRoutes | undefined {
  const routing = (entry.routing ?? 'weighted') as RoutingStrategy;
  if (!ROUTING_STRATEGIES.includes(routing))
    return void problem(`${at}.routing`, `must be one of ${ROUTING_STRATEGIES.join(', ')} (default weighted)`);
  const known = () => [...providers.keys()].join(', ') || '(none valid)';
  if (entry.deployments === undefined) {
    const provider = providers.get(String(entry.provider ?? ''));
    if (!provider)
      return void problem(`${at}.provider`, `"${String(entry.provider)}" is not a provider id; use one of ${known()}`);
    const upstreamModel = String(entry.upstreamModel ?? modelId);
    return { routing, entries: [{ at, provider, upstreamModel, weight: 1, pricing: null, rpm: null, tpm: null }] };
  }
  if (entry.provider !== undefined || entry.upstreamModel !== undefined)
    return void problem(
      `${at}.deployments`,
      'cannot go with provider or upstreamModel on the model: give each deployment its provider and upstreamModel',
    );
  const list = entry.deployments;
  if (!Array.isArray(list) || !list.length || list.length > MAX_DEPLOYMENTS)
    return void problem(
      `${at}.deployments`,
      `must be a list of 1 to ${MAX_DEPLOYMENTS} deployments ({ provider, upstreamModel, weight, pricing, rpm, tpm })`,
    );
  const entries: DeploymentEntry[] = [];
  const seen = new Map<string, number>();
  for (const [index, item] of list.entries()) {
    const here = `${at}.deployments[${index}]`;
    if (!item || typeof item !== 'object' || Array.isArray(item))
      return void problem(here, 'must be a mapping such as { provider: openai, upstreamModel: gpt-4o, weight: 1 }');
    const raw = item as Record<string, unknown>;
    const unknown = Object.keys(raw).find((key) => !DEPLOYMENT_KEYS.has(key));
    if (unknown)
      return void problem(`${here}.${unknown}`, `is not a deployment field; use ${[...DEPLOYMENT_KEYS].join(', ')}`);
    const provider = providers.get(String(raw.provider ?? ''));
    if (!provider)
      return void problem(`${here}.provider`, `"${String(raw.provider)}" is not a provider id; use one of ${known()}`);
    const upstreamModel = raw.upstreamModel ?? modelId;
    if (typeof upstreamModel !== 'string' || !upstreamModel || upstreamModel.length > 256)
      return void problem(`${here}.upstreamModel`, "must be the provider's model id (1-256 characters)");
    const key = `${provider.id}/${upstreamModel}`;
    if (seen.has(key))
      return void problem(
        here,
        `repeats deployments[${seen.get(key)}] (${key}): list each provider and upstreamModel once`,
      );
    seen.set(key, index);
    const weight = raw.weight ?? 1;
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight < 0 || weight > MAX_WEIGHT)
      return void problem(`${here}.weight`, `must be a number from 0 (a standby) to ${MAX_WEIGHT}`);
    const rpm = perMinute(raw, 'rpm', here, problem);
    const tpm = perMinute(raw, 'tpm', here, problem);
    if (rpm === undefined || tpm === undefined) return;
    let pricing: ModelPricing | null = null;
    if (raw.pricing !== undefined) {
      pricing = checkPricing(raw.pricing, `${here}.pricing`, problem);
      if (!pricing) return;
    }
    entries.push({ at: here, provider, upstreamModel, weight, pricing, rpm, tpm });
  }
  if (!entries.some((deployment) => deployment.weight > 0))
    return void problem(`${at}.deployments`, 'needs a weight above 0 on at least one deployment');
  return { routing, entries };
}

function perMinute(
  raw: Record<string, unknown>,
  field: 'rpm' | 'tpm',
  at: string,
  problem: Problem,
): number | null | undefined {
  const value = raw[field];
  if (value === undefined || value === null) return null;
  if (Number.isInteger(value) && (value as number) >= 1) return value as number;
  problem(`${at}.${field}`, `must be a positive whole number of ${field === 'rpm' ? 'requests' : 'tokens'} per minute`);
  return undefined;
}

/** A `pricing` mapping checked field by field, as the model's own (docs/pricing.md); null when a problem was reported. */
export function checkPricing(value: unknown, at: string, problem: Problem): ModelPricing | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    problem(at, `must map pricing fields (${PRICING_KEYS.join(', ')}) to numbers`);
    return null;
  }
  for (const [key, price] of Object.entries(value)) {
    if (!PRICING_KEYS.includes(key as keyof ModelPricing)) {
      problem(`${at}.${key}`, `is not a pricing field; use ${PRICING_KEYS.join(', ')}`);
      return null;
    }
    if (key === 'tierAboveTokens' ? !Number.isInteger(price) || (price as number) < 1 : !isPrice(price)) {
      problem(
        `${at}.${key}`,
        key === 'tierAboveTokens'
          ? 'must be a positive whole number of prompt tokens'
          : 'must be a non-negative number (currency units)',
      );
      return null;
    }
  }
  return value;
}

function isPrice(value: unknown): boolean {
  return typeof value === 'number' && value >= 0 && value <= 1_000_000;
}

/**
 * Each deployment's effective prices: its own `pricing`, field by field over the model's, over the price catalog's
 * for the deployment's provider kind and upstream model (a `free` model takes none, and its deployments may set
 * none). Also checks what depends on the model's other fields (a translated provider serves chat only). Returns the
 * deployments and the earliest catalog price change among them, or undefined when a problem was reported.
 */
export function priceDeployments(
  routes: ModelRoutes,
  model: { at: string; pricing: ModelPricing; free: boolean; methods: ModelMethod[] },
  lookup: Lookup,
  now: Date,
  problem: Problem,
): { deployments: Deployment[]; changesAt: number | null } | undefined {
  const deployments: Deployment[] = [];
  let changesAt: number | null = null;
  for (const entry of routes.entries) {
    const { provider, upstreamModel } = entry;
    if (PROVIDER_KINDS[provider.type].chatOnly && model.methods.some((m) => m !== 'chat_completions'))
      return void problem(`${entry.at}.provider`, `${provider.id} (${provider.type}) serves chat_completions only`);
    if (model.free && entry.pricing && Object.keys(entry.pricing).length)
      return void problem(`${entry.at}.pricing`, 'cannot go with free: a free model costs nothing; remove one of them');
    const fromCatalog = model.free ? null : lookup(provider.type, provider.baseUrl, upstreamModel, now);
    const config: ModelPricing = { ...model.pricing, ...entry.pricing };
    const pricing: ModelPricing = { ...fromCatalog?.pricing, ...config };
    if (
      pricing.tierAboveTokens === undefined &&
      (pricing.inputAbovePerMTok !== undefined || pricing.outputAbovePerMTok !== undefined)
    )
      return void problem(
        `${entry.pricing ? entry.at : model.at}.pricing`,
        'has inputAbovePerMTok or outputAbovePerMTok without tierAboveTokens; add the threshold (prompt tokens) above which they apply',
      );
    const at = fromCatalog?.changesAt?.getTime();
    if (at !== undefined && (changesAt === null || at < changesAt)) changesAt = at;
    const fromConfig = PRICING_KEYS.filter((key) => key in config);
    deployments.push({
      key: `${provider.id}/${upstreamModel}`,
      provider,
      upstreamModel,
      weight: entry.weight,
      pricing,
      pricingOrigin: {
        source: fromCatalog ? 'catalog' : fromConfig.length ? 'config' : null,
        fromConfig,
        catalogModel: fromCatalog?.entry ?? null,
      },
      rpm: entry.rpm,
      tpm: entry.tpm,
    });
  }
  return { deployments, changesAt };
}

/**
 * The model as served by one of its deployments: its provider, upstream model and prices in place of the primary's,
 * everything else (the public id, methods, bounds, fallbacks) the model's. What a call that goes to this deployment
 * carries as its `model`, so adapters send it there and billing prices it at the deployment that answered.
 */
export function servedBy(model: CatalogModel, deployment: Deployment): CatalogModel {
  if (deployment === model.deployments[0]) return model;
  return {
    ...model,
    provider: deployment.provider,
    upstreamModel: deployment.upstreamModel,
    pricing: deployment.pricing,
    pricingOrigin: deployment.pricingOrigin,
  };
}
