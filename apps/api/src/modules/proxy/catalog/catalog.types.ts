import type { ModelMethod, ModelPricing, ModelType } from '@switchyard/shared-dto';

import { PROVIDER_KINDS } from './provider-kinds';

/** The kinds of provider a models file may name (provider-kinds.ts). */
export type ProviderType = keyof typeof PROVIDER_KINDS;
export const PROVIDER_TYPES = Object.keys(PROVIDER_KINDS) as ProviderType[];

export interface ProviderConfig {
  id: string;
  type: ProviderType;
  /** Without a trailing slash. Unused by `demo`. */
  baseUrl: string | null;
  /** Never logged, never sent to callers. */
  apiKey: string | null;
  /** Extra headers sent upstream (e.g. OpenAI-Organization). */
  headers: Record<string, string>;
  timeoutMs: number;
}

/** How a model with several deployments spreads its calls (docs/routing.md). */
export const ROUTING_STRATEGIES = ['weighted', 'least-busy', 'latency', 'cheapest'] as const;
export type RoutingStrategy = (typeof ROUTING_STRATEGIES)[number];

/** One place a model is served: a provider, the model id there, its share of the calls, prices and limits. */
export interface Deployment {
  /** `provider/upstreamModel`: names its circuit breaker, its live stats and its metrics, on every instance. */
  key: string;
  provider: ProviderConfig;
  upstreamModel: string;
  /** Its share of the calls under `weighted` (0: a standby, tried only after the others). */
  weight: number;
  /** Its own prices, field by field over the model's, over the price catalog's for its provider and model. */
  pricing: ModelPricing;
  pricingOrigin: PricingOrigin;
  /** Requests and tokens per minute it may take (null: no limit); over either it is skipped while another is not. */
  rpm: number | null;
  tpm: number | null;
}

export interface CatalogModel {
  id: string;
  /** The primary (first) deployment's provider, upstream model, prices and their origin. */
  provider: ProviderConfig;
  upstreamModel: string;
  type: ModelType;
  methods: ModelMethod[];
  capabilities: string[];
  contextLength: number | null;
  maxOutputTokens: number | null;
  /**
   * The field a chat completion's output bound is written in when the caller gave none (the gateway always sends
   * one: docs/budgets.md): `max_tokens` (understood by every OpenAI-compatible server), or `max_completion_tokens`
   * (OpenAI's reasoning models refuse `max_tokens`).
   */
  maxTokensParam: 'max_tokens' | 'max_completion_tokens';
  /** The effective prices: the config's, field by field over the price catalog's (docs/pricing.md). */
  pricing: ModelPricing;
  /** Where the prices came from (GET /v1/models, `npm run admin -- prices`). */
  pricingOrigin: PricingOrigin;
  /** The config says the model costs nothing (`free: true`); without it, a model with no price is refused. */
  free: boolean;
  ownedBy: string;
  /**
   * Models tried in order when this one's provider fails before anything reached the caller (unreachable,
   * timed out, 5xx, rate limited): the call is served and billed by the first that answers.
   */
  fallbacks: string[];
  /** Paid provider-side features the operator enabled with a price and a bound (docs/models.example.yaml, `features`). */
  features: ModelFeatures;
  /**
   * Prices per image by quality, then size (`pricing.perImage` given as a table): a request names a listed variant
   * (or gets the first quality and size listed), and is reserved and billed at its price. Null: one flat
   * `pricing.perImage` for every image. `pricing.perImage` then holds the dearest variant's price.
   */
  imagePrices: ImagePrices | null;
  /** How calls are spread over the deployments (default `weighted`). */
  routing: RoutingStrategy;
  /** At least one; the first is the primary, the one `provider`, `upstreamModel` and `pricing` describe. */
  deployments: Deployment[];
}

/** quality → size → price per image, in currency units, in the order the catalog lists them. */
export type ImagePrices = Record<string, Record<string, number>>;

/**
 * What a model's provider may do on the caller's behalf at a cost the gateway prices and bounds (docs/pricing.md,
 * "Provider-side features"). Every feature is off unless its catalog entry turns it on; a request using a feature
 * that is off is refused before anything is reserved or forwarded (proxy/policy).
 */
export interface ModelFeatures {
  /**
   * Anthropic's `web_search` server tool on /v1/messages (models on an Anthropic provider): `perSearch` currency
   * units per search, and the most searches one call may ask for (`max_uses`, required, at most `maxUses`); the
   * call reserves perSearch × max_uses and is billed per search the provider reports.
   */
  webSearch: { perSearch: number; maxUses: number } | null;
  /**
   * Anthropic `document` blocks whose source is a URL (the provider fetches it): the call's input is then bounded
   * at the model's context length (which the catalog must give).
   */
  documentUrls: boolean;
}

export interface PricingOrigin {
  /** `catalog` when the price catalog gave any price, `config` when only the config did, null when neither. */
  source: 'config' | 'catalog' | null;
  /** The fields the config set (over the catalog's, when the source is `catalog`). */
  fromConfig: (keyof ModelPricing)[];
  /** The catalog entry matched, `provider/model`. */
  catalogModel: string | null;
}

export interface Catalog {
  providers: Map<string, ProviderConfig>;
  models: Map<string, CatalogModel>;
  /** Where it came from: a file path, or 'demo' for the built-in catalog. */
  source: string;
  loadedAt: number;
  /** When a catalog price of one of its models changes next (ms since epoch): the catalog is re-read then. */
  pricesChangeAt: number | null;
}
