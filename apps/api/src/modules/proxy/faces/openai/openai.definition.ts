import { type GatewayRoute, V1_PREFIXES } from '../../call/route';
import { PROVIDER_PREFERENCES_SCHEMA } from '../../routing/preferences-schema';
import type { FaceDefinition } from '../face';

/** The routes whose body may carry `provider` preferences (docs/routing.md). */
const PREFERENCE_ACTIONS: string[] = ['chat_completions', 'completions', 'responses'];
import { OPENAI, OPENAI_ROUTES } from './openai.routes';

/** The OpenAPI operation of an OpenAI route: bodies are the OpenAI API's (their schemas are OpenAI's own). */
function openApi(route: GatewayRoute) {
  const parameters = route.template.includes('{id}')
    ? [{ name: 'id', in: 'path' as const, required: true, schema: { type: 'string' as const } }]
    : [];
  const requestBody =
    route.body === 'json'
      ? {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object' as const,
                required: ['model'],
                properties: {
                  model: { type: 'string' as const },
                  stream: { type: 'boolean' as const },
                  ...(PREFERENCE_ACTIONS.includes(route.action) ? { provider: PROVIDER_PREFERENCES_SCHEMA } : {}),
                },
              },
            },
          },
        }
      : route.body === 'multipart'
        ? {
            required: true,
            content: {
              'multipart/form-data': {
                schema: {
                  type: 'object' as const,
                  required: ['model'],
                  properties: { model: { type: 'string' as const } },
                },
              },
            },
          }
        : undefined;
  return {
    path: `/v1${route.template}`,
    method: route.method.toLowerCase(),
    operation: {
      operationId: `gateway_${route.action}`,
      summary: route.summary,
      description:
        'OpenAI-compatible. Also served under /apikey/v1 (API keys only), /oauth2/v1 (OAuth tokens only) and /dashboard/v1 (the dashboard’s session cookie only, billed to the user’s key named Dashboard). Errors in OpenAI’s shape {error: {message, type, code}}.',
      tags: ['gateway'],
      security: [{ gateway: [] }],
      parameters,
      ...(requestBody ? { requestBody } : {}),
      responses: {
        200: {
          description:
            'The OpenAI-format answer; every answer carries x-switchyard-call-id (the call’s own id, named by its ledger debit), JSON answers x-switchyard-cost (what was debited)',
        },
        401: { description: 'missing_credentials, invalid_token' },
        403: {
          description:
            'invalid_api_key, endpoint_not_allowed, model_not_priced; budget_exhausted (the account’s balance); spend_limit_exceeded (a key’s spend limit or an app’s cap: which one, and its figures)',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/GatewayRefusal' } } },
        },
        400: { description: 'invalid_request (param names the field: provider.only[0], …)' },
        404: { description: 'model_not_found' },
        429: { description: 'upstream_rate_limited (every provider of the model rate limiting; Retry-After)' },
        502: { description: 'upstream_error' },
        503: {
          description:
            'upstream_error: no provider of the model is available now (their circuit breakers open; Retry-After)',
        },
        504: { description: 'upstream_timeout' },
      },
    },
  };
}

/** OpenAI's API under `/v1` and its aliases; its errors are the gateway's own shape (common/errors/error-render.ts). */
export const OPENAI_FACE: FaceDefinition = {
  name: OPENAI,
  prefixes: V1_PREFIXES,
  routes: OPENAI_ROUTES,
  errors: null,
  openApi,
  securitySchemes: {
    gateway: { type: 'http', scheme: 'bearer', description: 'An API key (sy-…) or an OAuth access token' },
  },
};
