import { readFileSync } from 'node:fs';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import { parse as parseYaml } from 'yaml';
import {
  MODEL_METHODS,
  MODEL_PRICING_FIELDS,
  MODEL_TYPES,
  type ModelMethod,
  type ModelPricing,
  type ModelType,
} from '@switchyard/shared-dto';
import { isPriced } from './priced';
import { Catalog, CatalogModel, PROVIDER_TYPES, ProviderConfig, ProviderType } from './catalog.types';
import { dearestImagePrice, readFeatures, readImagePrices } from './catalog-features';
import { PROVIDER_KINDS } from './provider-kinds';
import { priceDeployments, readDeployments } from './deployments';
import { type CatalogPrice, catalogPrice } from './price-catalog';

/** A request's framing and connection headers: the gateway's to set, never a provider's. */
const GATEWAY_FRAMED = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);

/** The catalog file as written (docs/decisions.md#model-catalog), before validation. */
export interface RawCatalog {
  providers: Record<string, unknown>[];
  models: Record<string, unknown>[];
}

export class CatalogError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'CatalogError';
  }
}

/** Model ids appear in URL paths (GET /v1/models/{id}), so no slashes; clients must not parse them anyway. */
const MODEL_ID = /^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,127}$/;
const PROVIDER_ID = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const PRICING_KEYS: readonly (keyof ModelPricing)[] = MODEL_PRICING_FIELDS;
/** The price catalog's lookup (price-catalog.ts), replaceable in tests. */
export type PriceLookup = (
  kind: ProviderType,
  baseUrl: string | null,
  upstreamModel: string,
  at: Date,
) => CatalogPrice | null;
const DEFAULT_TIMEOUT_MS = 600_000;

/** Replaces `${VAR}` with the environment's value; an unset variable is a problem, not an empty string. */
function substitute(text: string, env: Record<string, string | undefined>, missing: Set<string>): string {
  return text.replace(/\$\{([A-Z_][A-Z0-9_]*)\}/g, (_, name: string) => {
    const value = env[name];
    if (value === undefined || value === '') missing.add(name);
    return value ?? '';
  });
}

export function readCatalogFile(
  path: string,
  env: Record<string, string | undefined> = process.env,
  lookup: PriceLookup = catalogPrice,
): Catalog {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CatalogError([
      `MODELS_CONFIG ${path}: cannot be read (${(error as NodeJS.ErrnoException).code}); point MODELS_CONFIG at a readable file`,
    ]);
  }
  const missing = new Set<string>();
  let raw: unknown;
  try {
    raw = /\.json$/i.test(path) ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new CatalogError([
      `MODELS_CONFIG ${path}: is not valid ${/\.json$/i.test(path) ? 'JSON' : 'YAML'} (${(error as Error).message.split('\n')[0]})`,
    ]);
  }
  // Substitute after parsing, value by value, so a secret containing quotes or colons cannot break the syntax.
  const substituted = deepMap(raw, (value) => substitute(value, env, missing));
  const catalog = buildCatalog(substituted, path, lookup);
  if (missing.size)
    throw new CatalogError(
      [...missing].map(
        (name) => `MODELS_CONFIG ${path}: \${${name}} is not set; export ${name} or remove the reference`,
      ),
    );
  return catalog;
}

function deepMap(value: unknown, map: (text: string) => string): unknown {
  if (typeof value === 'string') return map(value);
  if (Array.isArray(value)) return value.map((item) => deepMap(item, map));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, deepMap(item, map)]));
  return value;
}

/**
 * Validates a parsed catalog; every problem is one line naming the source, the field and the fix. A model's prices
 * are its config's `pricing`, field by field over the price catalog's for its provider kind and upstream model
 * (docs/pricing.md); a `free` model takes none.
 */
