import { type GatewayPrefix, type GatewayRoute, V1_PREFIXES } from '../../call/route';

/** This face's name: its routes' `face`. */
export const GEMINI = 'gemini';

/**
 * Where Google's SDKs and the Gemini CLI call Gemini's API given a base URL: `{base}/v1/models/…` (the SDK's default
 * version) and `{base}/v1beta/models/…`, each with the gateway's aliases (`/apikey/…` for API keys only, `/oauth2/…`
 * for OAuth tokens only). `/v1beta/models` itself (Google's models list) is not the gateway's.
 */
export const V1BETA_PREFIXES: GatewayPrefix[] = [
  { prefix: '/v1beta/models', kind: 'shared', under: true },
  { prefix: '/apikey/v1beta/models', kind: 'apikey', under: true },
  { prefix: '/oauth2/v1beta/models', kind: 'oauth', under: true },
];

/** The actions of a model (`models/{model}:{action}`), each a route under both versions. */
const ACTIONS = [
  {
    action: 'generateContent',
    route: {
      action: 'chat_completions',
      name: 'generate_content',
      summary: "Gemini's generateContent, for any chat model (docs/gemini.md)",
    },
  },
  {
    action: 'streamGenerateContent',
    route: {
      action: 'chat_completions',
      name: 'generate_content',
      summary: "Gemini's streamGenerateContent (server-sent events, ?alt=sse), for any chat model (docs/gemini.md)",
    },
  },
  {
    action: 'countTokens',
    route: { action: 'count_tokens', summary: 'Input tokens of a generateContent request (free; docs/gemini.md)' },
  },
] as const;

/** Whether a route streams (streamGenerateContent). */
export const streams = (route: GatewayRoute): boolean => route.template.endsWith(':streamGenerateContent');

/** Gemini's generateContent API (docs/gemini.md), in front of every chat model. */
export const GEMINI_ROUTES: GatewayRoute[] = [
  ...ACTIONS.flatMap(({ action, route }) => [
    {
      method: 'POST' as const,
      template: `/models/{model}:${action}`,
      body: 'json' as const,
      face: GEMINI,
      prefixes: V1_PREFIXES,
      ...route,
    },
    {
      method: 'POST' as const,
      template: `/{model}:${action}`,
      body: 'json' as const,
      face: GEMINI,
      prefixes: V1BETA_PREFIXES,
      ...route,
    },
  ]),
  // GET /v1/models/{id} is OpenAI's; Gemini's description of a model is served under /v1beta.
  {
    method: 'GET',
    template: '/{model}',
    action: 'get_model',
    body: 'none',
    summary: 'One chat model, as Gemini describes a model (docs/gemini.md)',
    face: GEMINI,
    prefixes: V1BETA_PREFIXES,
  },
];
