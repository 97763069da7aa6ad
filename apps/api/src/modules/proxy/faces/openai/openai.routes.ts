import type { GatewayRoute } from '../../call/route';

/** This face's name: its routes' `face`. */
export const OPENAI = 'openai';

/**
 * OpenAI's API, the gateway's first face (docs/gateway.md, "Endpoints"): the only (method, path) pairs it serves
 * under `/v1` and its aliases (docs/decisions.md#the-allowlist). Anything else is 403 "Endpoint not allowed" and
 * never forwarded. `GET /chat/completions` (stored completions), `/files` and `DELETE /models/{id}` are
 * deliberately absent: the provider key is shared by every tenant.
 */
export const OPENAI_ROUTES: GatewayRoute[] = [
  {
    method: 'GET',
    template: '/models',
    action: 'list_models',
    body: 'none',
    summary: 'List models (filters: type, capability, method, detailed)',
    face: OPENAI,
  },
  { method: 'GET', template: '/models/{id}', action: 'get_model', body: 'none', summary: 'One model', face: OPENAI },
  {
    method: 'POST',
    template: '/chat/completions',
    action: 'chat_completions',
    body: 'json',
    summary: 'Chat completion (SSE with stream: true)',
    face: OPENAI,
  },
  {
    method: 'POST',
    template: '/completions',
    action: 'completions',
    body: 'json',
    summary: 'Legacy text completion',
    face: OPENAI,
  },
  { method: 'POST', template: '/responses', action: 'responses', body: 'json', summary: 'Responses API', face: OPENAI },
  { method: 'POST', template: '/embeddings', action: 'embeddings', body: 'json', summary: 'Embeddings', face: OPENAI },
  {
    method: 'POST',
    template: '/images/generations',
    action: 'image_generation',
    body: 'json',
    summary: 'Image generation',
    face: OPENAI,
  },
  {
    method: 'POST',
    template: '/images/edits',
    action: 'image_edit',
    body: 'multipart',
    summary: 'Image edit (multipart; repeated image fields, optional mask)',
    face: OPENAI,
  },
  {
    method: 'POST',
    template: '/images/variations',
    action: 'image_variation',
    body: 'multipart',
    summary: 'Image variation (multipart)',
    face: OPENAI,
  },
  {
    method: 'POST',
    template: '/audio/speech',
    action: 'audio_speech',
    body: 'json',
    summary: 'Text to speech (binary audio)',
    face: OPENAI,
  },
  {
    method: 'POST',
    template: '/audio/transcriptions',
    action: 'audio_transcription',
    body: 'multipart',
    summary: 'Transcription (multipart)',
    face: OPENAI,
  },
  {
    method: 'POST',
    template: '/videos',
    action: 'video_generation',
    body: 'json',
    summary: 'Start a video generation job',
    face: OPENAI,
  },
  {
    method: 'GET',
    template: '/videos/{id}',
    action: 'video_retrieve',
    body: 'none',
    summary: 'Video job status',
    face: OPENAI,
  },
  {
    method: 'GET',
    template: '/videos/{id}/content',
    action: 'video_content',
    body: 'none',
    summary: 'Video content (binary)',
    face: OPENAI,
  },
  {
    method: 'POST',
    template: '/videos/{id}/remix',
    action: 'video_remix',
    body: 'json',
    summary: 'Remix a video',
    face: OPENAI,
  },
];