export function buildCatalog(
  raw: unknown,
  source: string,
  lookup: PriceLookup = catalogPrice,
  now: Date = new Date(),
): Catalog {
  let pricesChangeAt: number | null = null;
  const problems: string[] = [];
  const problem = (field: string, text: string) => problems.push(`MODELS_CONFIG ${source}: ${field} ${text}`);
  const root = (raw ?? {}) as Partial<RawCatalog>;
  if (!Array.isArray(root.providers) || root.providers.length === 0) problem('providers', 'must be a non-empty list');
  if (!Array.isArray(root.models)) problem('models', 'must be a list');
  if (problems.length) throw new CatalogError(problems);

  const providers = new Map<string, ProviderConfig>();
  root.providers!.forEach((entry, index) => {
    const at = `providers[${index}]`;
    const id = String(entry?.id ?? '');
    if (!PROVIDER_ID.test(id)) return problem(`${at}.id`, `"${id}" must be lowercase letters, digits, "-" or "_"`);
    if (providers.has(id)) return problem(`${at}.id`, `"${id}" is listed twice`);
    const type = entry.type as ProviderType;
    if (!PROVIDER_TYPES.includes(type))
      return problem(
        `${at}.type`,
        `"${String(entry.type)}" is not a provider type; use one of ${PROVIDER_TYPES.join(', ')}`,
      );
    const kind = PROVIDER_KINDS[type];
    let baseUrl: string | null = null;
    if (kind.exampleUrl) {
      try {
        const url = new URL(String(entry.baseUrl ?? ''));
        if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
        baseUrl = url.toString().replace(/\/+$/, '');
      } catch {
        return problem(`${at}.baseUrl`, `must be an http(s) URL such as ${kind.exampleUrl}`);
      }
    }
    const apiKey =
      entry.apiKey === undefined || entry.apiKey === null || entry.apiKey === '' ? null : String(entry.apiKey);
    if (!apiKey && kind.needsKey)
      return problem(
        `${at}.apiKey`,
        `is required for a ${type} provider; set apiKey: \${${id.toUpperCase().replace(/-/g, '_')}_API_KEY}`,
      );
    const given = (entry.headers ?? {}) as Record<string, unknown>;
    if (typeof given !== 'object' || Array.isArray(given) || Object.values(given).some((v) => typeof v !== 'string'))
      return problem(`${at}.headers`, 'must map header names to strings');
    // Lower-cased once here, so the gateway's own headers (authorization, content-type…) replace a provider's by name.
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(given as Record<string, string>)) {
      const lower = name.toLowerCase();
      if (!isValidHeader(name, value)) return problem(`${at}.headers.${name}`, 'is not a valid HTTP header');
      if (GATEWAY_FRAMED.has(lower)) return problem(`${at}.headers.${name}`, 'is set by the gateway for each request');
      headers[lower] = value;
    }
    const timeoutMs = entry.timeoutMs === undefined ? DEFAULT_TIMEOUT_MS : Number(entry.timeoutMs);
    if (!Number.isInteger(timeoutMs) || timeoutMs < 1000 || timeoutMs > 3_600_000)
      return problem(`${at}.timeoutMs`, 'must be a whole number of milliseconds from 1000 to 3600000');
    providers.set(id, { id, type, baseUrl, apiKey, headers, timeoutMs });
  });

  const models = new Map<string, CatalogModel>();
  root.models!.forEach((entry, index) => {
    const at = `models[${index}]`;
    const id = String(entry?.id ?? '');
    if (!MODEL_ID.test(id))
      return problem(`${at}.id`, `"${id}" must be 1-128 letters, digits or . _ : @ + - (no slashes)`);
    if (models.has(id)) return problem(`${at}.id`, `"${id}" is listed twice`);
    const routes = readDeployments(entry, at, id, providers, problem);
    if (!routes) return;
    const provider = routes.entries[0].provider;
    const type = entry.type as ModelType;
    if (!MODEL_TYPES.includes(type)) return problem(`${at}.type`, `must be one of ${MODEL_TYPES.join(', ')}`);
    const methods = entry.methods as ModelMethod[];
    if (!Array.isArray(methods) || !methods.length || methods.some((m) => !MODEL_METHODS.includes(m)))
      return problem(`${at}.methods`, `must be a non-empty list of ${MODEL_METHODS.join(', ')}`);
    if (PROVIDER_KINDS[provider.type].chatOnly && methods.some((m) => m !== 'chat_completions'))
      return problem(`${at}.methods`, `a ${provider.type} model serves chat_completions only`);
    const capabilities = (entry.capabilities ?? []) as string[];
    if (!Array.isArray(capabilities) || capabilities.some((c) => typeof c !== 'string'))
      return problem(`${at}.capabilities`, 'must be a list of words');
    const given = (entry.pricing ?? {}) as Record<string, unknown>;
    if (typeof given !== 'object' || Array.isArray(given))
      return problem(`${at}.pricing`, `must map pricing fields (${PRICING_KEYS.join(', ')}) to numbers`);
    // perImage may be a table by quality and size (catalog-features.ts): the flat field then holds its dearest price.
    const imagePrices = readImagePrices(given.perImage, at, problem);
    if (imagePrices === undefined) return;
    const pricing = imagePrices ? { ...given, perImage: dearestImagePrice(imagePrices) } : given;
    for (const [key, value] of Object.entries(pricing)) {
      if (!PRICING_KEYS.includes(key as keyof ModelPricing))
        return problem(`${at}.pricing.${key}`, `is not a pricing field; use ${PRICING_KEYS.join(', ')}`);
      if (key === 'tierAboveTokens') {
        if (!Number.isInteger(value) || (value as number) < 1)
          return problem(`${at}.pricing.${key}`, 'must be a positive whole number of prompt tokens');
      } else if (typeof value !== 'number' || !(value >= 0) || value > 1_000_000)
        return problem(`${at}.pricing.${key}`, 'must be a non-negative number (currency units)');
    }
    const free = entry.free ?? false;
    if (typeof free !== 'boolean') return problem(`${at}.free`, 'must be true or false');
    if (free && Object.keys(pricing).length)
      return problem(`${at}.free`, 'cannot go with pricing: a free model costs nothing; remove one of them');
    const positive = (field: string): number | null | undefined => {
      const value = entry[field];
      if (value === undefined || value === null) return null;
      if (!Number.isInteger(value) || (value as number) < 1) {
        problem(`${at}.${field}`, 'must be a positive whole number');
        return undefined;
      }
      return value as number;
    };
    const fallbacks = entry.fallbacks ?? [];
    if (!Array.isArray(fallbacks) || fallbacks.some((f) => typeof f !== 'string' || f === id))
      return problem(
        `${at}.fallbacks`,
        "must be a list of other model ids, tried in order when this model's provider fails",
      );
    const contextLength = positive('contextLength');
    const maxOutputTokens = positive('maxOutputTokens');
    if (contextLength === undefined || maxOutputTokens === undefined) return;
    const features = readFeatures(entry.features, at, provider.type, contextLength, problem);
    if (!features) return;
    const maxTokensParam = entry.maxTokensParam ?? 'max_tokens';
    if (maxTokensParam !== 'max_tokens' && maxTokensParam !== 'max_completion_tokens')
      return problem(
        `${at}.maxTokensParam`,
        "must be max_tokens or max_completion_tokens (the field a chat completion's output limit is sent in)",
      );
    const priced = priceDeployments(routes, { at, pricing, free, methods }, lookup, now, problem);
    if (!priced) return;
    if (priced.changesAt !== null && (pricesChangeAt === null || priced.changesAt < pricesChangeAt))
      pricesChangeAt = priced.changesAt;
    const primary = priced.deployments[0];
    models.set(id, {
      id,
      provider,
      upstreamModel: primary.upstreamModel,
      type,
      methods: [...new Set(methods)],
      capabilities,
      contextLength,
      maxOutputTokens,
      maxTokensParam,
      pricing: primary.pricing,
      pricingOrigin: primary.pricingOrigin,
      free,
      ownedBy: String(entry.ownedBy ?? PROVIDER_KINDS[provider.type].ownedBy ?? provider.id),
      fallbacks: [...new Set(fallbacks as string[])],
      features,
      imagePrices,
      routing: routes.routing,
      deployments: priced.deployments,
    });
  });
  for (const [id, model] of models)
    for (const fallback of model.fallbacks)
      if (!models.has(fallback)) problem(`models (${id}).fallbacks`, `"${fallback}" is not a model id in this catalog`);
  if (problems.length) throw new CatalogError(problems);
  return { providers, models, source, loadedAt: Math.floor(Date.now() / 1000), pricesChangeAt };
}

/** node's own checks, the ones a request with this header would fail at send time. */
function isValidHeader(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

/** The methods of a model that it would refuse for want of a price (none for a free model; docs/pricing.md). */
export function unpricedMethods(model: CatalogModel): ModelMethod[] {
  return model.free ? [] : model.methods.filter((method) => !isPriced(method, model));
}
