/** The model catalog (GET /v1/models): what each model is, what it can be called for, and its prices. */

export const MODEL_TYPES = ['text', 'image', 'audio', 'embedding', 'video'] as const;
export type ModelType = (typeof MODEL_TYPES)[number];

export const MODEL_METHODS = [
  'chat_completions',
  'completions',
  'responses',
  'embeddings',
  'image_generation',
  'image_edit',
  'image_variation',
  'audio_speech',
  'audio_transcription',
  'video_generation',
] as const;
export type ModelMethod = (typeof MODEL_METHODS)[number];

/**
 * A model's prices in currency units (docs/pricing.md): per million tokens unless named otherwise. A cache price left
 * out is the input price (cacheWrite1hPerMTok: the five-minute write price, else the input price). Above
 * `tierAboveTokens` of prompt (every input token, cached or not), the input and output are priced at their `Above`
 * prices, and the cache prices scale with the input price.
 */
export interface ModelPricing {
  inputPerMTok?: number;
  outputPerMTok?: number;
  /** Input read from the provider's prompt cache. */
  cacheReadPerMTok?: number;
  /** Input written to the prompt cache for five minutes (Anthropic; OpenAI-compatible upstreams that report it). */
  cacheWritePerMTok?: number;
  /** Input written to the prompt cache for one hour (Anthropic). */
  cacheWrite1hPerMTok?: number;
  /** The long-context threshold: a call whose prompt is above this many tokens is priced at the `Above` prices. */
  tierAboveTokens?: number;
  inputAbovePerMTok?: number;
  outputAbovePerMTok?: number;
  /** Per call served, whatever it used. */
  perRequest?: number;
  perImage?: number;
  perSecond?: number;
  perMChars?: number;
}

/** The pricing fields, in the order they are shown. */
export const MODEL_PRICING_FIELDS = [
  'inputPerMTok',
  'outputPerMTok',
  'cacheReadPerMTok',
  'cacheWritePerMTok',
  'cacheWrite1hPerMTok',
  'tierAboveTokens',
  'inputAbovePerMTok',
  'outputAbovePerMTok',
  'perRequest',
  'perImage',
  'perSecond',
  'perMChars',
] as const satisfies readonly (keyof ModelPricing)[];

/**
 * A model's effective prices in GET /v1/models: `source` says where they came from, `config` (MODELS_CONFIG) or
 * `catalog` (the bundled price catalog, when it gave any of them); `fromConfig` lists the fields the config set
 * over the catalog's, and `catalogModel` the catalog entry matched. `free`: the config says the model costs
 * nothing. A model with neither prices nor `free` has no `source`, and the gateway refuses its calls.
 */
export interface ModelEntryPricing extends ModelPricing {
  source?: 'config' | 'catalog';
  fromConfig?: (keyof ModelPricing)[];
  catalogModel?: string;
  free?: boolean;
}

export interface ModelEntry {
  id: string;
  object: 'model';
  owned_by: string;
  created?: number;
  type?: ModelType;
  methods?: ModelMethod[];
  capabilities?: string[];
  context_length?: number;
  max_output_tokens?: number;
  pricing?: ModelEntryPricing;
  /** How calls are spread over the deployments (docs/routing.md): weighted, least-busy, latency or cheapest. */
  routing?: 'weighted' | 'least-busy' | 'latency' | 'cheapest';
  /** The deployments that serve the model, the primary first, with their health (never a URL or key). */
  deployments?: ModelDeploymentEntry[];
}

/** A deployment's circuit breaker: closed (takes calls), open (cooling down), half_open (one probe), forced_open. */
export type DeploymentStatus = 'closed' | 'open' | 'half_open' | 'forced_open';

export interface ModelDeploymentEntry {
  /** The catalog's provider id (what a request's `provider.order` / `only` / `ignore` names). */
  provider: string;
  status: DeploymentStatus;
  /** Its share under `weighted`; 0: a standby. */
  weight: number;
}

export interface ModelListResponse {
  object: 'list';
  data: ModelEntry[];
}
