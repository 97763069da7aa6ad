import type { GatewayRoute } from '../../call/route';
import type { FaceDefinition } from '../face';
import { GEMINI_ERRORS } from './gemini-errors';
import { GEMINI, GEMINI_ROUTES, V1BETA_PREFIXES } from './gemini.routes';

const OPERATIONS: Record<string, { id: string; body: boolean; ok: string }> = {
  generateContent: {
    id: 'gateway_gemini_generate_content',
    body: true,
    ok: 'A GenerateContentResponse; x-switchyard-call-id on every answer, x-switchyard-cost (what was debited)',
  },
  streamGenerateContent: {
    id: 'gateway_gemini_stream_generate_content',
    body: true,
    ok: 'GenerateContentResponse chunks as server-sent events (with ?alt=sse), the usage on the last',
  },
  countTokens: {
    id: 'gateway_gemini_count_tokens',
    body: true,
    ok: '{"totalTokens": N}: the gateway’s estimate of the input; free',
  },
  model: { id: 'gateway_gemini_get_model', body: false, ok: 'The chat model, as Gemini describes a model' },
};

/** Gemini's routes in the OpenAPI document (docs/gemini.md): Google's bodies, headers and error shape. */
function openApi(route: GatewayRoute) {
  const operation = OPERATIONS[route.template.split(':')[1] ?? 'model'];
  const v1beta = route.prefixes === V1BETA_PREFIXES;
  return {
    path: v1beta ? `/v1beta/models${route.template}` : `/v1${route.template}`,
    method: route.method.toLowerCase(),
    operation: {
      operationId: `${operation.id}${v1beta ? '_v1beta' : ''}`,
      summary: route.summary,
      description:
        'Gemini’s API (docs/gemini.md): any chat model of the catalog, translated. Served under /v1 (also /apikey/v1, /oauth2/v1) and /v1beta/models (also /apikey/v1beta, /oauth2/v1beta), where Google’s SDKs call it given a base URL. Credential in x-goog-api-key (or Authorization: Bearer; Google’s ?key= is accepted too). Errors in Google’s shape {error: {code, message, status, details}}.',
      tags: ['gateway'],
      security: [{ gateway: [] }, { googleApiKey: [] }],
      parameters: [
        { name: 'model', in: 'path' as const, required: true, schema: { type: 'string' as const } },
        ...(route.template.includes('stream')
          ? [{ name: 'alt', in: 'query' as const, required: true, schema: { type: 'string' as const, enum: ['sse'] } }]
          : []),
      ],
      ...(operation.body
        ? {
            requestBody: {
              required: true,
              content: {
                'application/json': {
                  schema: {
                    type: 'object' as const,
                    properties: {
                      contents: { type: 'array' as const, items: { type: 'object' as const } },
                      systemInstruction: { type: 'object' as const },
                      tools: { type: 'array' as const, items: { type: 'object' as const } },
                      toolConfig: { type: 'object' as const },
                      generationConfig: { type: 'object' as const },
                    },
                  },
                },
              },
            },
          }
        : {}),
      responses: {
        200: { description: operation.ok },
        400: { description: 'INVALID_ARGUMENT (a bad body, a refused tool, a bad API key: reason API_KEY_INVALID)' },
        401: { description: 'UNAUTHENTICATED (no credential, an invalid OAuth token)' },
        403: {
          description:
            'PERMISSION_DENIED: the balance (ErrorInfo reason BUDGET_EXHAUSTED), a key’s spend limit or an app’s cap (reason SPEND_LIMIT_EXCEEDED), a model without a price; the figures as ErrorInfo metadata',
        },
        404: { description: 'NOT_FOUND (unknown model)' },
        429: { description: 'RESOURCE_EXHAUSTED (requests per minute)' },
        502: { description: 'UNAVAILABLE (the provider failed)' },
        504: { description: 'DEADLINE_EXCEEDED (the provider timed out)' },
      },
    },
  };
}

/** Gemini's API under `/v1beta/models/`, with its errors in Google's shape. */
export const GEMINI_FACE: FaceDefinition = {
  name: GEMINI,
  prefixes: V1BETA_PREFIXES,
  routes: GEMINI_ROUTES,
  errors: GEMINI_ERRORS,
  openApi,
  securitySchemes: {
    googleApiKey: {
      type: 'apiKey',
      in: 'header',
      name: 'x-goog-api-key',
      description: 'An API key (sy-…), as Google’s SDKs send it: on the Gemini routes only',
    },
  },
};
