import type { ModelMethod, ModelPricing, ModelType } from '@switchyard/shared-dto';

export const PROVIDER_TYPES = ['openai', 'anthropic', 'gemini', 'demo'] as const;
export type ProviderType = (typeof PROVIDER_TYPES)[number];

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

export interface CatalogModel {
  id: string;
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
  pricing: ModelPricing;
  ownedBy: string;
  /**
   * Models tried in order when this one's provider fails before anything reached the caller (unreachable,
   * timed out, 5xx, rate limited): the call is served and billed by the first that answers.
   */
  fallbacks: string[];
}

export interface Catalog {
  providers: Map<string, ProviderConfig>;
  models: Map<string, CatalogModel>;
  /** Where it came from: a file path, or 'demo' for the built-in catalog. */
  source: string;
  loadedAt: number;
}
