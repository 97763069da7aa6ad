import type { GatewayRoute } from '../../call/route';

/** This face's name: its routes' `face`. */
export const ANTHROPIC = 'anthropic';

/** Anthropic's Messages API (docs/anthropic.md), under `/v1` and its aliases beside OpenAI's routes. */
export const ANTHROPIC_ROUTES: GatewayRoute[] = [
  {
    method: 'POST',
    template: '/messages',
    action: 'chat_completions',
    name: 'messages',
    body: 'json',
    summary: "Anthropic's Messages API, for any chat model (SSE with stream: true; docs/anthropic.md)",
    face: ANTHROPIC,
  },
  {
    method: 'POST',
    template: '/messages/count_tokens',
    action: 'count_tokens',
    body: 'json',
    summary: 'Input tokens of a Messages request (free; docs/anthropic.md)',
    face: ANTHROPIC,
  },
];
