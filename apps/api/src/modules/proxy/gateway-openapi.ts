import type { OpenAPIObject } from '@nestjs/swagger';
import { GATEWAY_ROUTES } from './allowlist';

/**
 * The gateway's routes in the OpenAPI document, generated from the allowlist itself (they are not Nest
 * controllers). Bodies are the OpenAI API's; see https://github.com/openai/openai-openapi for their schemas.
 */
export function addGatewayPaths(document: OpenAPIObject): void {
  document.components ??= {};
  document.components.securitySchemes = {
    ...document.components.securitySchemes,
    gateway: { type: 'http', scheme: 'bearer', description: 'An API key (sy-…) or an OAuth access token' },
  };
  for (const route of GATEWAY_ROUTES) {
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
          403: { description: 'invalid_api_key, endpoint_not_allowed' },
          404: { description: 'model_not_found' },
          502: { description: 'upstream_error' },
          504: { description: 'upstream_timeout' },
        },
      },
    };
  }
}
