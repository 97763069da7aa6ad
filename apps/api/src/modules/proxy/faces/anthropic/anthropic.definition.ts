import { PROVIDER_PREFERENCES_SCHEMA } from '../../routing/preferences-schema';
import { type GatewayRoute, V1_PREFIXES } from '../../call/route';
import type { FaceDefinition } from '../face';
import { ANTHROPIC_ERRORS } from './anthropic-errors';
import { ANTHROPIC, ANTHROPIC_ROUTES } from './anthropic.routes';

/** Anthropic's Messages routes (docs/anthropic.md): Anthropic's bodies, headers and error shape. */
function openApi(route: GatewayRoute) {
  const counting = route.action === 'count_tokens';
  return {
    path: `/v1${route.template}`,
    method: 'post',
    operation: {
      operationId: `gateway_${route.name ?? route.action}`,
      summary: route.summary,
      description:
        'Anthropic’s Messages API (docs/anthropic.md): any chat model of the catalog, natively for models on an Anthropic provider, translated for the others. Credential in x-api-key or Authorization: Bearer; anthropic-version and anthropic-beta accepted. Also served under /apikey/v1 and /oauth2/v1. Errors in Anthropic’s shape {type: "error", error: {type, message}}.',
      tags: ['gateway'],
      security: [{ gateway: [] }, { anthropicApiKey: [] }],
      parameters: ['anthropic-version', 'anthropic-beta'].map((name) => ({
        name,
        in: 'header' as const,
        required: false,
        schema: { type: 'string' as const },
      })),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              type: 'object' as const,
              required: counting ? ['model', 'messages'] : ['model', 'max_tokens', 'messages'],
              properties: {
                model: { type: 'string' as const },
                ...(counting ? {} : { max_tokens: { type: 'integer' as const, minimum: 1 } }),
                messages: { type: 'array' as const, items: { type: 'object' as const } },
                system: { oneOf: [{ type: 'string' as const }, { type: 'array' as const }] },
                tools: { type: 'array' as const, items: { type: 'object' as const } },
                ...(counting ? {} : { stream: { type: 'boolean' as const }, provider: PROVIDER_PREFERENCES_SCHEMA }),
              },
            },
          },
        },
      },
      responses: {
        200: {
          description: counting
            ? 'The input tokens, {"input_tokens": N}: the provider’s count for Anthropic models, the gateway’s estimate for the others; free'
            : 'A Message, or its events (SSE) with stream: true; x-switchyard-call-id on every answer, x-switchyard-cost on JSON answers',
        },
        400: {
          description:
            'invalid_request_error (max_tokens missing or not a whole number from 1, a provider preference it cannot honour, …)',
        },
        401: { description: 'authentication_error (missing or invalid credential)' },
        403: {
          description:
            'permission_error: the balance (error.code budget_exhausted), a key’s spend limit or an app’s cap (error.code spend_limit_exceeded, with the same figures as on /v1), a model without a price',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/AnthropicRefusal' } } },
        },
        404: { description: 'not_found_error (unknown model)' },
        413: { description: 'request_too_large (body over 20 MB)' },
        429: { description: 'rate_limit_error' },
        502: { description: 'api_error (the provider failed)' },
        503: {
          description:
            'overloaded_error (the instance is shutting down, or no provider of the model is available now: their circuit breakers are open)',
        },
      },
    },
  };
}

/** Anthropic's Messages API under `/v1` and its aliases, with its errors in Anthropic's shape. */
export const ANTHROPIC_FACE: FaceDefinition = {
  name: ANTHROPIC,
  prefixes: V1_PREFIXES,
  routes: ANTHROPIC_ROUTES,
  errors: ANTHROPIC_ERRORS,
  openApi,
  securitySchemes: {
    anthropicApiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description: 'An API key (sy-…), as Anthropic’s SDKs send it: on the Messages routes only',
    },
  },
};
