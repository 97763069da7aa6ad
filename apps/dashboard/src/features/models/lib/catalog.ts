// Reading the live catalog (GET /v1/models). Everything shown comes from the entry's own fields; nothing is
// guessed from a model's id (docs/decisions.md#rules-for-clients).
import type { DeploymentStatus, ModelEntry, ModelEntryPricing, ModelMethod, ModelType } from '@switchyard/shared-dto';
import { queryString } from '../../../lib/query-string';

export interface ModelFilters {
  type: ModelType | '';
  method: ModelMethod | '';
  capability: string;
}

export const NO_FILTERS: ModelFilters = { type: '', method: '', capability: '' };

/** The query string the gateway filters by (docs/gateway.md, models list); empty filters are left out. */
export function modelsQuery(filters: ModelFilters): string {
  return queryString({
    type: filters.type || undefined,
    method: filters.method || undefined,
    capability: filters.capability || undefined,
  });
}

/** Every capability some model lists, sorted: the choices of the capability filter. */
export function capabilitiesOf(models: readonly ModelEntry[]): string[] {
  return [...new Set(models.flatMap((model) => model.capabilities ?? []))].sort();
}

/** Models whose id or owner contains the search text (case-insensitive). */
export function searchModels(models: readonly ModelEntry[], text: string): ModelEntry[] {
  const needle = text.trim().toLowerCase();
  if (!needle) return [...models];
  return models.filter(
    (model) => model.id.toLowerCase().includes(needle) || model.owned_by.toLowerCase().includes(needle),
  );
}

export const METHOD_LABELS: Record<ModelMethod, string> = {
  chat_completions: 'Chat completions',
  completions: 'Completions (legacy)',
  responses: 'Responses',
  embeddings: 'Embeddings',
  image_generation: 'Image generation',
  image_edit: 'Image edit',
  image_variation: 'Image variation',
  audio_speech: 'Speech',
  audio_transcription: 'Transcription',
  video_generation: 'Video generation',
};

export const TYPE_LABELS: Record<ModelType, string> = {
  text: 'Text',
  image: 'Image',
  audio: 'Audio',
  embedding: 'Embedding',
  video: 'Video',
};

/** "streaming" → "Streaming", "multi_image_edit" → "Multi image edit". */
export function capabilityLabel(capability: string): string {
  const words = capability.replace(/[_-]+/g, ' ').trim();
  return words ? words[0].toUpperCase() + words.slice(1) : capability;
}

const usd = (amount: number): string =>
  new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency: 'USD',
    minimumFractionDigits: 2,
    maximumFractionDigits: 6,
  }).format(amount);

/** The model's prices in words, one line per price it has; empty when the catalog lists none (docs/pricing.md). */
export function pricingLines(pricing: ModelEntryPricing | undefined): string[] {
  if (!pricing) return [];
  if (pricing.free) return ['Free'];
  const lines: string[] = [];
  const per = (value: number | undefined, what: string) => {
    if (value !== undefined) lines.push(`${usd(value)} ${what}`);
  };
  per(pricing.inputPerMTok, 'per 1M input tokens');
  per(pricing.outputPerMTok, 'per 1M output tokens');
  per(pricing.cacheReadPerMTok, 'per 1M cached input tokens');
  per(pricing.cacheWritePerMTok, 'per 1M tokens written to the cache (5 minutes)');
  per(pricing.cacheWrite1hPerMTok, 'per 1M tokens written to the cache (1 hour)');
  if (pricing.tierAboveTokens !== undefined) {
    const above = `for prompts above ${pricing.tierAboveTokens.toLocaleString('en-US')} tokens`;
    per(pricing.inputAbovePerMTok, `per 1M input tokens ${above}`);
    per(pricing.outputAbovePerMTok, `per 1M output tokens ${above}`);
  }
  per(pricing.perRequest, 'per request');
  per(pricing.perImage, 'per image');
  per(pricing.perSecond, 'per second');
  per(pricing.perMChars, 'per 1M characters');
  return lines;
}

/** "32,768 tokens", or null when the catalog does not say. */
export function tokensLabel(tokens: number | undefined): string | null {
  return typeof tokens === 'number' && Number.isFinite(tokens) ? `${tokens.toLocaleString('en-US')} tokens` : null;
}

/** The playground's tasks and the catalog filter of each (docs/decisions.md#rules-for-clients, "Models for a task"). */
export const PLAYGROUND_TASKS = {
  chat: { type: 'text', method: 'chat_completions' },
  image: { type: 'image', method: 'image_generation' },
  speech: { type: 'audio', method: 'audio_speech' },
  transcription: { type: 'audio', method: 'audio_transcription' },
  embeddings: { type: 'embedding', method: 'embeddings' },
  video: { type: 'video', method: 'video_generation' },
} as const satisfies Record<string, { type: ModelType; method: ModelMethod }>;
export type PlaygroundTask = keyof typeof PLAYGROUND_TASKS;

/** The models a task may use: the task's type (when the entry states one) and its method. */
export function modelsForTask(models: readonly ModelEntry[], task: PlaygroundTask): ModelEntry[] {
  const { type, method } = PLAYGROUND_TASKS[task];
  return models.filter(
    (model) => (model.type === undefined || model.type === type) && (model.methods ?? []).includes(method),
  );
}

/** The tasks a model can be tried with in the playground, in the playground's order. */
export function tasksOf(model: ModelEntry): PlaygroundTask[] {
  return (Object.keys(PLAYGROUND_TASKS) as PlaygroundTask[]).filter((task) => modelsForTask([model], task).length > 0);
}

const STATUS_WORDS: Record<DeploymentStatus, string> = {
  closed: 'healthy',
  open: 'cooling down',
  half_open: 'being retried',
  forced_open: 'switched off',
};

/**
 * The providers that serve the model (its deployments, docs/routing.md), one line each with its health: empty for a
 * model the catalog serves from one provider (nothing to choose between), or an entry without them.
 */
export function deploymentLines(model: ModelEntry): string[] {
  const deployments = model.deployments ?? [];
  if (deployments.length < 2) return [];
  return deployments.map(
    (d) => `${d.provider}: ${STATUS_WORDS[d.status] ?? d.status}${d.weight === 0 ? ' (standby)' : ''}`,
  );
}
