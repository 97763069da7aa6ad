import type { OpenAPIObject } from '@nestjs/swagger';
import { GATEWAY_ROUTES, type GatewayRoute } from './allowlist';

/**
 * The gateway's routes in the OpenAPI document, generated from the allowlist itself (they are not Nest
 * controllers). Bodies are the OpenAI API's; see https://github.com/openai/openai-openapi for their schemas.
 */
export function addGatewayPaths(document: OpenAPIObject): void {
  document.components ??= {};
  document.components.securitySchemes = {
    ...document.components.securitySchemes,
    gateway: { type: 'http', scheme: 'bearer', description: 'An API key (sy-…) or an OAuth access token' },
    anthropicApiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'x-api-key',
      description: 'An API key (sy-…), as Anthropic’s SDKs send it: on the Messages routes only',
    },
  };
  document.components.schemas = { ...document.components.schemas, ...REFUSAL_SCHEMAS };
  for (const route of GATEWAY_ROUTES) {
    if (route.action === 'messages' || route.action === 'count_tokens') {
      addMessagesPath(document, route);
      continue;
    }
    const path = `/v1${route.template}`;
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
                  properties: { model: { type: 'string' as const }, stream: { type: 'boolean' as const } },
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
    document.paths[path] = {
      ...document.paths[path],
      [route.method.toLowerCase()]: {
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
          404: { description: 'model_not_found' },
          502: { description: 'upstream_error' },
          504: { description: 'upstream_timeout' },
        },
      },
    };
  }
}

/** Anthropic's Messages routes (docs/anthropic.md): Anthropic's bodies, headers and error shape. */
function addMessagesPath(document: OpenAPIObject, route: GatewayRoute): void {
  const counting = route.action === 'count_tokens';
  document.paths[`/v1${route.template}`] = {
    post: {
      operationId: `gateway_${route.action}`,
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
                ...(counting ? {} : { stream: { type: 'boolean' as const } }),
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
        400: { description: 'invalid_request_error (max_tokens missing or not a whole number from 1, …)' },
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
        503: { description: 'overloaded_error (the instance is shutting down)' },
      },
    },
  };
}

type SchemaObject = NonNullable<NonNullable<OpenAPIObject['components']>['schemas']>[string];

/** The money refusals' fields (docs/budgets.md, "Which limit refused a call"), on both faces. */
const REFUSAL_FIELDS: Record<string, SchemaObject> = {
  code: { type: 'string', enum: ['budget_exhausted', 'spend_limit_exceeded'] },
  limit: {
    type: 'string',
    enum: ['account', 'per_request', 'daily', 'weekly', 'monthly', 'total'],
    description: '`account` for budget_exhausted',
  },
  scope: { type: 'string', enum: ['key', 'app'], description: 'spend_limit_exceeded: whose limit' },
  keyId: { type: 'string', nullable: true },
  clientId: { type: 'string', nullable: true },
  limitAmount: { type: 'number', description: 'The limit, in currency units' },
  spent: {
    type: 'number',
    nullable: true,
    description: 'Spent in the limit’s window (settled plus held by calls in flight); null for per_request',
  },
  needed: { type: 'number', description: 'The least this call needs (its input and one output token)' },
  resetsAt: {
    type: 'string',
    format: 'date-time',
    nullable: true,
    description: 'When a daily, weekly or monthly window starts again (UTC)',
  },
  remainingBudget: { type: 'number', description: 'The account’s balance' },
  topUpUrl: { type: 'string', description: 'budget_exhausted: where to add funds' },
  settingsUrl: { type: 'string', description: 'spend_limit_exceeded: where the limit is changed' },
};

const REFUSAL_SCHEMAS: Record<string, SchemaObject> = {
  GatewayRefusal: {
    type: 'object',
    description: 'A 403 in OpenAI’s shape; the money refusals carry the figures beside message, type and code',
    properties: {
      error: {
        type: 'object',
        required: ['message', 'type', 'code'],
        properties: {
          message: { type: 'string' },
          type: { type: 'string' },
          param: { nullable: true },
          ...REFUSAL_FIELDS,
        },
      },
    },
  },
  AnthropicRefusal: {
    type: 'object',
    description: 'A 403 in Anthropic’s shape; the money refusals carry the gateway’s code and figures inside error',
    properties: {
      type: { type: 'string', enum: ['error'] },
      error: {
        type: 'object',
        required: ['type', 'message'],
        properties: { type: { type: 'string' }, message: { type: 'string' }, ...REFUSAL_FIELDS },
      },
      request_id: { type: 'string' },
    },
  },
};
