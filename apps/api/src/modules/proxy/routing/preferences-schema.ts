/**
 * The `provider` preferences of a request body in the OpenAPI document (docs/routing.md, "Caller preferences"): the
 * fields readPreferences takes; any other is a 400.
 */
const names = { type: 'array' as const, items: { type: 'string' as const }, maxItems: 64 };
const price = { oneOf: [{ type: 'number' as const, minimum: 0 }, { type: 'string' as const }] };

export const PROVIDER_PREFERENCES_SCHEMA = {
  type: 'object' as const,
  description:
    'OpenRouter’s provider preferences over the model’s deployments (provider names are the catalog’s provider ids); never forwarded. An unknown field or provider, a wrong type or an impossible combination is a 400 naming the field (param).',
  additionalProperties: false,
  properties: {
    order: { ...names, description: 'Providers tried first, in this order' },
    only: { ...names, description: 'Only these providers' },
    ignore: { ...names, description: 'Never these providers' },
    sort: { type: 'string' as const, enum: ['price', 'latency', 'throughput'] },
    allow_fallbacks: {
      type: 'boolean' as const,
      description: 'false: only the providers of order (or the first candidate), and no fallback model',
    },
    max_price: {
      type: 'object' as const,
      additionalProperties: false,
      description: 'Ceilings in currency units: prompt and completion per million tokens, request, image',
      properties: { prompt: price, completion: price, request: price, image: price },
    },
  },
};
